/* SPDX-License-Identifier: BSD-3-Clause */
/* libvttrace: events location by location or merged in time, stacks checked, MPI matched. */
#include "vtr_priv.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* How many open regions an open-at-end message names. */
#define OPEN_NAMES_SHOWN 8

/* ---- small things the trace owns ---- */

struct interned {
	char **s;
	size_t n;
};

const char *vtr_intern(struct vtr_trace *tr, const char *s)
{
	struct interned *in = tr->group_defs;
	if (!in)
		in = tr->group_defs = vtr_xcalloc(1, sizeof(*in));
	in->s = vtr_xrealloc(in->s, in->n + 1, sizeof(*in->s));
	return in->s[in->n++] = vtr_xstrdup(s);
}

void vtr_free_interned(struct vtr_trace *tr)
{
	struct interned *in = tr->group_defs;
	for (size_t i = 0; in && i < in->n; i++)
		free(in->s[i]);
	if (in)
		free(in->s);
	free(in);
	tr->group_defs = NULL;
}

/* Location ids are sparse (rank in the low, thread in the high bits): an open-addressing
 * table of indexes + 1. */
static size_t slot(uint64_t id, size_t cap)
{
	id ^= id >> 29;
	id *= 0x9e3779b97f4a7c15ull;
	return (size_t)(id >> 17) & (cap - 1);
}

void vtr_index_locations(struct vtr_trace *tr)
{
	size_t cap = 16;
	while (cap < 2 * tr->nlocations)
		cap *= 2;
	size_t *t = vtr_xcalloc(cap, sizeof(*t));
	for (size_t i = 0; i < tr->nlocations; i++) {
		size_t s = slot(tr->locations[i].id, cap);
		while (t[s])
			s = (s + 1) & (cap - 1);
		t[s] = i + 1;
	}
	free(tr->loc_by_id);
	tr->loc_by_id = t;
	tr->nloc_by_id = cap;
}

const struct vtr_location *vtr_location(const struct vtr_trace *tr, uint64_t id)
{
	const size_t *t = tr->loc_by_id;
	if (!t)
		return NULL;
	for (size_t s = slot(id, tr->nloc_by_id); t[s]; s = (s + 1) & (tr->nloc_by_id - 1))
		if (tr->locations[t[s] - 1].id == id)
			return &tr->locations[t[s] - 1];
	return NULL;
}

static struct vtr_stats stats;

const struct vtr_stats *vtr_last_stats(void)
{
	return &stats;
}

/* ---- per-location state: the call stack ---- */

struct frame {
	uint32_t region;
	uint64_t enter;
};

struct loc_state {
	const struct vtr_location *loc;
	uint64_t prev, events, last;
	bool any;
	struct frame *stack;
	size_t depth, cap;
	uint64_t *coll_begin; /* CollectiveBegin times not yet ended */
	size_t ncoll, capcoll;
};

enum wait { FREE, WAIT_RECV, WAIT_SEND, WAIT_COMPLETION };

