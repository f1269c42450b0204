/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --waits: the wait states of MPI messages, collectives and OpenMP barriers. */
/*
 * vt-profile --waits, in one merged reading: the trace layer (tools/lib) matches messages and
 * collectives; this file keeps every location's call path, notes at each end of a message or
 * collective the path it happens in (through vtr_record.match), and gathers the members of
 * each OpenMP barrier (the k-th barrier region each thread of a team enters belongs together,
 * as the layer gathers collectives), and keeps per rank the messages in flight to it (Wrong
 * Order: whether one sent earlier was still to be received). libvtprof's waits.c computes the
 * waiting times; they are summed per pattern, call path, location and communicator.
 */
#include "waits.h"
#include "paths.h"
#include "report.h"
#include "vtr_out.h"
#include "waits_split.h"

#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

/* One OpenMP barrier of a team, its members as they enter and leave it. */
struct obar {
	uint32_t comm, left;
	uint64_t seq;
	struct vtr_coll_member *members;
	uint32_t *paths;
	struct obar *next;
};

struct lstate {
	uint32_t *path; /* per open region: its call path (node id) and Enter time */
	uint64_t *enter;
	size_t depth, cap;
	uint32_t teams[16]; /* the thread teams it is in, innermost last */
	uint32_t nteams;
	struct obar *bar; /* the barrier it is in, entered at depth bar_depth */
	size_t bar_depth;
	uint32_t bar_member;
	uint64_t send_slot; /* the blocking send whose call is open at send_depth: slot + 1 */
	size_t send_depth;
	uint64_t order; /* split: its enters and ends of messages and collectives so far */
};

/* The ends of a message in flight: the paths of its send and receive, the receive's call. A
 * blocking send's Late Receiver time needs its call's Leave, which may come before or after
 * the message is matched: the slot stays until both are seen (open, then left or matched). */
struct mslot {
	uint32_t send_path, recv_path;
	uint64_t recv_call;
	uint32_t next_free;
	bool open, left, matched; /* the blocking send's call: open; left at send_leave */
	uint64_t send_leave;
	struct vt_prof_wait_msg m; /* kept while matched and not left */
	const struct vtr_location *sender;
	uint32_t comm;
	/* Wrong Order: the send's begin, its receiver's world rank; in flight between its send
	 * and its receive; at its receive, the earliest begin of the others then in flight to
	 * that rank (UINT64_MAX: none). gen tells a slot's uses apart. */
	uint64_t send_begin, earliest;
	uint32_t to_rank, gen;
	bool send_seen, recv_seen, in_flight;
};

/* Per receiving world rank, the messages in flight to it by their send's begin: a min-heap
 * of which entries whose slot was received (or reused) are dropped when they come on top. */
struct hent {
	uint64_t begin;
	uint32_t slot, gen;
};
struct heap {
	struct hent *e;
	size_t n, cap, live;
};

struct waits {
	const struct vtr_trace *t;
	FILE *warn;
	uint64_t problems;
	struct vt_prof_wsplit *split; /* NULL: the serial reading */
	uint64_t stack_problems;      /* split: the stacks' problems, which it counts itself */
	struct vt_prof_paths paths;
	struct lstate *locs;
	struct mslot *ms;
	size_t nms, capms;
	uint32_t ms_free;
	struct vt_prof_coll_paths *cslots;
	struct obar *bars;
	uint64_t **bar_count; /* per team communicator and member: barriers entered */
	struct vt_prof_wcell *cells;
	size_t ncells, capcells;
	uint32_t *cslots_tab; /* (pattern, path, loc, comm) -> cell index + 1 */
	size_t ncslots;
	uint64_t *wait; /* scratch, per member */
	size_t nwait;
	struct heap *heaps; /* per world rank */
	size_t nheaps;
};

static uint32_t path_now(const struct lstate *s)
{
	return s->depth ? s->path[s->depth - 1] : 0;
}

/* ---- the sums ---- */

static size_t cell_slot(const struct vt_prof_wcell *c, size_t n)
{
	uint64_t k = (uint64_t)c->pattern << 56 ^ (uint64_t)c->path << 28 ^ c->loc;
	return (size_t)vt_prof_mix(k ^ vt_prof_mix(c->comm)) & (n - 1);
}

static bool same_cell(const struct vt_prof_wcell *a, const struct vt_prof_wcell *b)
{
	return a->pattern == b->pattern && a->path == b->path && a->loc == b->loc &&
	       a->comm == b->comm;
}

