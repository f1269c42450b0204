/* SPDX-License-Identifier: BSD-3-Clause */
/* libvttrace: events location by location or merged in time, stacks checked, MPI matched. */
#include "vtr_cli.h"
#include "vtr_reader.h"

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

/* The statistics of the last reading: what it counted, copied once it ends. */
static struct vtr_stats last_stats;

const struct vtr_stats *vtr_last_stats(void)
{
	return &last_stats;
}

/* ---- per-location state: the call stack ---- */

void vtr_problem(struct reader *rd, struct loc_state *s, enum vtr_problem kind, bool has_time,
		 uint64_t time, uint32_t region, const char *fmt, ...)
{
	if (!rd->cb->problem)
		return;
	vtr_progress_clear();
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

/* The per-event steps (the location's state, the count, the stack) are inlined into every
 * handler: at 3 to 10 M events/s, calls and a cleared record per event were a third of the
 * reading's own time. */
#define HOT static inline __attribute__((always_inline))

HOT struct loc_state *state_of(struct reader *rd, OTF2_LocationRef location)
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

/* The length of the archive's folder name in its anchor's path (the path less .otf2). */
static int folder_len(const char *anchor)
{
	size_t n = strlen(anchor);
	return (int)(n > 5 && strcmp(anchor + n - 5, ".otf2") == 0 ? n - 5 : n);
}

/* A location delivers more events than its definition counts: the reading stops. */
static void too_many(struct reader *rd, struct loc_state *s)
{
	snprintf(rd->tr->err, sizeof(rd->tr->err),
		 "%.*s/%" PRIu64 ".evt is damaged: location %" PRIu64 " \"%s\" gives more "
		 "events than the %" PRIu64 " its definition counts",
		 folder_len(rd->tr->path), rd->tr->path, s->loc->id, s->loc->id, s->loc->name,
		 s->loc->events);
	rd->damaged = true;
	rd->tr->stop = true;
}

HOT void count(struct reader *rd, struct loc_state *s, enum vtr_event kind, uint64_t time)
{
	s->events++;
	if (__builtin_expect(++rd->stats.events >= rd->progress_at, 0))
		vtr_progress_tick(rd);
	if (__builtin_expect(rd->bounded && s->events > s->loc->events, 0) && !rd->damaged)
		too_many(rd, s);
	if (s->any && time < s->prev)
		vtr_problem(rd, s, VTR_TIME_DECREASE, true, time, VTR_NONE,
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

static bool undefined_region(struct reader *rd, struct loc_state *s, const char *what,
			     uint64_t time, uint32_t region)
{
	vtr_problem(rd, s, VTR_UNDEFINED_REGION, true, time, VTR_NONE,
		    "%s of undefined region id %" PRIu32 " at %" PRIu64 "; ignored", what, region,
		    time);
	return false;
}

HOT bool region_defined(struct reader *rd, struct loc_state *s, const char *what, uint64_t time,
			uint32_t region)
{
	if (region < rd->tr->nregions && rd->tr->regions[region].defined)
		return true;
	return undefined_region(rd, s, what, time, region);
}

HOT void pop(struct reader *rd, struct loc_state *s, uint64_t time)
{
	struct frame f = s->stack[--s->depth];
	if (rd->cb->leave)
		rd->cb->leave(rd->user, s->loc, time, f.region, f.enter);
}

HOT void enter(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region)
{
	if (!region_defined(rd, s, "Enter", time, region))
		return;
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->stack = vtr_xrealloc(s->stack, s->cap, sizeof(*s->stack));
	}
	s->stack[s->depth++] = (struct frame){region, time};
	if (s->depth > rd->stats.max_depth)
		rd->stats.max_depth = s->depth;
	if (rd->cb->enter)
		rd->cb->enter(rd->user, s->loc, time, region);
}

static void leave_repair(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region);

/* A Leave: of the innermost open region (the common case here), else repaired. */
HOT void leave(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region)
{
	if (s->depth && s->stack[s->depth - 1].region == region && region < rd->tr->nregions &&
	    rd->tr->regions[region].defined)
		pop(rd, s, time);
	else
		leave_repair(rd, s, time, region);
}

static void leave_repair(struct reader *rd, struct loc_state *s, uint64_t time, uint32_t region)
{
	if (!region_defined(rd, s, "Leave", time, region))
		return;
	if (s->depth == 0) {
		vtr_problem(rd, s, VTR_LEAVE_UNMATCHED, true, time, region,
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
		vtr_problem(rd, s, VTR_LEAVE_MISMATCH, true, time, region,
			    "Leave of '%s' at %" PRIu64 " does not match the innermost open region "
			    "'%s', and '%s' is not open; ignored",
			    region_name(rd, region), time, region_name(rd, top),
			    region_name(rd, region));
		return;
	}
	/* The region is open further out: its inner activations missed their Leave. */
	vtr_problem(rd, s, VTR_LEAVE_MISMATCH, true, time, region,
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
		vtr_problem(
		    rd, s, VTR_OPEN_AT_END, true, s->last, s->stack[s->depth - 1].region,
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

HOT void emit_simple(struct reader *rd, struct loc_state *s, enum vtr_event kind, uint64_t time,
		     uint32_t region, uint32_t mode)
{
	if (!rd->cb->record)
		return;
	rd->simple.kind = kind;
	rd->simple.time = time;
	rd->simple.region = region;
	rd->simple.mode = mode;
	rd->cb->record(rd->user, s->loc, &rd->simple);
}

/* The local reader's callbacks carry the event's position; the global reader's do not. Each
 * kind is handled once, with a wrapper per reader. Every handler counts the event, hands its
 * record over (the matching does that for the kinds it matches: with their match) and then
 * does what the kind leads to. */
#define STATE()                                                                                    \
	struct reader *rd = user;                                                                  \
	struct loc_state *s = state_of(rd, location);                                              \
	if (!s)                                                                                    \
	return OTF2_CALLBACK_SUCCESS

#define DONE() return rd->tr->stop ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS

/* A snapshot's mark on a message or collective end (vtr_trace.cut_attr). */
static bool is_cut(const struct reader *rd, OTF2_AttributeList *a)
{
	return a && rd->tr->cut_attr != VTR_NONE &&
	       OTF2_AttributeList_TestAttributeByID(a, rd->tr->cut_attr);
}

/* The event counted; its record, with the kind's fields to be filled in. */
#define RECORD(name)                                                                               \
	count(rd, s, VTR_EV_##name, time);                                                         \
	struct vtr_record r = {.kind = VTR_EV_##name, .time = time, .member = VTR_NONE}

/* The event counted; its record, of a kind the matching does not see, handed over. */
#define SIMPLE(name, region, mode)                                                                 \
	count(rd, s, VTR_EV_##name, time);                                                         \
	emit_simple(rd, s, VTR_EV_##name, time, region, mode)

#define HANDLERS(P)                                                                                \
	static OTF2_CallbackCode P##Enter(P##ARGS, OTF2_RegionRef region)                          \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(Enter, region, 0);                                                          \
		enter(rd, s, time, region);                                                        \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##Leave(P##ARGS, OTF2_RegionRef region)                          \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(Leave, region, 0);                                                          \
		leave(rd, s, time, region);                                                        \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##BufferFlush(P##ARGS, OTF2_TimeStamp stop)                      \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(BufferFlush, 0, 0);                                                         \
		if (rd->cb->flush)                                                                 \
			rd->cb->flush(rd->user, s->loc, time, stop);                               \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MeasurementOnOff(P##ARGS, OTF2_MeasurementMode mode)           \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(MeasurementOnOff, 0, mode);                                                 \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##Metric(P##ARGS, OTF2_MetricRef m, uint8_t n,                   \
					   const OTF2_Type *types, const OTF2_MetricValue *values) \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(Metric, 0, 0);                                                              \
		if (rd->cb->metric)                                                                \
			rd->cb->metric(rd->user, s->loc, time, m, n, types, values);               \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiSend(P##ARGS, uint32_t receiver, OTF2_CommRef comm,         \
					    uint32_t tag, uint64_t bytes)                          \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiSend);                                                                   \
		r.cut = is_cut(rd, attributes);                                                    \
		r.peer = receiver, r.comm = comm, r.tag = tag, r.bytes = bytes;                    \
		vtr_match_send(rd, s, &r);                                                         \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIsend(P##ARGS, uint32_t receiver, OTF2_CommRef comm,        \
					     uint32_t tag, uint64_t bytes, uint64_t req)           \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiIsend);                                                                  \
		r.cut = is_cut(rd, attributes);                                                    \
		r.peer = receiver, r.comm = comm, r.tag = tag, r.bytes = bytes, r.request = req;   \
		vtr_match_send(rd, s, &r);                                                         \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIsendComplete(P##ARGS, uint64_t req)                        \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiIsendComplete);                                                          \
		r.request = req;                                                                   \
		vtr_match_isend_complete(rd, s, &r);                                               \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIrecvRequest(P##ARGS, uint64_t req)                         \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiIrecvRequest);                                                           \
		r.request = req;                                                                   \
		vtr_match_irecv_request(rd, s, &r);                                                \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiRecv(P##ARGS, uint32_t sender, OTF2_CommRef comm,           \
					    uint32_t tag, uint64_t bytes)                          \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiRecv);                                                                   \
		r.cut = is_cut(rd, attributes);                                                    \
		r.peer = sender, r.comm = comm, r.tag = tag, r.bytes = bytes;                      \
		vtr_match_recv(rd, s, &r);                                                         \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiIrecv(P##ARGS, uint32_t sender, OTF2_CommRef comm,          \
					     uint32_t tag, uint64_t bytes, uint64_t req)           \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiIrecv);                                                                  \
		r.cut = is_cut(rd, attributes);                                                    \
		r.peer = sender, r.comm = comm, r.tag = tag, r.bytes = bytes, r.request = req;     \
		vtr_match_recv(rd, s, &r);                                                         \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiCollectiveBegin(P##ARGS)                                    \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(MpiCollectiveBegin, 0, 0);                                                  \
		if (s->ncoll == s->capcoll) {                                                      \
			s->capcoll = s->capcoll ? 2 * s->capcoll : 4;                              \
			s->coll_begin =                                                            \
			    vtr_xrealloc(s->coll_begin, s->capcoll, sizeof(*s->coll_begin));       \
		}                                                                                  \
		s->coll_begin[s->ncoll++] = time;                                                  \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##CallingContextSample(P##ARGS, OTF2_CallingContextRef ctx,      \
							 uint32_t distance,                        \
							 OTF2_InterruptGeneratorRef gen)           \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(CallingContextSample, 0, 0);                                                \
		if (rd->cb->sample)                                                                \
			rd->cb->sample(rd->user, s->loc, time,                                     \
				       ctx < rd->tr->ncallctxs ? ctx : VTR_NONE);                  \
		DONE();                                                                            \
	}                                                                                          \
	static OTF2_CallbackCode P##MpiCollectiveEnd(P##ARGS, OTF2_CollectiveOp op,                \
						     OTF2_CommRef comm, uint32_t root,             \
						     uint64_t sent, uint64_t received)             \
	{                                                                                          \
		STATE();                                                                           \
		RECORD(MpiCollectiveEnd);                                                          \
		r.cut = is_cut(rd, attributes);                                                    \
		r.op = op, r.comm = comm, r.root = root, r.sent = sent, r.received = received;     \
		vtr_match_coll_end(rd, s, &r);                                                     \
		DONE();                                                                            \
	}

/* The thread model's events: counted, then handed over with their fields. */
HOT void thread_event(struct reader *rd, struct loc_state *s, struct vtr_thread_event *e)
{
	if (!rd->cb->thread)
		return;
	if (e->comm != VTR_NONE)
		e->paradigm = e->comm < rd->tr->ncomms && rd->tr->comms[e->comm].defined
				  ? rd->tr->comms[e->comm].paradigm
				  : VTR_NONE;
	rd->cb->thread(rd->user, s->loc, e);
}

/* The fields a kind does not have: VTR_NONE. */
static const struct vtr_thread_event no_thread_event = {
    .paradigm = VTR_NONE,
    .comm = VTR_NONE,
    .threads = VTR_NONE,
    .lock = VTR_NONE,
    .order = VTR_NONE,
    .creator = VTR_NONE,
    .generation = VTR_NONE,
};

/* The kind's handler: count, record, then hand it over with the fields set (statements). */
#define THREAD_EVENT(name, ...)                                                                    \
	STATE();                                                                                   \
	SIMPLE(name, 0, 0);                                                                        \
	if (rd->cb->thread) {                                                                      \
		struct vtr_thread_event e = no_thread_event;                                       \
		e.kind = VTR_EV_##name;                                                            \
		e.time = time;                                                                     \
		__VA_ARGS__;                                                                       \
		thread_event(rd, s, &e);                                                           \
	}                                                                                          \
	DONE()

#define THREAD_HANDLERS(P)                                                                         \
	static OTF2_CallbackCode P##ThreadFork(P##ARGS, OTF2_Paradigm paradigm, uint32_t n)        \
	{                                                                                          \
		THREAD_EVENT(ThreadFork, e.paradigm = paradigm; e.threads = n);                    \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadJoin(P##ARGS, OTF2_Paradigm paradigm)                    \
	{                                                                                          \
		THREAD_EVENT(ThreadJoin, e.paradigm = paradigm);                                   \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadTeamBegin(P##ARGS, OTF2_CommRef team)                    \
	{                                                                                          \
		THREAD_EVENT(ThreadTeamBegin, e.comm = team);                                      \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadTeamEnd(P##ARGS, OTF2_CommRef team)                      \
	{                                                                                          \
		THREAD_EVENT(ThreadTeamEnd, e.comm = team);                                        \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadAcquireLock(P##ARGS, OTF2_Paradigm paradigm,             \
						      uint32_t lock, uint32_t order)               \
	{                                                                                          \
		THREAD_EVENT(ThreadAcquireLock, e.paradigm = paradigm; e.lock = lock;              \
			     e.order = order);                                                     \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadReleaseLock(P##ARGS, OTF2_Paradigm paradigm,             \
						      uint32_t lock, uint32_t order)               \
	{                                                                                          \
		THREAD_EVENT(ThreadReleaseLock, e.paradigm = paradigm; e.lock = lock;              \
			     e.order = order);                                                     \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadTaskCreate(P##ARGS, OTF2_CommRef team, uint32_t creator, \
						     uint32_t gen)                                 \
	{                                                                                          \
		THREAD_EVENT(ThreadTaskCreate, e.comm = team; e.creator = creator;                 \
			     e.generation = gen);                                                  \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadTaskSwitch(P##ARGS, OTF2_CommRef team, uint32_t creator, \
						     uint32_t gen)                                 \
	{                                                                                          \
		THREAD_EVENT(ThreadTaskSwitch, e.comm = team; e.creator = creator;                 \
			     e.generation = gen);                                                  \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadTaskComplete(P##ARGS, OTF2_CommRef team,                 \
						       uint32_t creator, uint32_t gen)             \
	{                                                                                          \
		THREAD_EVENT(ThreadTaskComplete, e.comm = team; e.creator = creator;               \
			     e.generation = gen);                                                  \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadCreate(P##ARGS, OTF2_CommRef comm, uint64_t seq)         \
	{                                                                                          \
		THREAD_EVENT(ThreadCreate, e.comm = comm; e.sequence = seq);                       \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadBegin(P##ARGS, OTF2_CommRef comm, uint64_t seq)          \
	{                                                                                          \
		THREAD_EVENT(ThreadBegin, e.comm = comm; e.sequence = seq);                        \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadWait(P##ARGS, OTF2_CommRef comm, uint64_t seq)           \
	{                                                                                          \
		THREAD_EVENT(ThreadWait, e.comm = comm; e.sequence = seq);                         \
	}                                                                                          \
	static OTF2_CallbackCode P##ThreadEnd(P##ARGS, OTF2_CommRef comm, uint64_t seq)            \
	{                                                                                          \
		THREAD_EVENT(ThreadEnd, e.comm = comm; e.sequence = seq);                          \
	}

/* The I/O model's events: counted, then handed over with their fields (statements). */
#define IO_EVENT(name, ...)                                                                        \
	STATE();                                                                                   \
	SIMPLE(name, 0, 0);                                                                        \
	if (rd->cb->io) {                                                                          \
		struct vtr_io_event e = {.kind = VTR_EV_##name, .time = time};                     \
		__VA_ARGS__;                                                                       \
		rd->cb->io(rd->user, s->loc, &e);                                                  \
	}                                                                                          \
	DONE()

#define IO_HANDLERS(P)                                                                             \
	static OTF2_CallbackCode P##IoCreateHandle(                                                \
	    P##ARGS, OTF2_IoHandleRef h, OTF2_IoAccessMode mode, OTF2_IoCreationFlag cflags,       \
	    OTF2_IoStatusFlag sflags)                                                              \
	{                                                                                          \
		IO_EVENT(IoCreateHandle, e.handle = h; e.mode = mode; e.flags = cflags);           \
	}                                                                                          \
	static OTF2_CallbackCode P##IoDestroyHandle(P##ARGS, OTF2_IoHandleRef h)                   \
	{                                                                                          \
		IO_EVENT(IoDestroyHandle, e.handle = h);                                           \
	}                                                                                          \
	static OTF2_CallbackCode P##IoDuplicateHandle(P##ARGS, OTF2_IoHandleRef old,               \
						      OTF2_IoHandleRef h, OTF2_IoStatusFlag sf)    \
	{                                                                                          \
		IO_EVENT(IoDuplicateHandle, e.handle = old; e.other = h);                          \
	}                                                                                          \
	static OTF2_CallbackCode P##IoSeek(P##ARGS, OTF2_IoHandleRef h, int64_t off,               \
					   OTF2_IoSeekOption whence, uint64_t result)              \
	{                                                                                          \
		IO_EVENT(IoSeek, e.handle = h; e.offset = off; e.mode = whence;                    \
			 e.result = result);                                                       \
	}                                                                                          \
	static OTF2_CallbackCode P##IoOperationBegin(                                              \
	    P##ARGS, OTF2_IoHandleRef h, OTF2_IoOperationMode mode, OTF2_IoOperationFlag flags,    \
	    uint64_t bytes, uint64_t id)                                                           \
	{                                                                                          \
		IO_EVENT(IoOperationBegin, e.handle = h; e.mode = mode; e.flags = flags;           \
			 e.bytes = bytes; e.matching = id);                                        \
	}                                                                                          \
	static OTF2_CallbackCode P##IoOperationComplete(P##ARGS, OTF2_IoHandleRef h,               \
							uint64_t bytes, uint64_t id)               \
	{                                                                                          \
		IO_EVENT(IoOperationComplete, e.handle = h; e.bytes = bytes; e.matching = id);     \
	}                                                                                          \
	static OTF2_CallbackCode P##IoOperationCancelled(P##ARGS, OTF2_IoHandleRef h, uint64_t id) \
	{                                                                                          \
		IO_EVENT(IoOperationCancelled, e.handle = h; e.matching = id);                     \
	}                                                                                          \
	static OTF2_CallbackCode P##IoOperationIssued(P##ARGS, OTF2_IoHandleRef h, uint64_t id)    \
	{                                                                                          \
		IO_EVENT(IoOperationIssued, e.handle = h; e.matching = id);                        \
	}                                                                                          \
	static OTF2_CallbackCode P##IoOperationTest(P##ARGS, OTF2_IoHandleRef h, uint64_t id)      \
	{                                                                                          \
		IO_EVENT(IoOperationTest, e.handle = h; e.matching = id);                          \
	}

/* The kinds with handlers above: registered after the generic ones, which they replace. */
// clang-format off
#define SPECIAL_KINDS(X) \
	X(Enter) X(Leave) X(BufferFlush) X(MeasurementOnOff) X(Metric) \
	X(MpiSend) X(MpiIsend) X(MpiIsendComplete) X(MpiIrecvRequest) X(MpiRecv) X(MpiIrecv) \
	X(MpiCollectiveBegin) X(MpiCollectiveEnd) X(CallingContextSample) \
	X(ThreadFork) X(ThreadJoin) X(ThreadTeamBegin) X(ThreadTeamEnd) X(ThreadAcquireLock) \
	X(ThreadReleaseLock) X(ThreadTaskCreate) X(ThreadTaskSwitch) X(ThreadTaskComplete) \
	X(ThreadCreate) X(ThreadBegin) X(ThreadWait) X(ThreadEnd) \
	X(IoCreateHandle) X(IoDestroyHandle) X(IoDuplicateHandle) X(IoSeek) X(IoOperationBegin) \
	X(IoOperationComplete) X(IoOperationCancelled) X(IoOperationIssued) X(IoOperationTest)
// clang-format on

#define local_ARGS                                                                                 \
	OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user,             \
	    OTF2_AttributeList *attributes
#define global_ARGS                                                                                \
	OTF2_LocationRef location, OTF2_TimeStamp time, void *user, OTF2_AttributeList *attributes

HANDLERS(local_)
HANDLERS(global_)
THREAD_HANDLERS(local_)
THREAD_HANDLERS(global_)
IO_HANDLERS(local_)
IO_HANDLERS(global_)

/* Every kind: counted, handed to the tool as a generic event. */
#define GENERIC(name, params)                                                                      \
	static OTF2_CallbackCode generic_##name params                                             \
	{                                                                                          \
		STATE();                                                                           \
		SIMPLE(name, 0, 0);                                                                \
		DONE();                                                                            \
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
		SIMPLE(name, 0, 0);                                                                \
		DONE();                                                                            \
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

/* ---- the two ways of reading ---- */

void vtr_stop(struct vtr_trace *tr)
{
	tr->stop = true;
}

static int select_all(struct vtr_trace *tr, bool *local_defs)
{
	for (size_t i = 0; i < tr->nlocations; i++) {
		if (tr->only && !tr->only[i])
			continue;
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
	last_stats = (struct vtr_stats){0};
	tr->stop = false;
	if (!tr->nlocations)
		return 0;
	bool local_defs, opened;
	if (select_all(tr, &local_defs) < 0)
		return -1;
	opened = local_defs;
	struct reader rd = {.tr = tr, .cb = cb, .user = user, .simple = {.member = VTR_NONE}};
	for (size_t i = 0; i < tr->nlocations; i++)
		rd.bounded = rd.bounded || tr->locations[i].events > 0;
	OTF2_EvtReaderCallbacks *ecb = local_callbacks();
	int result = 0;
	vtr_progress_begin(&rd);
	/* One location at a time, each reader closed after use: open files stay few. */
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		const struct vtr_location *loc = &tr->locations[i];
		if (tr->only && !tr->only[i])
			continue;
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
		if (rd.damaged) {
			result = -1;
		} else if (tr->stop) {
			result = 1;
		} else if (rc != OTF2_SUCCESS) {
			snprintf(tr->err, sizeof(tr->err),
				 "cannot read the events of location %" PRIu64 " (%.*s/%" PRIu64
				 ".evt): %s",
				 loc->id, folder_len(tr->path), tr->path, loc->id, vtr_reason(rc));
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
	vtr_progress_clear();
	last_stats = rd.stats;
	return result;
}

int vtr_read_merged(struct vtr_trace *tr, const struct vtr_callbacks *cb, void *user)
{
	last_stats = (struct vtr_stats){0};
	tr->stop = false;
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
			    .matching = !tr->no_match,
			    .simple = {.member = VTR_NONE},
			    .states = vtr_xcalloc(tr->nlocations, sizeof(struct loc_state))};
	int result = 0;
	size_t merged = 0;
	/*
	 * The global reader needs every location's reader first (and its mapping tables). Not
	 * for a location without events: libotf2 3.0's global reader closes (frees) the reader
	 * of a location whose first read finds the end, then follows that reader's link to the
	 * next one, a use-after-free that crashes once the memory is reused (always, under
	 * MALLOC_PERTURB_). Such a location has nothing to merge. Only where the definitions
	 * count events at all: a writer that leaves every count 0 says nothing by it.
	 */
	bool counted = false;
	for (size_t i = 0; i < tr->nlocations; i++)
		counted = counted || tr->locations[i].events > 0;
	rd.bounded = counted;
	vtr_progress_begin(&rd);
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		rd.states[i].loc = &tr->locations[i];
		if (tr->only && !tr->only[i])
			continue;
		if (counted && tr->locations[i].events == 0) {
			if (cb->location_begin)
				cb->location_begin(user, &tr->locations[i]);
			continue;
		}
		merged++;
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
	OTF2_GlobalEvtReader *g =
	    result == 0 && merged ? OTF2_Reader_GetGlobalEvtReader(tr->reader) : NULL;
	if (result == 0 && merged && !g) {
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
		if (rd.damaged) {
			result = -1;
		} else if (tr->stop) {
			result = 1;
		} else if (rc != OTF2_SUCCESS) {
			snprintf(tr->err, sizeof(tr->err), "cannot read the events: %s",
				 vtr_reason(rc));
			result = -1;
		}
		OTF2_Reader_CloseGlobalEvtReader(tr->reader, g);
	}
	if (result == 0) {
		for (size_t i = 0; i < tr->nlocations; i++)
			if (!tr->only || tr->only[i])
				location_end(&rd, &rd.states[i]);
		vtr_match_unmatched(&rd);
	}
	close_files(tr, opened);
	for (size_t i = 0; i < tr->nlocations; i++) {
		free(rd.states[i].stack);
		free(rd.states[i].coll_begin);
	}
	free(rd.states);
	vtr_match_free(&rd);
	vtr_progress_clear();
	last_stats = rd.stats;
	return result;
}