struct pending {
	enum wait state;
	uint32_t comm, sender, receiver, tag; /* ranks in comm */
	uint64_t request;		      /* the Isend's, on the sender */
	bool completed;			      /* the Isend completed */
	uint32_t next;			      /* in its bucket, or in the free list: index + 1 */
	struct vtr_message m;
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

struct reader;
static void match_send(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t receiver,
		       uint32_t comm, uint32_t tag, uint64_t bytes, bool nonblocking,
		       uint64_t request);
static void match_recv(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t sender,
		       uint32_t comm, uint32_t tag, uint64_t bytes, bool nonblocking,
		       uint64_t request);
static void isend_complete(struct reader *rd, struct loc_state *s, uint64_t time, uint64_t req);
static void irecv_request(struct reader *rd, struct loc_state *s, uint64_t time, uint64_t req);
static void coll_end(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t op,
		     uint32_t comm, uint32_t root, uint64_t sent, uint64_t received);

struct reader {
	struct vtr_trace *tr;
	const struct vtr_callbacks *cb;
	void *user;
	bool merged;		  /* match messages and collectives */
	struct loc_state *states; /* merged: one per location; else the current one */
	struct loc_state one;
	/* merged: the state of the last location looked up (runs of one location's events are
	 * the common case), NULL for none yet */
	struct loc_state *last_state;
	uint64_t last_id;
	/* merged: what waits for its other end */
	struct p2p p2p;
	size_t open_messages;
	struct coll *colls;
	size_t open_colls;
	uint64_t **coll_count; /* per communicator and member: collectives it ended */
	size_t ncoll_count;
	int failed;
};

__attribute__((format(printf, 7, 8))) static void problem(struct reader *rd, struct loc_state *s,
							  enum vtr_problem kind, bool has_time,
							  uint64_t time, uint32_t region,
							  const char *fmt, ...)
{
	if (!rd->cb->problem)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rd->cb->problem(rd->user, s ? s->loc : NULL, kind, has_time, time, region, buf);
}

static const char *region_name(const struct reader *rd, uint32_t region)
{
	return rd->tr->regions[region].name;
}

static struct loc_state *state_of(struct reader *rd, OTF2_LocationRef location)
{
	if (!rd->merged)
		return &rd->one;
	if (rd->last_state && rd->last_id == location)
		return rd->last_state;
	const struct vtr_location *l = vtr_location(rd->tr, location);
	if (!l)
		return NULL;
	rd->last_id = location;
	rd->last_state = &rd->states[l->index];
	return rd->last_state;
}

static void count(struct reader *rd, struct loc_state *s, enum vtr_event kind, uint64_t time)
{
	s->events++;
	stats.events++;
	if (s->any && time < s->prev)
		problem(rd, s, VTR_TIME_DECREASE, true, time, VTR_NONE,
			"timestamp %" PRIu64 " of %s (event %" PRIu64
			" of the location) is smaller than the previous event's %" PRIu64,
			time, vtr_event_names[kind], s->events, s->prev);
	if (!s->any || time > s->last)
		s->last = time;
	s->any = true;
	s->prev = time;
	if (rd->cb->event)
		rd->cb->event(rd->user, s->loc, kind, time);
}

static bool region_defined(struct reader *rd, struct loc_state *s, const char *what, uint64_t time,
			   uint32_t region)
{
	if (region < rd->tr->nregions && rd->tr->regions[region].defined)
		return true;
	problem(rd, s, VTR_UNDEFINED_REGION, true, time, VTR_NONE,
		"%s of undefined region id %" PRIu32 " at %" PRIu64 "; ignored", what, region,
		time);
	return false;
}

static void pop(struct reader *rd, struct loc_state *s, uint64_t time)
{
	struct frame f = s->stack[--s->depth];
	if (rd->cb->leave)
		rd->cb->leave(rd->user, s->loc, time, f.region, f.enter);
}

static void enter(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region)
{
	count(rd, s, VTR_EV_Enter, time);
	if (!region_defined(rd, s, "Enter", time, region))
		return;
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->stack = vtr_xrealloc(s->stack, s->cap, sizeof(*s->stack));
	}
	s->stack[s->depth++] = (struct frame){region, time};
	if (s->depth > stats.max_depth)
		stats.max_depth = s->depth;
	if (rd->cb->enter)
		rd->cb->enter(rd->user, s->loc, time, region);
}

static void leave(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region)
{
	count(rd, s, VTR_EV_Leave, time);
	if (!region_defined(rd, s, "Leave", time, region))
		return;
	if (s->depth == 0) {
		problem(rd, s, VTR_LEAVE_UNMATCHED, true, time, region,
			"Leave of '%s' at %" PRIu64 " while no region is open; ignored",
			region_name(rd, region), time);
		return;
	}
	uint32_t top = s->stack[s->depth - 1].region;
	if (top == region) {
		pop(rd, s, time);
		return;
	}
	size_t inner = 0;
	while (inner < s->depth && s->stack[s->depth - 1 - inner].region != region)
		inner++;
	if (inner == s->depth) {
		problem(rd, s, VTR_LEAVE_MISMATCH, true, time, region,
			"Leave of '%s' at %" PRIu64 " does not match the innermost open region "
			"'%s', and '%s' is not open; ignored",
			region_name(rd, region), time, region_name(rd, top),
			region_name(rd, region));
		return;
	}
	/* The region is open further out: its inner activations missed their Leave. */
	problem(rd, s, VTR_LEAVE_MISMATCH, true, time, region,
		"Leave of '%s' at %" PRIu64 " does not match the innermost open region '%s'; "
		"%zu region(s) inside it closed at this time",
		region_name(rd, region), time, region_name(rd, top), inner);
	for (size_t i = 0; i <= inner; i++)
		pop(rd, s, time);
}