static void cell_rehash(struct waits *w)
{
	free(w->cslots_tab);
	w->ncslots = w->ncslots ? 2 * w->ncslots : 256;
	w->cslots_tab = vtr_xcalloc(w->ncslots, sizeof(*w->cslots_tab));
	for (size_t i = 0; i < w->ncells; i++) {
		size_t s = cell_slot(&w->cells[i], w->ncslots);
		while (w->cslots_tab[s])
			s = (s + 1) & (w->ncslots - 1);
		w->cslots_tab[s] = (uint32_t)i + 1;
	}
}

void vt_prof_waits_add(struct waits *w, uint32_t pattern, uint32_t path, uint32_t loc,
		       uint32_t comm, uint64_t time, uint64_t count)
{
	if (!time)
		return;
	struct vt_prof_wcell key = {pattern, path, loc, comm, 0, 0};
	size_t s = cell_slot(&key, w->ncslots);
	for (; w->cslots_tab[s]; s = (s + 1) & (w->ncslots - 1)) {
		struct vt_prof_wcell *c = &w->cells[w->cslots_tab[s] - 1];
		if (same_cell(c, &key)) {
			c->time += time;
			c->count += count;
			return;
		}
	}
	if (w->ncells == w->capcells) {
		w->capcells = w->capcells ? 2 * w->capcells : 256;
		w->cells = vtr_xrealloc(w->cells, w->capcells, sizeof(*w->cells));
	}
	key.time = time;
	key.count = count;
	w->cells[w->ncells] = key;
	w->cslots_tab[s] = (uint32_t)++w->ncells;
	if (2 * w->ncells > w->ncslots)
		cell_rehash(w);
}

static void add(struct waits *w, enum vt_prof_wait pattern, uint32_t path,
		const struct vtr_location *loc, uint32_t comm, uint64_t time)
{
	vt_prof_waits_add(w, pattern, path, (uint32_t)loc->index, comm, time, 1);
}

static uint64_t *scratch(struct waits *w, size_t n)
{
	if (n > w->nwait) {
		w->nwait = n;
		w->wait = vtr_xrealloc(w->wait, n, sizeof(*w->wait));
	}
	return w->wait;
}

/* ---- OpenMP barriers ---- */

static bool is_omp_barrier(const struct vtr_trace *t, uint32_t region)
{
	if (region >= t->nregions || !t->regions[region].defined)
		return false;
	const struct vtr_region *r = &t->regions[region];
	return r->paradigm == OTF2_PARADIGM_OPENMP &&
	       (r->role == OTF2_REGION_ROLE_BARRIER ||
		r->role == OTF2_REGION_ROLE_IMPLICIT_BARRIER);
}

static void bar_free(struct obar *b)
{
	free(b->members);
	free(b->paths);
	free(b);
}

static void bar_enter(struct waits *w, const struct vtr_location *loc, struct lstate *s,
		      uint64_t time)
{
	uint32_t comm = s->teams[s->nteams - 1];
	const struct vtr_comm *c = &w->t->comms[comm];
	uint32_t me = VTR_NONE;
	for (uint32_t m = 0; c->location_of_member && m < c->size; m++)
		if (c->location_of_member[m] == loc->index)
			me = m;
	if (me == VTR_NONE)
		return;
	if (!w->bar_count[comm])
		w->bar_count[comm] = vtr_xcalloc(c->size, sizeof(uint64_t));
	uint64_t k = w->bar_count[comm][me]++;
	struct obar *b = w->bars;
	while (b && !(b->comm == comm && b->seq == k))
		b = b->next;
	if (!b) {
		b = vtr_xcalloc(1, sizeof(*b));
		*b = (struct obar){.comm = comm,
				   .seq = k,
				   .members = vtr_xcalloc(c->size, sizeof(*b->members)),
				   .paths = vtr_xcalloc(c->size, sizeof(uint32_t)),
				   .next = w->bars};
		w->bars = b;
	}
	b->members[me] = (struct vtr_coll_member){.location = loc, .begin = time, .end = time};
	b->paths[me] = path_now(s);
	s->bar = b;
	s->bar_depth = s->depth;
	s->bar_member = me;
}

