/* SPDX-License-Identifier: BSD-3-Clause */
/* libvttrace's matching in merged order: sends to receives, the members of each collective. */
#include "vtr_reader.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- point-to-point matching (merged order) ---- */

enum wait { FREE, WAIT_RECV, WAIT_SEND, WAIT_COMPLETION };

struct pending {
	enum wait state;
	uint32_t comm, sender, receiver, tag; /* ranks in comm */
	uint64_t request;		      /* the Isend's, on the sender */
	bool completed;			      /* the Isend completed */
	uint32_t next;			      /* in its bucket, or in the free list: index + 1 */
	struct vtr_message m;
	void *slot; /* the tool's, for both ends (vtr_record.match) */
};

/* The buckets (heads and tails: index + 1) and the pool. */
struct p2p {
	struct pending *pool;
	size_t n, cap;
	uint32_t free;
	uint32_t *head, *tail;
	size_t nbuckets;
	/* requests: Irecv starts (IrecvRequest) and Isends awaiting completion, by location
	 * and request: an open-addressing table of pool indexes + 1 and start times. */
	struct req_slot {
		uint64_t loc, request, time;
		uint32_t pending; /* index + 1 of an Isend; 0: an Irecv start */
		bool used;
	} * reqs;
	size_t nreqs, capreqs;
};

struct coll;

struct vtr_match {
	struct p2p p2p;
	size_t open_messages;
	struct coll *colls;
	size_t open_colls;
	uint64_t **coll_count; /* per communicator and member: collectives it ended */
	size_t ncoll_count;
};

static struct vtr_match *match_of(struct reader *rd)
{
	if (!rd->match)
		rd->match = vtr_xcalloc(1, sizeof(*rd->match));
	return rd->match;
}

/*
 * A message on its way: a send waiting for its receive, a receive waiting for its send, or
 * both ends known and the Isend's completion still to come. Entries live in a pool; the
 * waiting ones are chained in insertion order in buckets of a hash of (state, communicator,
 * sender, receiver, tag), so that the oldest match is found in O(1) on average and MPI's
 * FIFO order between equal keys is kept.
 */
static size_t hash_key(enum wait state, uint32_t comm, uint32_t sender, uint32_t receiver,
		       uint32_t tag, size_t cap)
{
	uint64_t h = ((uint64_t)comm << 40) ^ ((uint64_t)sender << 20) ^ receiver ^
		     ((uint64_t)tag << 52) ^ ((uint64_t)state << 62);
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

static uint32_t new_entry(struct p2p *q)
{
	uint32_t i;
	if (q->free) {
		i = q->free - 1;
		q->free = q->pool[i].next;
	} else {
		if (q->n == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 256;
			q->pool = vtr_xrealloc(q->pool, q->cap, sizeof(*q->pool));
		}
		i = (uint32_t)q->n++;
	}
	memset(&q->pool[i], 0, sizeof(q->pool[i]));
	return i;
}

static void free_entry(struct p2p *q, uint32_t i)
{
	q->pool[i].state = FREE;
	q->pool[i].next = q->free;
	q->free = i + 1;
}

static void chain(struct p2p *q, uint32_t i)
{
	if (!q->nbuckets) {
		q->nbuckets = 4096;
		q->head = vtr_xcalloc(q->nbuckets, sizeof(*q->head));
		q->tail = vtr_xcalloc(q->nbuckets, sizeof(*q->tail));
	}
	struct pending *p = &q->pool[i];
	size_t b = hash_key(p->state, p->comm, p->sender, p->receiver, p->tag, q->nbuckets);
	p->next = 0;
	if (q->tail[b])
		q->pool[q->tail[b] - 1].next = i + 1;
	else
		q->head[b] = i + 1;
	q->tail[b] = i + 1;
}

/* Takes the oldest entry of state with the key out of its bucket; UINT32_MAX: none. */
static uint32_t take(struct p2p *q, enum wait state, uint32_t comm, uint32_t sender,
		     uint32_t receiver, uint32_t tag)
{
	if (!q->nbuckets)
		return UINT32_MAX;
	size_t b = hash_key(state, comm, sender, receiver, tag, q->nbuckets);
	uint32_t prev = 0;
	for (uint32_t e = q->head[b]; e; prev = e, e = q->pool[e - 1].next) {
		struct pending *p = &q->pool[e - 1];
		if (p->state != state || p->comm != comm || p->sender != sender ||
		    p->receiver != receiver || p->tag != tag)
			continue;
		if (prev)
			q->pool[prev - 1].next = p->next;
		else
			q->head[b] = p->next;
		if (q->tail[b] == e)
			q->tail[b] = prev;
		p->next = 0;
		return e - 1;
	}
	return UINT32_MAX;
}

static size_t req_slot(uint64_t loc, uint64_t request, size_t cap)
{
	uint64_t h = loc * 0x9e3779b97f4a7c15ull ^ request;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 27)) & (cap - 1);
}