static void location_end(struct reader *rd, struct loc_state *s)
{
	if (s->depth) {
		char names[512];
		size_t used = 0, shown = s->depth < OPEN_NAMES_SHOWN ? s->depth : OPEN_NAMES_SHOWN;
		names[0] = '\0';
		for (size_t i = 0; i < shown && used < sizeof(names); i++) {
			int n = snprintf(names + used, sizeof(names) - used, "%s'%s'",
					 i ? " > " : "", region_name(rd, s->stack[i].region));
			used += n > 0 ? (size_t)n : 0;
		}
		problem(rd, s, VTR_OPEN_AT_END, true, s->last, s->stack[s->depth - 1].region,
			"%zu region(s) still open after the last event (outermost first: %s%s); "
			"closed at %" PRIu64,
			s->depth, names, s->depth > shown ? " > ..." : "", s->last);
		while (s->depth)
			pop(rd, s, s->last);
	}
	if (rd->cb->location_end)
		rd->cb->location_end(rd->user, s->loc, s->last);
}

/* ---- the callbacks of both readers ---- */

/* The local reader's callbacks carry the event's position; the global reader's do not. Each
 * kind is handled once (h_*), with a wrapper per reader. */
#define STATE()                                                                                    \
	struct reader *rd = user;                                                                  \
	struct loc_state *s = state_of(rd, location);                                              \
	if (!s)                                                                                    \
	return OTF2_CALLBACK_SUCCESS

#define HANDLERS(P)                                                                                \
	static OTF2_CallbackCode P##Enter(P##ARGS, OTF2_RegionRef region)                          \
	{                                                                                          \
		STATE();                                                                           \
		enter(rd, s, time, region);                                                        \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##Leave(P##ARGS, OTF2_RegionRef region)                          \
	{                                                                                          \
		STATE();                                                                           \
		leave(rd, s, time, region);                                                        \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##BufferFlush(P##ARGS, OTF2_TimeStamp stop)                      \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_BufferFlush, time);                                            \
		if (rd->cb->flush)                                                                 \
			rd->cb->flush(rd->user, s->loc, time, stop);                               \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##Metric(P##ARGS, OTF2_MetricRef m, uint8_t n,                   \
					   const OTF2_Type *types, const OTF2_MetricValue *values) \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_Metric, time);                                                 \
		if (rd->cb->metric)                                                                \
			rd->cb->metric(rd->user, s->loc, time, m, n, types, values);               \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiSend(P##ARGS, uint32_t receiver, OTF2_CommRef comm,         \
					    uint32_t tag, uint64_t bytes)                          \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiSend, time);                                                \
		match_send(rd, s, time, receiver, comm, tag, bytes, false, 0);                     \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIsend(P##ARGS, uint32_t receiver, OTF2_CommRef comm,        \
					     uint32_t tag, uint64_t bytes, uint64_t req)           \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiIsend, time);                                               \
		match_send(rd, s, time, receiver, comm, tag, bytes, true, req);                    \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIsendComplete(P##ARGS, uint64_t req)                        \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiIsendComplete, time);                                       \
		isend_complete(rd, s, time, req);                                                  \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIrecvRequest(P##ARGS, uint64_t req)                         \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiIrecvRequest, time);                                        \
		irecv_request(rd, s, time, req);                                                   \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiRecv(P##ARGS, uint32_t sender, OTF2_CommRef comm,           \
					    uint32_t tag, uint64_t bytes)                          \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiRecv, time);                                                \
		match_recv(rd, s, time, sender, comm, tag, bytes, false, 0);                       \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIrecv(P##ARGS, uint32_t sender, OTF2_CommRef comm,          \
					     uint32_t tag, uint64_t bytes, uint64_t req)           \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiIrecv, time);                                               \
		match_recv(rd, s, time, sender, comm, tag, bytes, true, req);                      \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiCollectiveBegin(P##ARGS)                                    \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiCollectiveBegin, time);                                     \
		if (s->ncoll == s->capcoll) {                                                      \
			s->capcoll = s->capcoll ? 2 * s->capcoll : 4;                              \
			s->coll_begin =                                                            \
			    vtr_xrealloc(s->coll_begin, s->capcoll, sizeof(*s->coll_begin));       \
		}                                                                                  \
		s->coll_begin[s->ncoll++] = time;                                                  \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##CallingContextSample(P##ARGS, OTF2_CallingContextRef ctx,      \
							 uint32_t distance,                        \
							 OTF2_InterruptGeneratorRef gen)           \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_CallingContextSample, time);                                   \
		if (rd->cb->sample)                                                                \
			rd->cb->sample(rd->user, s->loc, time,                                     \
				       ctx < rd->tr->ncallctxs ? ctx : VTR_NONE);                  \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiCollectiveEnd(P##ARGS, OTF2_CollectiveOp op,                \
						     OTF2_CommRef comm, uint32_t root,             \
						     uint64_t sent, uint64_t received)             \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_MpiCollectiveEnd, time);                                       \
		coll_end(rd, s, time, op, comm, root, sent, received);                             \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}