static void bar_leave(struct waits *w, struct lstate *s, uint64_t time)
{
	struct obar *b = s->bar;
	s->bar = NULL;
	b->members[s->bar_member].end = time;
	uint32_t n = w->t->comms[b->comm].size;
	if (++b->left < n)
		return;
	uint64_t *wait = scratch(w, n);
	vt_prof_wait_collective(OTF2_COLLECTIVE_OP_BARRIER, VTR_NONE, n, b->members, wait);
	for (uint32_t i = 0; i < n; i++)
		add(w, VT_WAIT_OMP_BARRIER, b->paths[i], b->members[i].location, b->comm, wait[i]);
	struct obar **pp = &w->bars;
	while (*pp != b)
		pp = &(*pp)->next;
	*pp = b->next;
	bar_free(b);
}

/* ---- the reading's callbacks ---- */

static uint32_t ms_new(struct waits *w)
{
	uint32_t i, gen = 1;
	if (w->ms_free) {
		i = w->ms_free - 1;
		w->ms_free = w->ms[i].next_free;
		gen = w->ms[i].gen + 1;
	} else {
		if (w->nms == w->capms) {
			w->capms = w->capms ? 2 * w->capms : 256;
			w->ms = vtr_xrealloc(w->ms, w->capms, sizeof(*w->ms));
		}
		i = (uint32_t)w->nms++;
	}
	w->ms[i] = (struct mslot){.gen = gen, .earliest = UINT64_MAX};
	return i;
}

static bool hent_live(const struct waits *w, const struct hent *e)
{
	return w->ms[e->slot].gen == e->gen && w->ms[e->slot].in_flight;
}

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			return;
		if (c + 1 < h->n && h->e[c + 1].begin < h->e[c].begin)
			c++;
		if (h->e[i].begin <= h->e[c].begin)
			return;
		struct hent t = h->e[i];
		h->e[i] = h->e[c];
		h->e[c] = t;
		i = c;
	}
}

static void heap_push(struct waits *w, struct heap *h, struct hent e)
{
	if (h->n > 2 * h->live + 64) { /* mostly dropped entries (unreceived sends below) */
		size_t k = 0;
		for (size_t i = 0; i < h->n; i++)
			if (hent_live(w, &h->e[i]))
				h->e[k++] = h->e[i];
		h->n = k;
		for (size_t i = k / 2; i-- > 0;)
			heap_down(h, i);
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->e = vtr_xrealloc(h->e, h->cap, sizeof(*h->e));
	}
	size_t i = h->n++;
	for (; i && h->e[(i - 1) / 2].begin > e.begin; i = (i - 1) / 2)
		h->e[i] = h->e[(i - 1) / 2];
	h->e[i] = e;
	h->live++;
}

/* The earliest send begin in flight to the rank, dropping what is no longer. */
static uint64_t heap_min(const struct waits *w, struct heap *h)
{
	while (h->n && !hent_live(w, &h->e[0])) {
		h->e[0] = h->e[--h->n];
		heap_down(h, 0);
	}
	return h->n ? h->e[0].begin : UINT64_MAX;
}

static uint32_t world_rank(const struct vtr_trace *t, uint32_t comm, uint32_t peer)
{
	if (comm >= t->ncomms || !t->comms[comm].rank_of_member || peer >= t->comms[comm].size)
		return VTR_NONE;
	return t->comms[comm].rank_of_member[peer];
}

/* A send seen: in flight to its receiver's rank until its receive is. */
static void sent(struct waits *w, uint32_t i, uint64_t begin, uint32_t comm, uint32_t peer)
{
	struct mslot *x = &w->ms[i];
	x->send_seen = true;
	x->send_begin = begin;
	uint32_t to = world_rank(w->t, comm, peer);
	if (x->recv_seen || to == VTR_NONE || to >= w->nheaps)
		return;
	x->in_flight = true;
	x->to_rank = to;
	heap_push(w, &w->heaps[to], (struct hent){begin, i, x->gen});
}

/* A receive seen: no longer in flight; the earliest other send then in flight to its rank. */
static void received(struct waits *w, uint32_t i, const struct vtr_location *loc)
{
	struct mslot *x = &w->ms[i];
	x->recv_seen = true;
	if (x->in_flight) {
		x->in_flight = false;
		w->heaps[x->to_rank].live--;
	}
	if (x->send_seen && loc->rank != VTR_NONE && loc->rank < w->nheaps)
		x->earliest = heap_min(w, &w->heaps[loc->rank]);
}

static void ms_free(struct waits *w, uint32_t i)
{
	w->ms[i].next_free = w->ms_free;
	w->ms_free = i + 1;
}

static void late_receiver(struct waits *w, const struct mslot *x, uint64_t send_end)
{
	struct vt_prof_wait_msg m = x->m;
	m.send_end = send_end;
	uint64_t ls, lr;
	vt_prof_wait_message(&m, &ls, &lr);
	add(w, VT_WAIT_LATE_RECEIVER, x->send_path, x->sender, x->comm, lr);
}