static void req_put(struct p2p *q, uint64_t loc, uint64_t request, uint64_t time, uint32_t pending)
{
	if (2 * (q->nreqs + 1) > q->capreqs) {
		size_t cap = q->capreqs ? 2 * q->capreqs : 1024;
		struct req_slot *t = vtr_xcalloc(cap, sizeof(*t));
		for (size_t i = 0; i < q->capreqs; i++) {
			if (!q->reqs[i].used)
				continue;
			size_t j = req_slot(q->reqs[i].loc, q->reqs[i].request, cap);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = q->reqs[i];
		}
		free(q->reqs);
		q->reqs = t;
		q->capreqs = cap;
	}
	size_t j = req_slot(loc, request, q->capreqs);
	while (q->reqs[j].used && !(q->reqs[j].loc == loc && q->reqs[j].request == request))
		j = (j + 1) & (q->capreqs - 1);
	if (!q->reqs[j].used)
		q->nreqs++;
	q->reqs[j] = (struct req_slot){loc, request, time, pending, true};
}

/* Removes and returns the slot of (loc, request), or false. Deletion by backward shift. */
static bool req_take(struct p2p *q, uint64_t loc, uint64_t request, struct req_slot *out)
{
	if (!q->capreqs)
		return false;
	size_t i = req_slot(loc, request, q->capreqs);
	while (q->reqs[i].used && !(q->reqs[i].loc == loc && q->reqs[i].request == request))
		i = (i + 1) & (q->capreqs - 1);
	if (!q->reqs[i].used)
		return false;
	*out = q->reqs[i];
	size_t hole = i;
	for (size_t j = (i + 1) & (q->capreqs - 1); q->reqs[j].used;
	     j = (j + 1) & (q->capreqs - 1)) {
		size_t home = req_slot(q->reqs[j].loc, q->reqs[j].request, q->capreqs);
		bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			q->reqs[hole] = q->reqs[j];
			hole = j;
		}
	}
	q->reqs[hole].used = false;
	q->nreqs--;
	return true;
}

static uint32_t rank_in_comm(const struct vtr_trace *tr, const struct vtr_location *l,
			     uint32_t comm)
{
	if (comm >= tr->ncomms || !tr->comms[comm].rank_of_member || l->rank == VTR_NONE)
		return VTR_NONE;
	const struct vtr_comm *c = &tr->comms[comm];
	for (uint32_t m = 0; m < c->size; m++)
		if (c->rank_of_member[m] == l->rank)
			return m;
	return VTR_NONE;
}

static void opened(struct reader *rd)
{
	if (++rd->match->open_messages > rd->stats.max_open_messages)
		rd->stats.max_open_messages = rd->match->open_messages;
}

static void deliver(struct reader *rd, uint32_t i)
{
	rd->stats.messages++;
	struct pending *p = &rd->match->p2p.pool[i];
	p->m.match = p->slot;
	if (rd->cb->message)
		rd->cb->message(rd->user, &p->m);
	free_entry(&rd->match->p2p, i);
	rd->match->open_messages--;
}

/* Both ends known: delivered, or kept until the Isend completes. */
static void matched(struct reader *rd, uint32_t i)
{
	struct pending *p = &rd->match->p2p.pool[i];
	if (p->m.send_nonblocking && !p->completed) {
		p->state = WAIT_COMPLETION;
		req_put(&rd->match->p2p, p->m.sender->index, p->request, 0, i + 1);
		return;
	}
	deliver(rd, i);
}

/* The oldest entry of the key waiting for this end (*found), or a new one. */
static uint32_t take_or_open(struct reader *rd, enum wait state, uint32_t comm, uint32_t sender,
			     uint32_t receiver, uint32_t tag, bool *found)
{
	struct p2p *q = &rd->match->p2p;
	uint32_t i = take(q, state, comm, sender, receiver, tag);
	*found = i != UINT32_MAX;
	if (!*found) {
		i = new_entry(q);
		opened(rd);
	}
	return i;
}

/* This end handed over with its match. True: its other end was there, the message is
 * complete (delivered, or kept until its Isend completes). */
static bool hand_over(struct reader *rd, struct loc_state *s, struct vtr_record *r, uint32_t i,
		      bool found)
{
	r->match = &rd->match->p2p.pool[i].slot;
	vtr_emit(rd, s, r);
	if (found)
		matched(rd, i);
	return found;
}