/* The kinds with handlers above: registered after the generic ones, which they replace. */
// clang-format off
#define SPECIAL_KINDS(X) \
	X(Enter) X(Leave) X(BufferFlush) X(Metric) \
	X(MpiSend) X(MpiIsend) X(MpiIsendComplete) X(MpiIrecvRequest) X(MpiRecv) X(MpiIrecv) \
	X(MpiCollectiveBegin) X(MpiCollectiveEnd) X(CallingContextSample)
// clang-format on

#define local_ARGS                                                                                 \
	OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user,             \
	    OTF2_AttributeList *attributes
#define global_ARGS                                                                                \
	OTF2_LocationRef location, OTF2_TimeStamp time, void *user, OTF2_AttributeList *attributes

HANDLERS(local_)
HANDLERS(global_)

/* Every kind: counted, handed to the tool as a generic event. */
#define GENERIC(name, params)                                                                      \
	static OTF2_CallbackCode generic_##name params                                             \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_##name, time);                                                 \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}
VTR_OTHER_EVENT_KINDS(GENERIC)
#undef GENERIC
/* The same for the global reader, whose callbacks have no event position. */
#undef VTR_EVT_ARGS
#define VTR_EVT_ARGS global_ARGS
#define GENERIC(name, params)                                                                      \
	static OTF2_CallbackCode gglobal_##name params                                             \
	{                                                                                          \
		STATE();                                                                           \
		count(rd, s, VTR_EV_##name, time);                                                 \
		return OTF2_CALLBACK_SUCCESS;                                                      \
	}
VTR_OTHER_EVENT_KINDS(GENERIC)
#undef GENERIC

static OTF2_EvtReaderCallbacks *local_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
#define REG(name, params) OTF2_EvtReaderCallbacks_Set##name##Callback(cb, generic_##name);
	VTR_OTHER_EVENT_KINDS(REG)
#undef REG
#define REG(name) OTF2_EvtReaderCallbacks_Set##name##Callback(cb, local_##name);
	SPECIAL_KINDS(REG)
#undef REG
	return cb;
}

static OTF2_GlobalEvtReaderCallbacks *global_callbacks(void)
{
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
#define REG(name, params) OTF2_GlobalEvtReaderCallbacks_Set##name##Callback(cb, gglobal_##name);
	VTR_OTHER_EVENT_KINDS(REG)
#undef REG
#define REG(name) OTF2_GlobalEvtReaderCallbacks_Set##name##Callback(cb, global_##name);
	SPECIAL_KINDS(REG)
#undef REG
	return cb;
}

/* ---- point-to-point matching (merged order) ---- */

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
	if (++rd->open_messages > stats.max_open_messages)
		stats.max_open_messages = rd->open_messages;
}

static void deliver(struct reader *rd, uint32_t i)
{
	stats.messages++;
	if (rd->cb->message)
		rd->cb->message(rd->user, &rd->p2p.pool[i].m);
	free_entry(&rd->p2p, i);
	rd->open_messages--;
}

/* Both ends known: delivered, or kept until the Isend completes. */
static void matched(struct reader *rd, uint32_t i)
{
	struct pending *p = &rd->p2p.pool[i];
	if (p->m.send_nonblocking && !p->completed) {
		p->state = WAIT_COMPLETION;
		req_put(&rd->p2p, p->m.sender->index, p->request, 0, i + 1);
		return;
	}
	deliver(rd, i);
}