/* A blocking send's call left: its Late Receiver time if its message is matched. */
static void send_left(struct waits *w, struct lstate *s, uint64_t time)
{
	uint32_t i = (uint32_t)s->send_slot - 1;
	s->send_slot = 0;
	struct mslot *x = &w->ms[i];
	x->open = false;
	if (!x->matched) {
		x->left = true;
		x->send_leave = time;
		return;
	}
	late_receiver(w, x, time);
	ms_free(w, i);
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct waits *w = user;
	struct lstate *s = &w->locs[loc->index];
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->path = vtr_xrealloc(s->path, s->cap, sizeof(*s->path));
		s->enter = vtr_xrealloc(s->enter, s->cap, sizeof(*s->enter));
	}
	size_t known = w->paths.n;
	s->path[s->depth] = vt_prof_path_of(&w->paths, path_now(s), region);
	if (w->split)
		vt_prof_wsplit_enter(w->split, &w->paths, s->path[s->depth], w->paths.n > known,
				     loc, time, s->order++);
	s->enter[s->depth++] = time;
	if (s->nteams && !s->bar && is_omp_barrier(w->t, region))
		bar_enter(w, loc, s, time);
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct waits *w = user;
	struct lstate *s = &w->locs[loc->index];
	(void)region;
	(void)enter;
	if (s->bar && s->bar_depth == s->depth)
		bar_leave(w, s, time);
	if (s->send_slot && s->send_depth == s->depth) {
		if (w->split) {
			vt_prof_wsplit_send_left(w->split, s->send_slot, time);
			s->send_slot = 0;
		} else {
			send_left(w, s, time);
		}
	}
	if (s->depth)
		s->depth--;
}

static void on_thread(void *user, const struct vtr_location *loc, const struct vtr_thread_event *e)
{
	struct waits *w = user;
	struct lstate *s = &w->locs[loc->index];
	if (e->kind == VTR_EV_ThreadTeamBegin && e->comm < w->t->ncomms &&
	    w->t->comms[e->comm].defined && s->nteams < sizeof(s->teams) / sizeof(s->teams[0]))
		s->teams[s->nteams++] = e->comm;
	else if (e->kind == VTR_EV_ThreadTeamEnd && s->nteams)
		s->nteams--;
}

static bool split_kind(enum vtr_event kind)
{
	switch (kind) {
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv:
	case VTR_EV_MpiIsendComplete:
	case VTR_EV_MpiIrecvRequest:
	case VTR_EV_MpiCollectiveEnd:
		return true;
	default:
		return false;
	}
}

/* Split: the end of a message or collective becomes a record for its owner; a blocking send
 * in its call is followed to its Leave (Late Receiver). */
static void split_record(struct waits *w, const struct vtr_location *loc, struct lstate *s,
			 const struct vtr_record *r, bool in_call, uint64_t call)
{
	if (r->kind == VTR_EV_MpiSend && in_call && s->send_slot) {
		/* A second send in one call: the first one's taken as ended. */
		vt_prof_wsplit_send_left(w->split, s->send_slot, r->time);
		s->send_slot = 0;
	}
	uint64_t h = vt_prof_wsplit_record(w->split, loc, r, path_now(s), in_call, call,
					   s->depth ? s->enter[s->depth - 1] : r->time, s->order);
	s->order++;
	if (h) {
		s->send_slot = h;
		s->send_depth = s->depth;
	}
}

