/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --waits split over processes: shares, records, the owners' matching, no MPI. */
/*
 * What the serial reading (waits.c) does in one merged pass, done by N processes: the
 * messages to a rank and the Wrong Order heap of that rank are the business of the process
 * owning the rank; a message's k-th send and k-th receive of one key (communicator, sender,
 * receiver, tag) are its two ends, as libvttrace's FIFO matching pairs them; the k-th end of
 * each member of a communicator's collective belong together. The owner replays the ends it
 * gets in time order (ties: location index, then the location's own order) for Wrong Order,
 * then computes each message and collective with libvtprof's arithmetic. Sums are integer
 * ticks, so their order does not matter.
 */
#include "waits_split.h"
#include "waits.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A table of values by a 192-bit key: open addressing, a key taken out leaves a tombstone. */
struct kv {
	uint64_t a, b, c, v;
	uint8_t state; /* 0: free, 1: used, 2: taken out */
};
struct table {
	struct kv *e;
	size_t n, cap; /* n: used and taken out */
};

static size_t kv_home(uint64_t a, uint64_t b, uint64_t c, size_t cap)
{
	return (size_t)vt_prof_mix(a ^ vt_prof_mix(b ^ vt_prof_mix(c))) & (cap - 1);
}

static struct kv *kv_find3(struct table *t, uint64_t a, uint64_t b, uint64_t c, bool make)
{
	if (make && 2 * (t->n + 1) > t->cap) {
		/* Sized by the keys in use: taken-out ones (requests done) do not grow it. */
		size_t used = 1, cap = 64;
		for (size_t i = 0; i < t->cap; i++)
			used += t->e[i].state == 1;
		while (cap < 4 * used)
			cap *= 2;
		struct table g = {vtr_xcalloc(cap, sizeof(struct kv)), 0, cap};
		for (size_t i = 0; i < t->cap; i++) {
			if (t->e[i].state != 1)
				continue;
			size_t j = kv_home(t->e[i].a, t->e[i].b, t->e[i].c, g.cap);
			while (g.e[j].state)
				j = (j + 1) & (g.cap - 1);
			g.e[j] = t->e[i];
			g.n++;
		}
		free(t->e);
		*t = g;
	}
	if (!t->cap)
		return NULL;
	size_t i = kv_home(a, b, c, t->cap);
	for (; t->e[i].state; i = (i + 1) & (t->cap - 1))
		if (t->e[i].state == 1 && t->e[i].a == a && t->e[i].b == b && t->e[i].c == c)
			return &t->e[i];
	if (!make)
		return NULL;
	t->e[i] = (struct kv){a, b, c, 0, 1};
	t->n++;
	return &t->e[i];
}

static struct kv *kv_find(struct table *t, uint64_t a, uint64_t b, bool make)
{
	return kv_find3(t, a, b, 0, make);
}

/* A message as its owner pairs it: its ends as they came, the Wrong Order state. */
struct pair {
	struct vt_prof_wmsg s, r;
	uint64_t earliest;
	uint32_t gen, next_free;
	bool has_s, has_r, in_flight;
};

/* Per receiving rank, the sends in flight by their begin: a min-heap whose entries no longer
 * in flight (or of a pair since reused: gen) are dropped when they come on top. */
struct hent {
	uint64_t begin;
	uint32_t pair, gen;
};
struct heap {
	struct hent *e;
	size_t n, cap;
};

/* A collective instance (comm, k) as its owner gathers its members' ends. */
struct cinst {
	struct vt_prof_wcoll *m;
	uint32_t n, cap, next_free;
};

struct vt_prof_wsplit {
	const struct vtr_trace *t;
	uint32_t me, n, nranks;
	bool *share;
	struct vt_prof_wpath *paths;
	size_t npaths, cappaths;
	/* What goes out at the next exchange; handles of the records taken before: <= base. */
	struct vt_prof_wmsg *msgs;
	size_t nmsgs, capmsgs;
	uint64_t base;
	struct vt_prof_wcoll *colls;
	size_t ncolls, capcolls;
	/* Sends gone out whose call's Leave or Isend's completion is still to come (handle ->
	 * aw index + 1), sent after them as updates; aw_free: free list (index + 1). */
	struct vt_prof_wmsg *aw;
	size_t naw, capaw, live_aw;
	uint32_t aw_free;
	/* k of the next end per key; open Isends (loc, request -> handle); Irecv starts; sends
	 * gone out and awaited (handle -> aw + 1); the owner's pairs (key, k -> pair + 1) and
	 * collective instances (comm, k -> inst + 1) */
	struct table seq_send, seq_recv, coll_k, isends, irecvs, awaited, pair_keys, inst_keys;
	/* The owner's part: pairs and instances, in use and free (free lists: index + 1). */
	struct pair *pairs;
	size_t npairs, cappairs, live_pairs;
	uint32_t pair_free;
	struct cinst *inst;
	size_t ninst, capinst, live_members;
	uint32_t inst_free;
	struct heap *heaps; /* per receiving world rank */
	/* The exchanges: the next one when the reading reaches bound or window records are to go
	 * out; the most records held. later: ends that came, at or after the time every process
	 * has read up to (the watermark), in no order. */
	uint64_t bound, peak;
	size_t window;
	struct vt_prof_wmsg *later;
	size_t nlater;
	void (*round)(void *user, uint64_t now);
	void *round_user;
	/* --critical-path's hooks (vt_prof_wsplit_on_cp), NULL: none. */
	const struct vt_prof_wsplit_cp *cp;
	void *cp_user;
	/* The global numbering (globalize): gid[gbase[process] + local - 1]. */
	uint32_t *gid;
	size_t *gbase;
};