static void match_send(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t receiver,
		       uint32_t comm, uint32_t tag, uint64_t bytes, bool nonblocking,
		       uint64_t request)
{
	if (!rd->merged)
		return;
	struct p2p *q = &rd->p2p;
	uint32_t sender = rank_in_comm(rd->tr, s->loc, comm);
	uint32_t i = take(q, WAIT_SEND, comm, sender, receiver, tag);
	bool found = i != UINT32_MAX;
	if (!found) {
		i = new_entry(q);
		opened(rd);
	}
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
	if (found) {
		matched(rd, i);
		return;
	}
	p->state = WAIT_RECV;
	chain(q, i);
	/* The Isend may complete before its receive: found by its request then. */
	if (nonblocking)
		req_put(q, s->loc->index, request, 0, i + 1);
}

static void isend_complete(struct reader *rd, struct loc_state *s, uint64_t time, uint64_t req)
{
	struct req_slot slot;
	if (!rd->merged || !req_take(&rd->p2p, s->loc->index, req, &slot) || !slot.pending)
		return;
	struct pending *p = &rd->p2p.pool[slot.pending - 1];
	p->m.send_end = time;
	p->completed = true;
	if (p->state == WAIT_COMPLETION)
		deliver(rd, slot.pending - 1);
}

static void irecv_request(struct reader *rd, struct loc_state *s, uint64_t time, uint64_t req)
{
	if (rd->merged)
		req_put(&rd->p2p, s->loc->index | (1ull << 63), req, time, 0);
}

static void match_recv(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t sender,
		       uint32_t comm, uint32_t tag, uint64_t bytes, bool nonblocking,
		       uint64_t request)
{
	if (!rd->merged)
		return;
	struct p2p *q = &rd->p2p;
	/* The receive's call (MPI_Recv), or for an Irecv the request's start. */
	uint64_t begin = s->depth ? s->stack[s->depth - 1].enter : time;
	struct req_slot start;
	if (nonblocking && req_take(q, s->loc->index | (1ull << 63), request, &start))
		begin = start.time;
	uint32_t receiver = rank_in_comm(rd->tr, s->loc, comm);
	uint32_t i = take(q, WAIT_RECV, comm, sender, receiver, tag);
	bool found = i != UINT32_MAX;
	if (!found) {
		i = new_entry(q);
		opened(rd);
	}
	struct pending *p = &q->pool[i];
	p->m.receiver = s->loc;
	p->m.recv_begin = begin;
	p->m.recv_end = time;
	p->m.recv_nonblocking = nonblocking;
	if (found) {
		matched(rd, i);
		return;
	}
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
};

static void coll_end(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t op,
		     uint32_t comm, uint32_t root, uint64_t sent, uint64_t received)
{
	uint64_t begin = s->ncoll ? s->coll_begin[--s->ncoll] : time;
	if (!rd->merged)
		return;
	const struct vtr_trace *tr = rd->tr;
	uint32_t me = rank_in_comm(tr, s->loc, comm);
	if (me == VTR_NONE || comm >= tr->ncomms)
		return;
	uint32_t size = tr->comms[comm].size;
	if (comm >= rd->ncoll_count) {
		size_t n = rd->ncoll_count;
		rd->ncoll_count = comm + 1;
		rd->coll_count = vtr_xrealloc(rd->coll_count, rd->ncoll_count, sizeof(uint64_t *));
		memset(rd->coll_count + n, 0, (rd->ncoll_count - n) * sizeof(uint64_t *));
	}
	if (!rd->coll_count[comm])
		rd->coll_count[comm] = vtr_xcalloc(size ? size : 1, sizeof(uint64_t));
	uint64_t k = rd->coll_count[comm][me]++;
	struct coll **pp = &rd->colls;
	while (*pp && !((*pp)->comm == comm && (*pp)->seq == k))
		pp = &(*pp)->next;
	struct coll *c = *pp;
	if (!c) {
		c = vtr_xcalloc(1, sizeof(*c));
		*c = (struct coll){comm,
				   op,
				   root,
				   0,
				   k,
				   vtr_xcalloc(size ? size : 1, sizeof(*c->members)),
				   vtr_xcalloc(size ? size : 1, sizeof(bool)),
				   rd->colls};
		rd->colls = c;
		pp = &rd->colls;
		if (++rd->open_colls > stats.max_open_collectives)
			stats.max_open_collectives = rd->open_colls;
	}
	c->members[me] = (struct vtr_coll_member){s->loc, begin, time, sent, received};
	if (!c->seen[me]) {
		c->seen[me] = true;
		c->arrived++;
	}
	if (c->arrived < size)
		return;
	stats.collectives++;
	if (rd->cb->collective) {
		struct vtr_collective out = {comm, c->op, c->root, size, c->members};
		rd->cb->collective(rd->user, &out);
	}
	*pp = c->next;
	rd->open_colls--;
	free(c->members);
	free(c->seen);
	free(c);
}