/* At each end of a message or collective: the call path it happens in. */
static void on_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct waits *w = user;
	struct lstate *s = &w->locs[loc->index];
	if (w->split)
		vt_prof_wsplit_tick(w->split, r->time);
	if (w->split ? !split_kind(r->kind) : !r->match)
		return;
	/* The MPI call the event is in: the innermost region if it is MPI's, else none (a
	 * trace without the MPI regions: the event alone). */
	bool in_call = s->depth && vt_prof_path_in_mpi(&w->paths, w->t, s->path[s->depth - 1]);
	uint64_t call = in_call ? s->enter[s->depth - 1] : r->time;
	if (w->split) {
		split_record(w, loc, s, r, in_call, call);
		return;
	}
	switch (r->kind) {
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv: {
		uint32_t i = *r->match ? (uint32_t)(uintptr_t)*r->match - 1 : ms_new(w);
		*r->match = (void *)(uintptr_t)(i + 1);
		if (r->kind == VTR_EV_MpiSend || r->kind == VTR_EV_MpiIsend) {
			w->ms[i].send_path = path_now(s);
			sent(w, i, call, r->comm, r->peer);
			if (r->kind == VTR_EV_MpiSend && in_call) {
				/* A second send in one call: the first one's taken as ended. */
				if (s->send_slot)
					send_left(w, s, r->time);
				w->ms[i].open = true;
				s->send_slot = i + 1;
				s->send_depth = s->depth;
			}
		} else {
			w->ms[i].recv_path = path_now(s);
			w->ms[i].recv_call = call;
			received(w, i, loc);
		}
		break;
	}
	case VTR_EV_MpiCollectiveEnd: {
		if (r->member == VTR_NONE)
			return;
		vt_prof_coll_paths_of(&w->cslots, r->match, w->t->comms[r->comm].size)
		    ->paths[r->member] = path_now(s);
		break;
	}
	default:
		break;
	}
}

static void on_message(void *user, const struct vtr_message *m)
{
	struct waits *w = user;
	uint32_t i = m->match ? (uint32_t)(uintptr_t)m->match - 1 : VTR_NONE;
	struct mslot none = {.recv_call = m->recv_begin,
			     .send_begin = m->send_begin,
			     .send_seen = true,
			     .earliest = UINT64_MAX},
		     *x = i != VTR_NONE ? &w->ms[i] : &none;
	/* The calls' Enters as on_record took them (MPI regions only); an Irecv is posted at
	 * its request. */
	x->m = (struct vt_prof_wait_msg){
	    .send_begin = x->send_seen ? x->send_begin : m->send_begin,
	    .send_end = m->send_end,
	    .send_blocking = !m->send_nonblocking,
	    .recv_posted = m->recv_nonblocking ? m->recv_begin : x->recv_call,
	    .recv_begin = x->recv_call,
	    .recv_end = m->recv_end,
	};
	x->sender = m->sender;
	x->comm = m->comm;
	uint64_t ls, lr;
	vt_prof_wait_message(&x->m, &ls, &lr);
	add(w, VT_WAIT_LATE_SENDER, x->recv_path, m->receiver, m->comm, ls);
	add(w, VT_WAIT_WRONG_ORDER, x->recv_path, m->receiver, m->comm,
	    vt_prof_wait_wrong_order(ls, x->m.send_begin, x->earliest));
	if (x->open) { /* its call's Leave will tell */
		x->matched = true;
		return;
	}
	late_receiver(w, x, x->left ? x->send_leave : m->send_end);
	if (i != VTR_NONE)
		ms_free(w, i);
}

static void on_collective(void *user, const struct vtr_collective *c)
{
	struct waits *w = user;
	struct vt_prof_coll_paths *cs = c->match;
	uint64_t *wait = scratch(w, c->n);
	enum vt_prof_wait p = vt_prof_wait_collective(c->op, c->root, c->n, c->members, wait);
	if (p != VT_WAIT_PATTERNS)
		for (uint32_t i = 0; i < c->n; i++)
			add(w, p, cs ? cs->paths[i] : 0, c->members[i].location, c->comm, wait[i]);
	vt_prof_coll_paths_drop(&w->cslots, cs);
}

/* Only what merged reading adds: the stack's problems are the flat profile's to report. */
static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct waits *w = user;
	(void)has_time;
	(void)time;
	(void)region;
	if (kind != VTR_UNMATCHED_MESSAGE && kind != VTR_UNMATCHED_COLLECTIVE) {
		/* Split: no flat reading before this one counts them; each process its own. */
		if (!w->split)
			return;
		w->stack_problems++;
		if (loc)
			fprintf(w->warn, "vt-profile: warning: location %" PRIu64 " \"%s\": %s\n",
				loc->id, loc->name, message);
		return;
	}
	w->problems++;
	if (loc)
		fprintf(w->warn, "warning: location %" PRIu64 " \"%s\": %s\n", loc->id, loc->name,
			message);
	else
		fprintf(w->warn, "warning: %s\n", message);
}

/* ---- the report ---- */

/* The rows of one breakdown: cells merged by pattern and key (path, location or comm). */
enum breakdown { BY_PATH, BY_LOC, BY_COMM };
static enum breakdown sort_by;