static uint32_t owner_of_rank(const struct vt_prof_wsplit *sp, uint32_t rank)
{
	if (rank == VTR_NONE || rank >= sp->nranks)
		return 0;
	return (uint32_t)((uint64_t)rank * sp->n / sp->nranks);
}

struct vt_prof_wsplit *vt_prof_wsplit_new(const struct vtr_trace *t, uint32_t me, uint32_t n)
{
	struct vt_prof_wsplit *sp = vtr_xcalloc(1, sizeof(*sp));
	sp->t = t;
	sp->me = me;
	sp->n = n;
	for (size_t i = 0; i < t->nlocations; i++)
		if (t->locations[i].rank != VTR_NONE && t->locations[i].rank >= sp->nranks)
			sp->nranks = t->locations[i].rank + 1;
	sp->share = vtr_xcalloc(t->nlocations + 1, sizeof(bool));
	for (size_t i = 0; i < t->nlocations; i++)
		sp->share[i] = owner_of_rank(sp, t->locations[i].rank) == me;
	sp->heaps = vtr_xcalloc(sp->nranks + 1, sizeof(*sp->heaps));
	return sp;
}

void vt_prof_wsplit_free(struct vt_prof_wsplit *sp)
{
	free(sp->share);
	free(sp->paths);
	free(sp->msgs);
	free(sp->colls);
	free(sp->later);
	free(sp->aw);
	free(sp->pairs);
	for (size_t i = 0; i < sp->ninst; i++)
		free(sp->inst[i].m);
	free(sp->inst);
	for (size_t i = 0; i < sp->nranks; i++)
		free(sp->heaps[i].e);
	free(sp->heaps);
	free(sp->gid);
	free(sp->gbase);
	struct table *tabs[] = {&sp->seq_send, &sp->seq_recv, &sp->coll_k,    &sp->isends,
				&sp->irecvs,   &sp->awaited,  &sp->pair_keys, &sp->inst_keys};
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		free(tabs[i]->e);
	free(sp);
}

const bool *vt_prof_wsplit_share(const struct vt_prof_wsplit *sp)
{
	return sp->share;
}

uint32_t vt_prof_wsplit_loc_owner(const struct vt_prof_wsplit *sp, uint32_t loc)
{
	return loc < sp->t->nlocations ? owner_of_rank(sp, sp->t->locations[loc].rank) : 0;
}

void vt_prof_wsplit_on_cp(struct vt_prof_wsplit *sp, const struct vt_prof_wsplit_cp *cp, void *user)
{
	sp->cp = cp;
	sp->cp_user = user;
}

/* ---- the exchanges' rhythm ---- */

/* The records this process holds: to go out, sends awaited, ends of pairs and members of
 * instances its owner's part keeps, and extra (a window being resolved). */
static void note_held(struct vt_prof_wsplit *sp, size_t extra)
{
	size_t h = sp->nmsgs + sp->ncolls + sp->live_aw + 2 * sp->live_pairs + sp->live_members +
		   sp->nlater + extra;
	if (h > sp->peak)
		sp->peak = h;
}

void vt_prof_wsplit_on_round(struct vt_prof_wsplit *sp, void (*round)(void *user, uint64_t now),
			     void *user, size_t window)
{
	sp->window = window;
	sp->round = round;
	sp->round_user = user;
}

void vt_prof_wsplit_tick(struct vt_prof_wsplit *sp, uint64_t time)
{
	while (sp->round && (time >= sp->bound || sp->nmsgs + sp->ncolls >= sp->window))
		sp->round(sp->round_user, time);
}

uint64_t vt_prof_wsplit_bound(const struct vt_prof_wsplit *sp)
{
	return sp->bound;
}

void vt_prof_wsplit_set_bound(struct vt_prof_wsplit *sp, uint64_t bound)
{
	sp->bound = bound;
}