static void unmatched(struct reader *rd)
{
	for (size_t i = 0; i < rd->p2p.n; i++) {
		struct pending *p = &rd->p2p.pool[i];
		if (p->state == FREE)
			continue;
		bool send = p->state != WAIT_SEND;
		const struct vtr_location *l = send ? p->m.sender : p->m.receiver;
		struct loc_state *s = l ? &rd->states[l->index] : NULL;
		uint64_t t = send ? p->m.send_end : p->m.recv_end;
		if (p->state == WAIT_COMPLETION)
			problem(rd, s, VTR_UNMATCHED_MESSAGE, true, t, VTR_NONE,
				"send on communicator %u (tag %u, %" PRIu64 " bytes) at %" PRIu64
				" was received, but its Isend never completed",
				p->comm, p->tag, p->m.bytes, t);
		else
			problem(rd, s, VTR_UNMATCHED_MESSAGE, true, t, VTR_NONE,
				"%s on communicator %u (tag %u, %" PRIu64 " bytes) at %" PRIu64
				" has no matching %s",
				send ? "send" : "receive", p->comm, p->tag, p->m.bytes, t,
				send ? "receive" : "send");
	}
	while (rd->colls) {
		struct coll *c = rd->colls;
		problem(rd, NULL, VTR_UNMATCHED_COLLECTIVE, false, 0, VTR_NONE,
			"collective %" PRIu64 " on communicator %u ended by %u of its %u members",
			c->seq + 1, c->comm, c->arrived,
			c->comm < rd->tr->ncomms ? rd->tr->comms[c->comm].size : 0);
		rd->colls = c->next;
		free(c->members);
		free(c->seen);
		free(c);
	}
}

/* ---- the two ways of reading ---- */

static int select_all(struct vtr_trace *tr, bool *local_defs)
{
	for (size_t i = 0; i < tr->nlocations; i++) {
		OTF2_ErrorCode rc = OTF2_Reader_SelectLocation(tr->reader, tr->locations[i].id);
		if (rc != OTF2_SUCCESS) {
			snprintf(tr->err, sizeof(tr->err), "cannot select location %" PRIu64 ": %s",
				 tr->locations[i].id, vtr_reason(rc));
			return -1;
		}
	}
	*local_defs = OTF2_Reader_OpenDefFiles(tr->reader) == OTF2_SUCCESS;
	OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles(tr->reader);
	if (rc != OTF2_SUCCESS) {
		snprintf(tr->err, sizeof(tr->err), "cannot open the event files: %s",
			 vtr_reason(rc));
		return -1;
	}
	return 0;
}

/*
 * Local definitions are optional in OTF2; what matters in them is the mapping tables and
 * clock offsets, which libotf2 applies to the events once read. libotf2 3.0 leaks a chunk
 * (4 MiB) on every OTF2_Reader_GetDefReader that finds no file, and writers write local
 * definitions for every location or for none: the first miss ends the attempts.
 */
bool vtr_read_local_defs(OTF2_Reader *reader, uint64_t location)
{
	OTF2_DefReader *defs = OTF2_Reader_GetDefReader(reader, location);
	if (!defs)
		return false;
	uint64_t n = 0;
	OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &n);
	OTF2_Reader_CloseDefReader(reader, defs);
	return true;
}

static void close_files(struct vtr_trace *tr, bool local_defs)
{
	OTF2_Reader_CloseEvtFiles(tr->reader);
	if (local_defs)
		OTF2_Reader_CloseDefFiles(tr->reader);
}