static uint32_t key_of(const struct vt_prof_wcell *c, enum breakdown b)
{
	return b == BY_PATH ? c->path : b == BY_LOC ? c->loc : c->comm;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct vt_prof_wcell *a = pa, *b = pb;
	if (a->pattern != b->pattern)
		return a->pattern < b->pattern ? -1 : 1;
	uint32_t x = key_of(a, sort_by), y = key_of(b, sort_by);
	return (x > y) - (x < y);
}

/* Per pattern the largest time first (call paths); locations and comms in their order. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct vt_prof_wcell *a = pa, *b = pb;
	if (a->pattern != b->pattern)
		return a->pattern < b->pattern ? -1 : 1;
	if (sort_by == BY_PATH && a->time != b->time)
		return a->time > b->time ? -1 : 1;
	uint32_t x = key_of(a, sort_by), y = key_of(b, sort_by);
	return (x > y) - (x < y);
}

static struct vt_prof_wcell *rows_of(const struct waits *w, enum breakdown b, size_t *n)
{
	struct vt_prof_wcell *r = vtr_xcalloc(w->ncells ? w->ncells : 1, sizeof(*r));
	memcpy(r, w->cells, w->ncells * sizeof(*r));
	sort_by = b;
	qsort(r, w->ncells, sizeof(*r), cmp_key);
	size_t k = 0;
	for (size_t i = 0; i < w->ncells; i++) {
		if (k && r[k - 1].pattern == r[i].pattern &&
		    key_of(&r[k - 1], b) == key_of(&r[i], b)) {
			r[k - 1].time += r[i].time;
			r[k - 1].count += r[i].count;
		} else {
			r[k++] = r[i];
		}
	}
	qsort(r, k, sizeof(*r), cmp_rows);
	*n = k;
	return r;
}

static const char *comm_name(const struct vtr_trace *t, uint32_t comm)
{
	return comm < t->ncomms && t->comms[comm].defined ? t->comms[comm].name : "?";
}

struct rows {
	struct vt_prof_wcell *r[3];
	size_t n[3];
	uint64_t time[VT_WAIT_PATTERNS], count[VT_WAIT_PATTERNS], total;
};

static void report_text(FILE *out, const struct vt_prof_trace *tr, const struct waits *w,
			const struct rows *R)
{
	uint64_t res = tr->timer_resolution;
	char buf[64];
	if (!R->n[0]) {
		fprintf(out,
			"Wait states of %s: none (no MPI message, collective or OpenMP barrier "
			"waited)\n",
			tr->path);
		return;
	}
	vt_prof_format_time(buf, sizeof(buf), (double)R->total, res);
	fprintf(out, "Wait states of %s: %s waiting in all\n\n", tr->path, buf);
	fprintf(out, "  %-24s  %12s  %10s\n", "pattern", "time", "instances");
	for (int p = 0; p < VT_WAIT_PATTERNS; p++) {
		vt_prof_format_time(buf, sizeof(buf), (double)R->time[p], res);
		fprintf(out, "  %-24s  %12s  %10" PRIu64 "\n", vt_prof_wait_names[p], buf,
			R->count[p]);
	}
	static const char *const titles[3] = {"per call path", "per location", "per communicator"};
	for (int b = 0; b < 3; b++) {
		fprintf(out, "\n%s:\n  %-24s  %12s  %10s  %s\n", titles[b], "pattern", "time",
			"instances",
			b == BY_PATH  ? "call path"
			: b == BY_LOC ? "rank  location"
				      : "communicator");
		for (size_t i = 0; i < R->n[b]; i++) {
			const struct vt_prof_wcell *c = &R->r[b][i];
			vt_prof_format_time(buf, sizeof(buf), (double)c->time, res);
			fprintf(out, "  %-24s  %12s  %10" PRIu64 "  ",
				vt_prof_wait_names[c->pattern], buf, c->count);
			if (b == BY_PATH) {
				vt_prof_path_print(out, &w->paths, w->t, c->path, " > ", false);
			} else if (b == BY_LOC) {
				const struct vtr_location *l = &w->t->locations[c->loc];
				if (l->rank != VTR_NONE)
					fprintf(out, "%4" PRIu32 "  ", l->rank);
				else
					fputs("   -  ", out);
				fprintf(out, "%s (%s)", l->name, l->group_name);
			} else {
				fputs(comm_name(w->t, c->comm), out);
			}
			fputc('\n', out);
		}
	}
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct waits *w,
		       const struct rows *R)
{
	double res = tr->timer_resolution ? (double)tr->timer_resolution : 1;
	fputs("section,pattern,path,location,rank,communicator,instances,time_ticks,time_s\n", out);
	for (int p = 0; p < VT_WAIT_PATTERNS; p++)
		fprintf(out, "pattern,%s,,,,,%" PRIu64 ",%" PRIu64 ",%.9g\n", vt_prof_wait_keys[p],
			R->count[p], R->time[p], (double)R->time[p] / res);
	static const char *const sections[3] = {"path", "location", "communicator"};
	for (int b = 0; b < 3; b++) {
		for (size_t i = 0; i < R->n[b]; i++) {
			const struct vt_prof_wcell *c = &R->r[b][i];
			fprintf(out, "%s,%s,", sections[b], vt_prof_wait_keys[c->pattern]);
			if (b == BY_PATH) {
				fputc('"', out);
				vt_prof_path_print(out, &w->paths, w->t, c->path, ";", false);
				fputc('"', out);
			}
			fputc(',', out);
			if (b == BY_LOC) {
				const struct vtr_location *l = &w->t->locations[c->loc];
				fprintf(out, "%" PRIu64 ",", l->id);
				if (l->rank != VTR_NONE)
					fprintf(out, "%" PRIu32, l->rank);
			} else {
				fputc(',', out);
			}
			fputc(',', out);
			if (b == BY_COMM)
				vt_prof_csv_field(out, comm_name(w->t, c->comm));
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.9g\n", c->count, c->time,
				(double)c->time / res);
		}
	}
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct waits *w,
			const struct rows *R)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out,
		",\n  \"timer_resolution\": %" PRIu64 ",\n  \"total_ticks\": %" PRIu64
		",\n  \"problems\": %" PRIu64 ",\n  \"patterns\": [",
		tr->timer_resolution, R->total, w->problems);
	for (int p = 0; p < VT_WAIT_PATTERNS; p++) {
		fprintf(out,
			"%s\n    {\"pattern\": \"%s\", \"name\": \"%s\", \"instances\": %" PRIu64
			", \"time_ticks\": %" PRIu64 "}",
			p ? "," : "", vt_prof_wait_keys[p], vt_prof_wait_names[p], R->count[p],
			R->time[p]);
	}
	fputs("\n  ]", out);
	static const char *const sections[3] = {"call_paths", "locations", "communicators"};
	for (int b = 0; b < 3; b++) {
		fprintf(out, ",\n  \"%s\": [", sections[b]);
		for (size_t i = 0; i < R->n[b]; i++) {
			const struct vt_prof_wcell *c = &R->r[b][i];
			fprintf(out, "%s\n    {\"pattern\": \"%s\", ", i ? "," : "",
				vt_prof_wait_keys[c->pattern]);
			if (b == BY_PATH) {
				fputs("\"path\": ", out);
				vt_prof_path_print(out, &w->paths, w->t, c->path, "", true);
			} else if (b == BY_LOC) {
				const struct vtr_location *l = &w->t->locations[c->loc];
				fprintf(out, "\"location\": %" PRIu64 ", \"name\": ", l->id);
				vtr_json_string(out, l->name);
				if (l->rank != VTR_NONE)
					fprintf(out, ", \"rank\": %" PRIu32, l->rank);
				else
					fputs(", \"rank\": null", out);
			} else {
				fprintf(out, "\"communicator\": %" PRIu32 ", \"name\": ", c->comm);
				vtr_json_string(out, comm_name(w->t, c->comm));
			}
			fprintf(out, ", \"instances\": %" PRIu64 ", \"time_ticks\": %" PRIu64 "}",
				c->count, c->time);
		}
		fputs(R->n[b] ? "\n  ]" : "]", out);
	}
	fputs("\n}\n", out);
}

static void waits_free(struct waits *w)
{
	for (size_t i = 0; i < w->t->nlocations; i++) {
		free(w->locs[i].path);
		free(w->locs[i].enter);
	}
	free(w->locs);
	vt_prof_coll_paths_free(&w->cslots);
	while (w->bars) {
		struct obar *b = w->bars;
		w->bars = b->next;
		bar_free(b);
	}
	for (size_t i = 0; i < w->t->ncomms; i++)
		free(w->bar_count[i]);
	free(w->bar_count);
	vt_prof_paths_free(&w->paths);
	free(w->ms);
	free(w->cells);
	free(w->cslots_tab);
	free(w->wait);
	for (size_t i = 0; i < w->nheaps; i++)
		free(w->heaps[i].e);
	free(w->heaps);
}

static void waits_init(struct waits *w, const struct vtr_trace *t, FILE *warn)
{
	*w = (struct waits){.t = t, .warn = warn};
	w->locs = vtr_xcalloc(t->nlocations ? t->nlocations : 1, sizeof(*w->locs));
	w->bar_count = vtr_xcalloc(t->ncomms ? t->ncomms : 1, sizeof(*w->bar_count));
	for (size_t i = 0; i < t->nlocations; i++)
		if (t->locations[i].rank != VTR_NONE && t->locations[i].rank >= w->nheaps)
			w->nheaps = (size_t)t->locations[i].rank + 1;
	w->heaps = vtr_xcalloc(w->nheaps ? w->nheaps : 1, sizeof(*w->heaps));
	cell_rehash(w);
}

static const struct vtr_callbacks waits_cb = {
    .enter = on_enter,
    .leave = on_leave,
    .record = on_record,
    .message = on_message,
    .collective = on_collective,
    .thread = on_thread,
    .problem = on_problem,
};

static int waits_read(struct waits *w)
{
	return vtr_read_merged((struct vtr_trace *)w->t, &waits_cb, w);
}

static void waits_print(const struct waits *w, const struct vt_prof_trace *tr,
			const struct vt_prof_options *opt, FILE *out)
{
	struct rows R = {0};
	for (int b = 0; b < 3; b++)
		R.r[b] = rows_of(w, (enum breakdown)b, &R.n[b]);
	for (size_t i = 0; i < w->ncells; i++) {
		R.time[w->cells[i].pattern] += w->cells[i].time;
		R.count[w->cells[i].pattern] += w->cells[i].count;
		if (!vt_prof_wait_is_part((enum vt_prof_wait)w->cells[i].pattern))
			R.total += w->cells[i].time;
	}
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, w, &R);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, w, &R);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, w, &R);
		break;
	}
	for (int b = 0; b < 3; b++)
		free(R.r[b]);
}

int vt_prof_report_waits(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			 FILE *out, FILE *warn, uint64_t *problems, char *err, size_t errlen)
{
	struct waits w;
	waits_init(&w, tr->layer, warn);
	int rc = waits_read(&w);
	if (rc < 0)
		snprintf(err, errlen, "%s", tr->layer->err);
	else
		waits_print(&w, tr, opt, out);
	*problems = w.problems;
	waits_free(&w);
	return rc < 0 ? -1 : 0;
}

/* ---- the split reading's side (waits_split.h) ---- */