size_t vt_prof_wsplit_peak(const struct vt_prof_wsplit *sp)
{
	return sp->peak;
}

/* ---- the reading's side ---- */

void vt_prof_wsplit_enter(struct vt_prof_wsplit *sp, const struct vt_prof_paths *paths,
			  uint32_t path, bool path_new, const struct vtr_location *loc,
			  uint64_t time, uint64_t order)
{
	uint32_t l = (uint32_t)loc->index;
	if (path_new) {
		if (sp->npaths == sp->cappaths) {
			sp->cappaths = sp->cappaths ? 2 * sp->cappaths : 256;
			sp->paths = vtr_xrealloc(sp->paths, sp->cappaths, sizeof(*sp->paths));
		}
		sp->paths[sp->npaths++] = (struct vt_prof_wpath){
		    time, order, l, paths->nodes[path - 1].parent, paths->nodes[path - 1].region,
		    0};
		return;
	}
	/* Its first occurrence over all locations: the smallest time, then location. */
	struct vt_prof_wpath *p = &sp->paths[path - 1];
	if (time < p->time || (time == p->time && l < p->loc)) {
		p->time = time;
		p->loc = l;
		p->seq = order;
	}
}

static uint32_t rank_in_comm(const struct vtr_trace *t, const struct vtr_location *l, uint32_t comm)
{
	if (comm >= t->ncomms || !t->comms[comm].rank_of_member || l->rank == VTR_NONE)
		return VTR_NONE;
	const struct vtr_comm *c = &t->comms[comm];
	for (uint32_t m = 0; m < c->size; m++)
		if (c->rank_of_member[m] == l->rank)
			return m;
	return VTR_NONE;
}

static uint64_t next_seq(struct table *t, uint32_t comm, uint32_t sender, uint32_t receiver,
			 uint32_t tag)
{
	return kv_find(t, (uint64_t)comm << 32 | sender, (uint64_t)receiver << 32 | tag, true)->v++;
}

static struct vt_prof_wmsg *new_msg(struct vt_prof_wsplit *sp)
{
	if (sp->nmsgs == sp->capmsgs) {
		sp->capmsgs = sp->capmsgs ? 2 * sp->capmsgs : 1024;
		sp->msgs = vtr_xrealloc(sp->msgs, sp->capmsgs, sizeof(*sp->msgs));
	}
	struct vt_prof_wmsg *m = &sp->msgs[sp->nmsgs++];
	memset(m, 0, sizeof(*m));
	return m;
}

/* A send's call left or its Isend completed (flag, at time): in the record still to go out,
 * else in an update that follows the record gone out. */
static void settle(struct vt_prof_wsplit *sp, uint64_t handle, uint32_t flag, uint64_t time)
{
	struct vt_prof_wmsg *m;
	if (handle > sp->base) {
		m = &sp->msgs[handle - sp->base - 1];
	} else {
		struct kv *e = kv_find(&sp->awaited, handle, 0, false);
		if (!e)
			return;
		uint32_t i = (uint32_t)e->v - 1;
		e->state = 2;
		m = new_msg(sp);
		*m = sp->aw[i];
		m->flags |= WP_UPDATE;
		sp->aw[i].pad = sp->aw_free;
		sp->aw_free = i + 1;
		sp->live_aw--;
	}
	if (flag == WP_COMPLETED)
		m->complete = time;
	else
		m->other = time;
	m->flags = (m->flags | flag) & ~(uint32_t)WP_AWAIT;
}