void vtr_match_send(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	/* A send a snapshot's window cut from its receive: no Isend's completion will find it
	 * either. */
	if (!rd->matching || r->cut) {
		vtr_emit(rd, s, r);
		return;
	}
	uint64_t time = r->time, bytes = r->bytes, request = r->request;
	uint32_t receiver = r->peer, comm = r->comm, tag = r->tag;
	bool nonblocking = r->kind == VTR_EV_MpiIsend;
	struct p2p *q = &match_of(rd)->p2p;
	uint32_t sender = rank_in_comm(rd->tr, s->loc, comm);
	bool found;
	uint32_t i = take_or_open(rd, WAIT_SEND, comm, sender, receiver, tag, &found);
	struct pending *p = &q->pool[i];
	p->comm = comm;
	p->sender = sender;
	p->receiver = receiver;
	p->tag = tag;
	p->request = request;
	p->m.sender = s->loc;
	p->m.comm = comm;
	p->m.tag = tag;
	p->m.bytes = bytes;
	/* The send's call: the region it happens in (MPI_Send, MPI_Isend), else the event. */
	p->m.send_begin = s->depth ? s->stack[s->depth - 1].enter : time;
	p->m.send_end = time;
	p->m.send_nonblocking = nonblocking;
	if (hand_over(rd, s, r, i, found))
		return;
	p->state = WAIT_RECV;
	chain(q, i);
	/* The Isend may complete before its receive: found by its request then. */
	if (nonblocking)
		req_put(q, s->loc->index, request, 0, i + 1);
}

void vtr_match_isend_complete(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	vtr_emit(rd, s, r);
	struct req_slot slot;
	if (!rd->matching || !req_take(&match_of(rd)->p2p, s->loc->index, r->request, &slot) ||
	    !slot.pending)
		return;
	struct pending *p = &rd->match->p2p.pool[slot.pending - 1];
	p->m.send_end = r->time;
	p->completed = true;
	if (p->state == WAIT_COMPLETION)
		deliver(rd, slot.pending - 1);
}

void vtr_match_irecv_request(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	vtr_emit(rd, s, r);
	if (rd->matching)
		req_put(&match_of(rd)->p2p, s->loc->index | (1ull << 63), r->request, r->time, 0);
}

void vtr_match_recv(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	struct req_slot start;
	if (rd->matching && r->cut && r->kind == VTR_EV_MpiIrecv) /* its request's start */
		req_take(&match_of(rd)->p2p, s->loc->index | (1ull << 63), r->request, &start);
	if (!rd->matching || r->cut) {
		vtr_emit(rd, s, r);
		return;
	}
	uint64_t time = r->time, bytes = r->bytes, request = r->request;
	uint32_t sender = r->peer, comm = r->comm, tag = r->tag;
	bool nonblocking = r->kind == VTR_EV_MpiIrecv;
	struct p2p *q = &match_of(rd)->p2p;
	/* The receive's call (MPI_Recv), or for an Irecv the request's start. */
	uint64_t begin = s->depth ? s->stack[s->depth - 1].enter : time;
	if (nonblocking && req_take(q, s->loc->index | (1ull << 63), request, &start))
		begin = start.time;
	uint32_t receiver = rank_in_comm(rd->tr, s->loc, comm);
	bool found;
	uint32_t i = take_or_open(rd, WAIT_RECV, comm, sender, receiver, tag, &found);
	struct pending *p = &q->pool[i];
	p->m.receiver = s->loc;
	p->m.recv_begin = begin;
	p->m.recv_end = time;
	p->m.recv_nonblocking = nonblocking;
	if (hand_over(rd, s, r, i, found))
		return;
	p->comm = comm;
	p->sender = sender;
	p->receiver = receiver;
	p->tag = tag;
	p->m.comm = comm;
	p->m.tag = tag;
	p->m.bytes = bytes;
	p->state = WAIT_SEND;
	chain(q, i);
}

/* ---- collectives (merged order) ---- */

/* The k-th collective on a communicator: its members as they end it. */
struct coll {
	uint32_t comm, op, root, arrived;
	uint64_t seq; /* k */
	struct vtr_coll_member *members;
	bool *seen;
	struct coll *next;
	void *slot; /* the tool's, for every member (vtr_record.match) */
};