struct waits *vt_prof_waits_new(const struct vtr_trace *t, FILE *warn, struct vt_prof_wsplit *sp)
{
	struct waits *w = vtr_xcalloc(1, sizeof(*w));
	waits_init(w, t, warn);
	w->split = sp;
	return w;
}

int vt_prof_waits_read(struct waits *w)
{
	return waits_read(w);
}

const struct vtr_callbacks *vt_prof_waits_callbacks(void)
{
	return &waits_cb;
}

const struct vt_prof_wcell *vt_prof_waits_cells(const struct waits *w, size_t *n)
{
	*n = w->ncells;
	return w->cells;
}

void vt_prof_waits_renumber(struct waits *w, const struct vt_prof_wsplit *sp,
			    struct vt_prof_paths *global)
{
	struct vt_prof_wcell *old = w->cells;
	size_t n = w->ncells;
	w->cells = NULL;
	w->ncells = w->capcells = 0;
	free(w->cslots_tab);
	w->cslots_tab = NULL;
	w->ncslots = 0;
	cell_rehash(w);
	for (size_t i = 0; i < n; i++)
		vt_prof_waits_add(w, old[i].pattern,
				  vt_prof_wsplit_global_path(sp, old[i].loc, old[i].path),
				  old[i].loc, old[i].comm, old[i].time, old[i].count);
	free(old);
	vt_prof_paths_free(&w->paths);
	w->paths = *global;
	*global = (struct vt_prof_paths){0};
}

const struct vt_prof_paths *vt_prof_waits_paths(const struct waits *w)
{
	return &w->paths;
}

uint64_t *vt_prof_waits_problems(struct waits *w)
{
	return &w->problems;
}

uint64_t vt_prof_waits_stack_problems(const struct waits *w)
{
	return w->stack_problems;
}

FILE *vt_prof_waits_warn(const struct waits *w)
{
	return w->warn;
}

void vt_prof_waits_print(struct waits *w, const struct vt_prof_trace *tr,
			 const struct vt_prof_options *opt, FILE *out)
{
	waits_print(w, tr, opt, out);
}

void vt_prof_waits_free(struct waits *w)
{
	waits_free(w);
	free(w);
}
