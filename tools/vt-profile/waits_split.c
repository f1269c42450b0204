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

/* A table of values by a 128-bit key: open addressing, a key taken out leaves a tombstone. */
struct kv {
	uint64_t a, b, v;
	uint8_t state; /* 0: free, 1: used, 2: taken out */
};
struct table {
	struct kv *e;
	size_t n, cap; /* n: used and taken out */
};

static size_t kv_home(uint64_t a, uint64_t b, size_t cap)
{
	return (size_t)vt_prof_mix(a ^ vt_prof_mix(b)) & (cap - 1);
}

static struct kv *kv_find(struct table *t, uint64_t a, uint64_t b, bool make)
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
			size_t j = kv_home(t->e[i].a, t->e[i].b, g.cap);
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
	size_t i = kv_home(a, b, t->cap);
	for (; t->e[i].state; i = (i + 1) & (t->cap - 1))
		if (t->e[i].state == 1 && t->e[i].a == a && t->e[i].b == b)
			return &t->e[i];
	if (!make)
		return NULL;
	t->e[i] = (struct kv){a, b, 0, 1};
	t->n++;
	return &t->e[i];
}

struct vt_prof_wsplit {
	const struct vtr_trace *t;
	uint32_t me, n, nranks;
	bool *share;
	struct vt_prof_wpath *paths;
	size_t npaths, cappaths;
	struct vt_prof_wmsg *msgs;
	size_t nmsgs, capmsgs;
	struct vt_prof_wcoll *colls;
	size_t ncolls, capcolls;
	/* k of the next end per key; open Isends (loc, request -> msg + 1); Irecv starts */
	struct table seq_send, seq_recv, coll_k, isends, irecvs;
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
	return sp;
}

void vt_prof_wsplit_free(struct vt_prof_wsplit *sp)
{
	free(sp->share);
	free(sp->paths);
	free(sp->msgs);
	free(sp->colls);
	struct table *tabs[] = {&sp->seq_send, &sp->seq_recv, &sp->coll_k, &sp->isends,
				&sp->irecvs};
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		free(tabs[i]->e);
	free(sp);
}