void vtr_match_coll_end(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	uint64_t time = r->time, sent = r->sent, received = r->received;
	uint32_t op = r->op, comm = r->comm, root = r->root;
	uint64_t begin = s->ncoll ? s->coll_begin[--s->ncoll] : time;
	r->begin = begin;
	const struct vtr_trace *tr = rd->tr;
	/* A collective others ended outside a snapshot's window: not counted among its comm's. */
	uint32_t me = rd->matching && !r->cut ? rank_in_comm(tr, s->loc, comm) : VTR_NONE;
	if (me == VTR_NONE || comm >= tr->ncomms) {
		vtr_emit(rd, s, r);
		return;
	}
	struct vtr_match *mt = match_of(rd);
	uint32_t size = tr->comms[comm].size;
	if (comm >= mt->ncoll_count) {
		size_t n = mt->ncoll_count;
		mt->ncoll_count = comm + 1;
		mt->coll_count = vtr_xrealloc(mt->coll_count, mt->ncoll_count, sizeof(uint64_t *));
		memset(mt->coll_count + n, 0, (mt->ncoll_count - n) * sizeof(uint64_t *));
	}
	if (!mt->coll_count[comm])
		mt->coll_count[comm] = vtr_xcalloc(size ? size : 1, sizeof(uint64_t));
	uint64_t k = mt->coll_count[comm][me]++;
	struct coll **pp = &mt->colls;
	while (*pp && !((*pp)->comm == comm && (*pp)->seq == k))
		pp = &(*pp)->next;
	struct coll *c = *pp;
	if (!c) {
		c = vtr_xcalloc(1, sizeof(*c));
		*c = (struct coll){.comm = comm,
				   .op = op,
				   .root = root,
				   .seq = k,
				   .members = vtr_xcalloc(size ? size : 1, sizeof(*c->members)),
				   .seen = vtr_xcalloc(size ? size : 1, sizeof(bool)),
				   .next = mt->colls};
		mt->colls = c;
		pp = &mt->colls;
		if (++mt->open_colls > rd->stats.max_open_collectives)
			rd->stats.max_open_collectives = mt->open_colls;
	}
	c->members[me] = (struct vtr_coll_member){s->loc, begin, time, sent, received};
	if (!c->seen[me]) {
		c->seen[me] = true;
		c->arrived++;
	}
	r->member = me;
	r->match = &c->slot;
	vtr_emit(rd, s, r);
	if (c->arrived < size)
		return;
	rd->stats.collectives++;
	if (rd->cb->collective) {
		struct vtr_collective out = {comm, c->op, c->root, size, c->members, c->slot};
		rd->cb->collective(rd->user, &out);
	}
	*pp = c->next;
	mt->open_colls--;
	free(c->members);
	free(c->seen);
	free(c);
}

void vtr_match_unmatched(struct reader *rd)
{
	struct vtr_match *mt = rd->match;
	for (size_t i = 0; mt && i < mt->p2p.n; i++) {
		struct pending *p = &mt->p2p.pool[i];
		if (p->state == FREE)
			continue;
		bool send = p->state != WAIT_SEND;
		const struct vtr_location *l = send ? p->m.sender : p->m.receiver;
		struct loc_state *s = l ? &rd->states[l->index] : NULL;
		uint64_t t = send ? p->m.send_end : p->m.recv_end;
		if (p->state == WAIT_COMPLETION)
			vtr_problem(rd, s, VTR_UNMATCHED_MESSAGE, true, t, VTR_NONE,
				    "send on communicator %u (tag %u, %" PRIu64
				    " bytes) at %" PRIu64
				    " was received, but its Isend never completed",
				    p->comm, p->tag, p->m.bytes, t);
		else
			vtr_problem(rd, s, VTR_UNMATCHED_MESSAGE, true, t, VTR_NONE,
				    "%s on communicator %u (tag %u, %" PRIu64 " bytes) at %" PRIu64
				    " has no matching %s",
				    send ? "send" : "receive", p->comm, p->tag, p->m.bytes, t,
				    send ? "receive" : "send");
	}
	while (mt && mt->colls) {
		struct coll *c = mt->colls;
		vtr_problem(rd, NULL, VTR_UNMATCHED_COLLECTIVE, false, 0, VTR_NONE,
			    "collective %" PRIu64
			    " on communicator %u ended by %u of its %u members",
			    c->seq + 1, c->comm, c->arrived,
			    c->comm < rd->tr->ncomms ? rd->tr->comms[c->comm].size : 0);
		mt->colls = c->next;
		free(c->members);
		free(c->seen);
		free(c);
	}
}

void vtr_match_free(struct reader *rd)
{
	struct vtr_match *mt = rd->match;
	if (!mt)
		return;
	free(mt->p2p.pool);
	free(mt->p2p.head);
	free(mt->p2p.tail);
	free(mt->p2p.reqs);
	for (size_t i = 0; i < mt->ncoll_count; i++)
		free(mt->coll_count[i]);
	free(mt->coll_count);
	while (mt->colls) { /* a reading that stopped early */
		struct coll *c = mt->colls;
		mt->colls = c->next;
		free(c->members);
		free(c->seen);
		free(c);
	}
	free(mt);
	rd->match = NULL;
}