int vtr_read_locations(struct vtr_trace *tr, const struct vtr_callbacks *cb, void *user)
{
	stats = (struct vtr_stats){0};
	if (!tr->nlocations)
		return 0;
	bool local_defs, opened;
	if (select_all(tr, &local_defs) < 0)
		return -1;
	opened = local_defs;
	struct reader rd = {.tr = tr, .cb = cb, .user = user};
	OTF2_EvtReaderCallbacks *ecb = local_callbacks();
	int result = 0;
	/* One location at a time, each reader closed after use: open files stay few. */
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		const struct vtr_location *loc = &tr->locations[i];
		rd.one = (struct loc_state){.loc = loc,
					    .stack = rd.one.stack,
					    .cap = rd.one.cap,
					    .coll_begin = rd.one.coll_begin,
					    .capcoll = rd.one.capcoll};
		vtr_reset_reason();
		if (local_defs)
			local_defs = vtr_read_local_defs(tr->reader, loc->id);
		OTF2_EvtReader *evt = OTF2_Reader_GetEvtReader(tr->reader, loc->id);
		if (!evt) {
			snprintf(tr->err, sizeof(tr->err),
				 "cannot open the events of location %" PRIu64 ": %s", loc->id,
				 vtr_reason(OTF2_ERROR_INVALID));
			result = -1;
			break;
		}
		if (cb->location_begin)
			cb->location_begin(user, loc);
		OTF2_Reader_RegisterEvtCallbacks(tr->reader, evt, ecb, &rd);
		uint64_t n = 0;
		OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(tr->reader, evt, &n);
		if (rc != OTF2_SUCCESS) {
			snprintf(tr->err, sizeof(tr->err),
				 "cannot read the events of location %" PRIu64 ": %s", loc->id,
				 vtr_reason(rc));
			result = -1;
		} else {
			location_end(&rd, &rd.one);
		}
		OTF2_Reader_CloseEvtReader(tr->reader, evt);
	}
	OTF2_EvtReaderCallbacks_Delete(ecb);
	close_files(tr, opened);
	free(rd.one.stack);
	free(rd.one.coll_begin);
	return result;
}

int vtr_read_merged(struct vtr_trace *tr, const struct vtr_callbacks *cb, void *user)
{
	stats = (struct vtr_stats){0};
	if (!tr->nlocations)
		return 0;
	bool local_defs, opened;
	if (select_all(tr, &local_defs) < 0)
		return -1;
	opened = local_defs;
	struct reader rd = {.tr = tr,
			    .cb = cb,
			    .user = user,
			    .merged = true,
			    .states = vtr_xcalloc(tr->nlocations, sizeof(struct loc_state))};
	int result = 0;
	/* The global reader needs every location's reader first (and its mapping tables). */
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		rd.states[i].loc = &tr->locations[i];
		if (local_defs)
			local_defs = vtr_read_local_defs(tr->reader, tr->locations[i].id);
		if (!OTF2_Reader_GetEvtReader(tr->reader, tr->locations[i].id)) {
			snprintf(tr->err, sizeof(tr->err),
				 "cannot open the events of location %" PRIu64 ": %s",
				 tr->locations[i].id, vtr_reason(OTF2_ERROR_INVALID));
			result = -1;
		}
		if (result == 0 && cb->location_begin)
			cb->location_begin(user, &tr->locations[i]);
	}
	OTF2_GlobalEvtReader *g = result == 0 ? OTF2_Reader_GetGlobalEvtReader(tr->reader) : NULL;
	if (result == 0 && !g) {
		snprintf(tr->err, sizeof(tr->err), "cannot merge the locations' events: %s",
			 vtr_reason(OTF2_ERROR_INVALID));
		result = -1;
	}
	if (g) {
		OTF2_GlobalEvtReaderCallbacks *gcb = global_callbacks();
		OTF2_Reader_RegisterGlobalEvtCallbacks(tr->reader, g, gcb, &rd);
		OTF2_GlobalEvtReaderCallbacks_Delete(gcb);
		uint64_t n = 0;
		OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(tr->reader, g, &n);
		if (rc != OTF2_SUCCESS) {
			snprintf(tr->err, sizeof(tr->err), "cannot read the events: %s",
				 vtr_reason(rc));
			result = -1;
		}
		OTF2_Reader_CloseGlobalEvtReader(tr->reader, g);
	}
	if (result == 0) {
		for (size_t i = 0; i < tr->nlocations; i++)
			location_end(&rd, &rd.states[i]);
		unmatched(&rd);
	}
	close_files(tr, opened);
	for (size_t i = 0; i < tr->nlocations; i++) {
		free(rd.states[i].stack);
		free(rd.states[i].coll_begin);
	}
	free(rd.states);
	free(rd.p2p.pool);
	free(rd.p2p.head);
	free(rd.p2p.tail);
	free(rd.p2p.reqs);
	for (size_t i = 0; i < rd.ncoll_count; i++)
		free(rd.coll_count[i]);
	free(rd.coll_count);
	return result;
}