uint64_t vt_prof_wsplit_record(struct vt_prof_wsplit *sp, const struct vtr_location *loc,
			       const struct vtr_record *r, uint32_t path, bool in_call,
			       uint64_t call, uint64_t top_enter, uint64_t order)
{
	const struct vtr_trace *t = sp->t;
	struct kv *e;
	/* An end a snapshot's window cut from the other (the serial matching skips it too);
	 * an Irecv's request is forgotten as a matched one's is. */
	if (r->cut) {
		if (r->kind == VTR_EV_MpiIrecv &&
		    (e = kv_find(&sp->irecvs, loc->index, r->request, false)))
			e->state = 2;
		return 0;
	}
	switch (r->kind) {
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend: {
		struct vt_prof_wmsg *m = new_msg(sp);
		*m = (struct vt_prof_wmsg){.time = r->time,
					   .call = call,
					   .bytes = r->bytes,
					   .order = order,
					   .comm = r->comm,
					   .sender = rank_in_comm(t, loc, r->comm),
					   .receiver = r->peer,
					   .tag = r->tag,
					   .loc = (uint32_t)loc->index,
					   .path = path,
					   .flags = WP_SEND};
		m->seq = next_seq(&sp->seq_send, m->comm, m->sender, m->receiver, m->tag);
		uint64_t h = sp->base + sp->nmsgs;
		if (r->kind == VTR_EV_MpiIsend) {
			m->flags |= WP_NONBLOCKING | WP_AWAIT;
			kv_find(&sp->isends, loc->index, r->request, true)->v = h;
			return 0;
		}
		if (!in_call)
			return 0;
		m->flags |= WP_AWAIT;
		return h;
	}
	case VTR_EV_MpiIsendComplete:
		e = kv_find(&sp->isends, loc->index, r->request, false);
		if (e) {
			e->state = 2;
			settle(sp, e->v, WP_COMPLETED, r->time);
		}
		return 0;
	case VTR_EV_MpiIrecvRequest:
		kv_find(&sp->irecvs, loc->index, r->request, true)->v = r->time;
		return 0;
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv: {
		struct vt_prof_wmsg *m = new_msg(sp);
		*m = (struct vt_prof_wmsg){.time = r->time,
					   .call = call,
					   .other = call,
					   .bytes = r->bytes,
					   .order = order,
					   .comm = r->comm,
					   .sender = r->peer,
					   .receiver = rank_in_comm(t, loc, r->comm),
					   .tag = r->tag,
					   .loc = (uint32_t)loc->index,
					   .path = path};
		m->seq = next_seq(&sp->seq_recv, m->comm, m->sender, m->receiver, m->tag);
		if (r->kind == VTR_EV_MpiIrecv) {
			/* Posted at its request's start, else (as libvttrace) its region's Enter.
			 */
			m->flags |= WP_NONBLOCKING;
			m->other = top_enter;
			e = kv_find(&sp->irecvs, loc->index, r->request, false);
			if (e) {
				m->other = e->v;
				e->state = 2;
			}
		}
		return 0;
	}
	case VTR_EV_MpiCollectiveEnd: {
		uint32_t me = rank_in_comm(t, loc, r->comm);
		if (me == VTR_NONE)
			return 0;
		if (sp->ncolls == sp->capcolls) {
			sp->capcolls = sp->capcolls ? 2 * sp->capcolls : 1024;
			sp->colls = vtr_xrealloc(sp->colls, sp->capcolls, sizeof(*sp->colls));
		}
		sp->colls[sp->ncolls++] =
		    (struct vt_prof_wcoll){.k = kv_find(&sp->coll_k, r->comm, me, true)->v++,
					   .begin = r->begin,
					   .end = r->time,
					   .order = order,
					   .sent = r->sent,
					   .received = r->received,
					   .comm = r->comm,
					   .member = me,
					   .op = r->op,
					   .root = r->root,
					   .loc = (uint32_t)loc->index,
					   .path = path};
		return 0;
	}
	default:
		return 0;
	}
}

void vt_prof_wsplit_send_left(struct vt_prof_wsplit *sp, uint64_t handle, uint64_t time)
{
	settle(sp, handle, WP_LEAVE_KNOWN, time);
}

/* ---- what travels ---- */

const struct vt_prof_wpath *vt_prof_wsplit_paths(const struct vt_prof_wsplit *sp, size_t *n)
{
	*n = sp->npaths;
	return sp->paths;
}

struct vt_prof_wmsg *vt_prof_wsplit_take_msgs(struct vt_prof_wsplit *sp, size_t *n)
{
	note_held(sp, 0);
	/* The sends whose Leave or completion is to come: kept to send it after them. */
	for (size_t i = 0; i < sp->nmsgs; i++) {
		if (!(sp->msgs[i].flags & WP_AWAIT))
			continue;
		uint32_t a = sp->aw_free;
		if (a) {
			sp->aw_free = sp->aw[a - 1].pad;
		} else {
			if (sp->naw == sp->capaw) {
				sp->capaw = sp->capaw ? 2 * sp->capaw : 256;
				sp->aw = vtr_xrealloc(sp->aw, sp->capaw, sizeof(*sp->aw));
			}
			a = (uint32_t)++sp->naw;
		}
		sp->aw[a - 1] = sp->msgs[i];
		sp->live_aw++;
		kv_find(&sp->awaited, sp->base + i + 1, 0, true)->v = a;
	}
	sp->base += sp->nmsgs;
	struct vt_prof_wmsg *m = sp->msgs;
	*n = sp->nmsgs;
	sp->msgs = NULL;
	sp->nmsgs = sp->capmsgs = 0;
	return m;
}

struct vt_prof_wcoll *vt_prof_wsplit_take_colls(struct vt_prof_wsplit *sp, size_t *n)
{
	struct vt_prof_wcoll *c = sp->colls;
	*n = sp->ncolls;
	sp->colls = NULL;
	sp->ncolls = sp->capcolls = 0;
	return c;
}