const bool *vt_prof_wsplit_share(const struct vt_prof_wsplit *sp)
{
	return sp->share;
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

uint32_t vt_prof_wsplit_record(struct vt_prof_wsplit *sp, const struct vtr_location *loc,
			       const struct vtr_record *r, uint32_t path, bool in_call,
			       uint64_t call, uint64_t top_enter, uint64_t order)
{
	const struct vtr_trace *t = sp->t;
	struct kv *e;
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
		uint32_t h = (uint32_t)sp->nmsgs;
		if (r->kind == VTR_EV_MpiIsend) {
			m->flags |= WP_NONBLOCKING;
			kv_find(&sp->isends, loc->index, r->request, true)->v = h;
			return 0;
		}
		return in_call ? h : 0;
	}
	case VTR_EV_MpiIsendComplete:
		e = kv_find(&sp->isends, loc->index, r->request, false);
		if (e) {
			sp->msgs[e->v - 1].complete = r->time;
			sp->msgs[e->v - 1].flags |= WP_COMPLETED;
			e->state = 2;
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

void vt_prof_wsplit_send_left(struct vt_prof_wsplit *sp, uint32_t handle, uint64_t time)
{
	sp->msgs[handle - 1].other = time;
	sp->msgs[handle - 1].flags |= WP_LEAVE_KNOWN;
}

/* ---- what travels ---- */

const struct vt_prof_wpath *vt_prof_wsplit_paths(const struct vt_prof_wsplit *sp, size_t *n)
{
	*n = sp->npaths;
	return sp->paths;
}

struct vt_prof_wmsg *vt_prof_wsplit_take_msgs(struct vt_prof_wsplit *sp, size_t *n)
{
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
	for (size_t i = 0; i < sp->nmsgs; i++)
		sp->msgs[i].path = m[sp->msgs[i].path];
	for (size_t i = 0; i < sp->ncolls; i++)
		sp->colls[i].path = m[sp->colls[i].path];
	free(e);
	free(gid);
	*map = m;
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
	return 0;
}

/* Sends before receives, each by key and k. */
static int cmp_msg(const void *pa, const void *pb)
{
	const struct vt_prof_wmsg *a = pa, *b = pb;
	if ((a->flags & WP_SEND) != (b->flags & WP_SEND))
		return a->flags & WP_SEND ? -1 : 1;
	int c = cmp_key(a, b);
	if (c)
		return c;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* A message as the owner pairs it; the Wrong Order state of the serial reading. */
struct pair {
	const struct vt_prof_wmsg *s, *r;
	uint64_t earliest;
	bool send_seen, recv_seen, in_flight;
};

struct ev {
	uint64_t time, order;
	uint32_t loc, pair;
	bool send;
};

static int cmp_ev(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Per receiving rank, the sends in flight by their begin: a min-heap whose entries no longer
 * in flight are dropped when they come on top. */
struct hent {
	uint64_t begin;
	uint32_t pair;
};
struct heap {
	struct hent *e;
	size_t n, cap;
};

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

static uint64_t heap_min(struct heap *h, const struct pair *p)
{
	while (h->n && !p[h->e[0].pair].in_flight) {
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

/* Every pair's Wrong Order state: the ends replayed in time order. */
static void replay(struct vt_prof_wsplit *sp, struct pair *p, size_t np)
{
	const struct vtr_trace *t = sp->t;
	struct ev *ev = vtr_xcalloc(2 * np + 1, sizeof(*ev));
	size_t n = 0;
	for (size_t i = 0; i < np; i++) {
		if (p[i].s)
			ev[n++] = (struct ev){p[i].s->time, p[i].s->order, p[i].s->loc, (uint32_t)i,
					      true};
		if (p[i].r)
			ev[n++] = (struct ev){p[i].r->time, p[i].r->order, p[i].r->loc, (uint32_t)i,
					      false};
	}
	qsort(ev, n, sizeof(*ev), cmp_ev);
	struct heap *heaps = vtr_xcalloc(sp->nranks + 1, sizeof(*heaps));
	for (size_t i = 0; i < n; i++) {
		struct pair *x = &p[ev[i].pair];
		if (ev[i].send) {
			x->send_seen = true;
			uint32_t to = world_rank(t, x->s->comm, x->s->receiver);
			if (x->recv_seen || to == VTR_NONE || to >= sp->nranks)
				continue;
			x->in_flight = true;
			heap_push(&heaps[to], (struct hent){x->s->call, ev[i].pair});
		} else {
			x->recv_seen = true;
			x->in_flight = false;
			uint32_t rank = t->locations[x->r->loc].rank;
			if (x->send_seen && rank != VTR_NONE && rank < sp->nranks)
				x->earliest = heap_min(&heaps[rank], p);
		}
	}
	for (size_t i = 0; i < sp->nranks; i++)
		free(heaps[i].e);
	free(heaps);
	free(ev);
}

static void message(const struct vtr_trace *t, struct waits *w, const struct pair *x)
{
	const struct vt_prof_wmsg *s = x->s, *r = x->r;
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
	vt_prof_waits_add(w, VT_WAIT_LATE_SENDER, r->path, r->loc, s->comm, ls, 1);
	vt_prof_waits_add(w, VT_WAIT_WRONG_ORDER, r->path, r->loc, s->comm,
			  vt_prof_wait_wrong_order(ls, s->call, x->earliest), 1);
	if (s->flags & WP_LEAVE_KNOWN)
		m.send_end = s->other;
	vt_prof_wait_message(&m, &ls, &lr);
	vt_prof_waits_add(w, VT_WAIT_LATE_RECEIVER, s->path, s->loc, s->comm, lr, 1);
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
static void collective(const struct vtr_trace *t, struct waits *w, const struct vt_prof_wcoll *c,
		       size_t n)
{
	uint32_t size = t->comms[c->comm].size, arrived = 0;
	struct vtr_coll_member *mem = vtr_xcalloc(size + 1, sizeof(*mem));
	uint32_t *paths = vtr_xcalloc(size + 1, sizeof(*paths));
	bool *seen = vtr_xcalloc(size + 1, sizeof(*seen));
	uint64_t *wait = vtr_xcalloc(size + 1, sizeof(*wait));
	for (size_t i = 0; i < n; i++) {
		uint32_t me = c[i].member;
		mem[me] =
		    (struct vtr_coll_member){&t->locations[c[i].loc], c[i].begin, c[i].end, 0, 0};
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

void vt_prof_wsplit_resolve(struct vt_prof_wsplit *sp, struct waits *w, struct vt_prof_wmsg *m,
			    size_t nm, struct vt_prof_wcoll *c, size_t nc)
{
	const struct vtr_trace *t = sp->t;
	/* The k-th send and the k-th receive of a key are one message. */
	qsort(m, nm, sizeof(*m), cmp_msg);
	size_t ns = 0;
	while (ns < nm && (m[ns].flags & WP_SEND))
		ns++;
	struct pair *p = vtr_xcalloc(nm + 1, sizeof(*p));
	size_t np = 0, i = 0, j = ns;
	while (i < ns || j < nm) {
		int d = i == ns ? 1 : j == nm ? -1 : cmp_key(&m[i], &m[j]);
		if (!d)
			d = (m[i].seq > m[j].seq) - (m[i].seq < m[j].seq);
		p[np] = (struct pair){.earliest = UINT64_MAX};
		if (d <= 0)
			p[np].s = &m[i++];
		if (d >= 0)
			p[np].r = &m[j++];
		np++;
	}
	replay(sp, p, np);
	for (size_t k = 0; k < np; k++)
		message(t, w, &p[k]);
	free(p);
	qsort(c, nc, sizeof(*c), cmp_coll);
	for (size_t a = 0, b; a < nc; a = b) {
		for (b = a + 1; b < nc && c[b].comm == c[a].comm && c[b].k == c[a].k; b++)
			;
		collective(t, w, &c[a], b - a);
	}
}