static uint32_t world_rank(const struct vtr_trace *t, uint32_t comm, uint32_t member)
{
	if (comm >= t->ncomms || !t->comms[comm].rank_of_member || member >= t->comms[comm].size)
		return VTR_NONE;
	return t->comms[comm].rank_of_member[member];
}

uint32_t vt_prof_wsplit_msg_dest(const struct vt_prof_wsplit *sp, const struct vt_prof_wmsg *m)
{
	return owner_of_rank(sp, world_rank(sp->t, m->comm, m->receiver));
}

uint32_t vt_prof_wsplit_coll_dest(const struct vt_prof_wsplit *sp, const struct vt_prof_wcoll *c)
{
	return (uint32_t)(vt_prof_mix((uint64_t)c->comm << 40 ^ c->k) % sp->n);
}

/* ---- the global numbering of call paths ---- */

struct pent {
	const struct vt_prof_wpath *p;
	size_t at; /* in the concatenation of every process's paths */
	size_t base;
};

static int cmp_pent(const void *pa, const void *pb)
{
	const struct vt_prof_wpath *a = ((const struct pent *)pa)->p,
				   *b = ((const struct pent *)pb)->p;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

void vt_prof_wsplit_globalize(struct vt_prof_wsplit *sp, const struct vt_prof_wpath *const *all,
			      const size_t *count, uint32_t nprocs, struct vt_prof_paths *global,
			      uint32_t **map)
{
	size_t total = 0, mine = 0;
	for (uint32_t q = 0; q < nprocs; q++) {
		if (q == sp->me)
			mine = total;
		total += count[q];
	}
	struct pent *e = vtr_xcalloc(total + 1, sizeof(*e));
	uint32_t *gid = vtr_xcalloc(total + 1, sizeof(*gid));
	size_t k = 0;
	for (uint32_t q = 0, base = 0; q < nprocs; base += (uint32_t)count[q], q++)
		for (size_t i = 0; i < count[q]; i++, k++)
			e[k] = (struct pent){&all[q][i], k, base};
	/* A path's parent occurs before it in the same location: it is numbered first. */
	qsort(e, total, sizeof(*e), cmp_pent);
	for (size_t i = 0; i < total; i++) {
		uint32_t parent = e[i].p->parent ? gid[e[i].base + e[i].p->parent - 1] : 0;
		gid[e[i].at] = vt_prof_path_of(global, parent, e[i].p->region);
	}
	uint32_t *m = vtr_xcalloc(count[sp->me] + 1, sizeof(*m));
	for (size_t i = 0; i < count[sp->me]; i++)
		m[i + 1] = gid[mine + i];
	free(e);
	free(sp->gid);
	free(sp->gbase);
	sp->gid = gid;
	sp->gbase = vtr_xcalloc((size_t)nprocs + 1, sizeof(*sp->gbase));
	for (uint32_t q = 1; q <= nprocs; q++)
		sp->gbase[q] = sp->gbase[q - 1] + count[q - 1];
	*map = m;
}

uint32_t vt_prof_wsplit_global_path(const struct vt_prof_wsplit *sp, uint32_t loc, uint32_t path)
{
	if (!path || !sp->gid || loc >= sp->t->nlocations)
		return path;
	uint32_t q = owner_of_rank(sp, sp->t->locations[loc].rank);
	if (path > sp->gbase[q + 1] - sp->gbase[q])
		return 0;
	return sp->gid[sp->gbase[q] + path - 1];
}

/* ---- the owner's part ---- */

static int cmp_key(const struct vt_prof_wmsg *a, const struct vt_prof_wmsg *b)
{
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->sender != b->sender)
		return a->sender < b->sender ? -1 : 1;
	if (a->receiver != b->receiver)
		return a->receiver < b->receiver ? -1 : 1;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Ends in time order (ties: location index, then the location's own order); an update right
 * after its send (the send's fields). */
static int cmp_end(const void *pa, const void *pb)
{
	const struct vt_prof_wmsg *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (a->flags & WP_UPDATE) ? (b->flags & WP_UPDATE) ? 0 : 1 : -(b->flags & WP_UPDATE);
}

static void heap_push(struct heap *h, struct hent x)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->e = vtr_xrealloc(h->e, h->cap, sizeof(*h->e));
	}
	size_t i = h->n++;
	for (; i && h->e[(i - 1) / 2].begin > x.begin; i = (i - 1) / 2)
		h->e[i] = h->e[(i - 1) / 2];
	h->e[i] = x;
}

static bool in_flight(const struct pair *p, const struct hent *e)
{
	return p[e->pair].in_flight && p[e->pair].gen == e->gen;
}

static uint64_t heap_min(struct heap *h, const struct pair *p)
{
	while (h->n && !in_flight(p, &h->e[0])) {
		struct hent x = h->e[--h->n];
		size_t i = 0;
		for (;;) {
			size_t c = 2 * i + 1;
			if (c >= h->n)
				break;
			if (c + 1 < h->n && h->e[c + 1].begin < h->e[c].begin)
				c++;
			if (x.begin <= h->e[c].begin)
				break;
			h->e[i] = h->e[c];
			i = c;
		}
		if (h->n)
			h->e[i] = x;
	}
	return h->n ? h->e[0].begin : UINT64_MAX;
}

static void warn_at(struct waits *w, const struct vtr_trace *t, uint32_t loc, const char *what,
		    const struct vt_prof_wmsg *m, uint64_t at, const char *rest)
{
	const struct vtr_location *l = &t->locations[loc];
	fprintf(vt_prof_waits_warn(w),
		"warning: location %" PRIu64 " \"%s\": %s on communicator %u (tag %u, %" PRIu64
		" bytes) at %" PRIu64 " %s\n",
		l->id, l->name, what, m->comm, m->tag, m->bytes, at, rest);
	(*vt_prof_waits_problems(w))++;
}

static void message(const struct vt_prof_wsplit *sp, struct waits *w, const struct pair *x)
{
	const struct vtr_trace *t = sp->t;
	const struct vt_prof_wmsg *s = x->has_s ? &x->s : NULL, *r = x->has_r ? &x->r : NULL;
	if (!r || !s) {
		if (s)
			warn_at(w, t, s->loc, "send", s,
				s->flags & WP_COMPLETED ? s->complete : s->time,
				"has no matching receive");
		else
			warn_at(w, t, r->loc, "receive", r, r->time, "has no matching send");
		return;
	}
	bool nonblocking = s->flags & WP_NONBLOCKING;
	if (nonblocking && !(s->flags & WP_COMPLETED)) {
		warn_at(w, t, s->loc, "send", s, s->time,
			"was received, but its Isend never completed");
		return;
	}
	struct vt_prof_wait_msg m = {
	    .send_begin = s->call,
	    .send_end = nonblocking ? s->complete : s->time,
	    .send_blocking = !nonblocking,
	    .recv_posted = r->other,
	    .recv_begin = r->call,
	    .recv_end = r->time,
	};
	uint64_t ls, lr;
	vt_prof_wait_message(&m, &ls, &lr);
	if (sp->cp)
		sp->cp->message(sp->cp_user, s, r, ls);
	vt_prof_waits_add(w, VT_WAIT_LATE_SENDER, r->path, r->loc, s->comm, ls, 1);
	vt_prof_waits_add(w, VT_WAIT_WRONG_ORDER, r->path, r->loc, s->comm,
			  vt_prof_wait_wrong_order(ls, s->call, x->earliest), 1);
	if (s->flags & WP_LEAVE_KNOWN)
		m.send_end = s->other;
	vt_prof_wait_message(&m, &ls, &lr);
	vt_prof_waits_add(w, VT_WAIT_LATE_RECEIVER, s->path, s->loc, s->comm, lr, 1);
}

static struct kv *pair_key(struct vt_prof_wsplit *sp, const struct vt_prof_wmsg *m, bool make)
{
	return kv_find3(&sp->pair_keys, (uint64_t)m->comm << 32 | m->sender,
			(uint64_t)m->receiver << 32 | m->tag, m->seq, make);
}

/* The pair of an end's key and k, made where it is the first end. */
static uint32_t pair_of(struct vt_prof_wsplit *sp, const struct vt_prof_wmsg *m)
{
	struct kv *e = pair_key(sp, m, true);
	if (e->v)
		return (uint32_t)e->v - 1;
	uint32_t i = sp->pair_free;
	if (i) {
		sp->pair_free = sp->pairs[i - 1].next_free;
	} else {
		if (sp->npairs == sp->cappairs) {
			sp->cappairs = sp->cappairs ? 2 * sp->cappairs : 256;
			sp->pairs = vtr_xrealloc(sp->pairs, sp->cappairs, sizeof(*sp->pairs));
		}
		sp->pairs[sp->npairs].gen = 0;
		i = (uint32_t)++sp->npairs;
	}
	e->v = i;
	struct pair *x = &sp->pairs[i - 1];
	*x = (struct pair){.earliest = UINT64_MAX, .gen = x->gen};
	sp->live_pairs++;
	return i - 1;
}

static void pair_drop(struct vt_prof_wsplit *sp, uint32_t i)
{
	struct pair *x = &sp->pairs[i];
	struct kv *e = pair_key(sp, x->has_s ? &x->s : &x->r, false);
	if (e)
		e->state = 2;
	x->gen++;
	x->has_s = x->has_r = x->in_flight = false;
	x->next_free = sp->pair_free;
	sp->pair_free = i + 1;
	sp->live_pairs--;
}

/* A pair with both ends, its send's Leave or completion not awaited: computed, dropped. */
static void pair_try(struct vt_prof_wsplit *sp, struct waits *w, uint32_t i)
{
	const struct pair *x = &sp->pairs[i];
	if (!x->has_s || !x->has_r || (x->s.flags & WP_AWAIT))
		return;
	message(sp, w, x);
	pair_drop(sp, i);
}

/* One end, in the time order of every process's ends: the Wrong Order replay of the serial
 * reading. */
static void end_of(struct vt_prof_wsplit *sp, struct waits *w, const struct vt_prof_wmsg *m)
{
	const struct vtr_trace *t = sp->t;
	uint32_t i = pair_of(sp, m);
	struct pair *x = &sp->pairs[i];
	if (m->flags & WP_SEND) {
		x->s = *m;
		x->has_s = true;
		uint32_t to = world_rank(t, m->comm, m->receiver);
		if (!x->has_r && to != VTR_NONE && to < sp->nranks) {
			x->in_flight = true;
			heap_push(&sp->heaps[to], (struct hent){m->call, i, x->gen});
		}
	} else {
		x->r = *m;
		x->has_r = true;
		x->in_flight = false;
		uint32_t rank = t->locations[m->loc].rank;
		if (x->has_s && rank != VTR_NONE && rank < sp->nranks)
			x->earliest = heap_min(&sp->heaps[rank], sp->pairs);
	}
	pair_try(sp, w, i);
}

/* A send's Leave or completion that came after the send. */
static void update(struct vt_prof_wsplit *sp, struct waits *w, const struct vt_prof_wmsg *u)
{
	struct kv *e = pair_key(sp, u, false);
	if (!e || !e->v || !sp->pairs[e->v - 1].has_s)
		return;
	uint32_t i = (uint32_t)e->v - 1;
	sp->pairs[i].s = *u;
	sp->pairs[i].s.flags &= ~(uint32_t)WP_UPDATE;
	pair_try(sp, w, i);
}

static int cmp_coll(const void *pa, const void *pb)
{
	const struct vt_prof_wcoll *a = pa, *b = pb;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	/* In the order they end: the first one's operation and root are the instance's. */
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* One collective instance: its members' ends c[0..n). */
static void collective(const struct vt_prof_wsplit *sp, struct waits *w, struct vt_prof_wcoll *c,
		       size_t n)
{
	const struct vtr_trace *t = sp->t;
	qsort(c, n, sizeof(*c), cmp_coll);
	uint32_t size = t->comms[c->comm].size, arrived = 0;
	struct vtr_coll_member *mem = vtr_xcalloc(size + 1, sizeof(*mem));
	uint32_t *paths = vtr_xcalloc(size + 1, sizeof(*paths));
	bool *seen = vtr_xcalloc(size + 1, sizeof(*seen));
	uint64_t *wait = vtr_xcalloc(size + 1, sizeof(*wait));
	for (size_t i = 0; i < n; i++) {
		uint32_t me = c[i].member;
		mem[me] = (struct vtr_coll_member){&t->locations[c[i].loc], c[i].begin, c[i].end,
						   c[i].sent, c[i].received};
		paths[me] = c[i].path;
		if (!seen[me]) {
			seen[me] = true;
			arrived++;
		}
	}
	if (arrived < size) {
		fprintf(vt_prof_waits_warn(w),
			"warning: collective %" PRIu64 " on communicator %u ended by %u of its %u "
			"members\n",
			c->k + 1, c->comm, arrived, size);
		(*vt_prof_waits_problems(w))++;
	} else {
		enum vt_prof_wait p = vt_prof_wait_collective(c->op, c->root, size, mem, wait);
		if (sp->cp)
			sp->cp->collective(sp->cp_user, mem, paths, size, c->op, c->root, p, wait);
		if (p != VT_WAIT_PATTERNS)
			for (uint32_t i = 0; i < size; i++)
				vt_prof_waits_add(w, p, paths[i], (uint32_t)mem[i].location->index,
						  c->comm, wait[i], 1);
	}
	free(mem);
	free(paths);
	free(seen);
	free(wait);
}

static void inst_done(struct vt_prof_wsplit *sp, struct waits *w, uint32_t i)
{
	struct cinst *x = &sp->inst[i];
	collective(sp, w, x->m, x->n);
	sp->live_members -= x->n;
	x->n = 0;
	x->next_free = sp->inst_free;
	sp->inst_free = i + 1;
}

/* A member's end to its instance, computed once every member's is in. */
static void member_of(struct vt_prof_wsplit *sp, struct waits *w, const struct vt_prof_wcoll *c)
{
	struct kv *e = kv_find(&sp->inst_keys, c->comm, c->k, true);
	if (!e->v) {
		uint32_t i = sp->inst_free;
		if (i) {
			sp->inst_free = sp->inst[i - 1].next_free;
		} else {
			if (sp->ninst == sp->capinst) {
				sp->capinst = sp->capinst ? 2 * sp->capinst : 64;
				sp->inst = vtr_xrealloc(sp->inst, sp->capinst, sizeof(*sp->inst));
			}
			sp->inst[sp->ninst] = (struct cinst){0};
			i = (uint32_t)++sp->ninst;
		}
		e->v = i;
	}
	uint32_t i = (uint32_t)e->v - 1;
	struct cinst *x = &sp->inst[i];
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 4;
		x->m = vtr_xrealloc(x->m, x->cap, sizeof(*x->m));
	}
	x->m[x->n++] = *c;
	sp->live_members++;
	if (x->n >= sp->t->comms[c->comm].size) {
		e->state = 2;
		inst_done(sp, w, i);
	}
}

void vt_prof_wsplit_ingest(struct vt_prof_wsplit *sp, struct waits *w, const struct vt_prof_wmsg *m,
			   size_t nm, const struct vt_prof_wcoll *c, size_t nc, uint64_t watermark)
{
	note_held(sp, nm + nc);
	/* The ends before the watermark, with those kept from before, in time order. */
	struct vt_prof_wmsg *all = vtr_xrealloc(sp->later, sp->nlater + nm + 1, sizeof(*all));
	if (nm)
		memcpy(all + sp->nlater, m, nm * sizeof(*m));
	size_t n = sp->nlater + nm, i = 0;
	sp->later = NULL;
	sp->nlater = 0;
	qsort(all, n, sizeof(*all), cmp_end);
	for (; i < n && all[i].time < watermark; i++) {
		if (all[i].flags & WP_UPDATE)
			update(sp, w, &all[i]);
		else
			end_of(sp, w, &all[i]);
	}
	if (i < n) {
		sp->nlater = n - i;
		sp->later = vtr_xcalloc(sp->nlater, sizeof(*sp->later));
		memcpy(sp->later, all + i, sp->nlater * sizeof(*all));
	}
	free(all);
	for (size_t k = 0; k < nc; k++)
		member_of(sp, w, &c[k]);
	note_held(sp, 0);
}

static int cmp_left(const void *pa, const void *pb)
{
	const struct pair *a = *(const struct pair *const *)pa,
			  *b = *(const struct pair *const *)pb;
	return cmp_key(a->has_s ? &a->s : &a->r, b->has_s ? &b->s : &b->r);
}

static int cmp_inst(const void *pa, const void *pb)
{
	const struct cinst *a = *(const struct cinst *const *)pa,
			   *b = *(const struct cinst *const *)pb;
	if (a->m[0].comm != b->m[0].comm)
		return a->m[0].comm < b->m[0].comm ? -1 : 1;
	return (a->m[0].k > b->m[0].k) - (a->m[0].k < b->m[0].k);
}

void vt_prof_wsplit_finish(struct vt_prof_wsplit *sp, struct waits *w)
{
	/* What is left: messages without an end or an Isend's completion, by key and k. */
	struct pair **left = vtr_xcalloc(sp->live_pairs + 1, sizeof(*left));
	size_t n = 0;
	for (size_t i = 0; i < sp->npairs; i++)
		if (sp->pairs[i].has_s || sp->pairs[i].has_r)
			left[n++] = &sp->pairs[i];
	qsort(left, n, sizeof(*left), cmp_left);
	for (size_t i = 0; i < n; i++)
		message(sp, w, left[i]);
	for (size_t i = 0; i < n; i++)
		pair_drop(sp, (uint32_t)(left[i] - sp->pairs));
	free(left);
	/* Collectives some members never ended, by communicator and k. */
	struct cinst **open = vtr_xcalloc(sp->ninst + 1, sizeof(*open));
	n = 0;
	for (size_t i = 0; i < sp->ninst; i++)
		if (sp->inst[i].n)
			open[n++] = &sp->inst[i];
	qsort(open, n, sizeof(*open), cmp_inst);
	for (size_t i = 0; i < n; i++)
		inst_done(sp, w, (uint32_t)(open[i] - sp->inst));
	free(open);
}

void vt_prof_wsplit_resolve(struct vt_prof_wsplit *sp, struct waits *w, struct vt_prof_wmsg *m,
			    size_t nm, struct vt_prof_wcoll *c, size_t nc)
{
	vt_prof_wsplit_ingest(sp, w, m, nm, c, nc, UINT64_MAX);
	vt_prof_wsplit_finish(sp, w);
}
