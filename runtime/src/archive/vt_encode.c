/* SPDX-License-Identifier: BSD-3-Clause */
/* The encoders: a location's records become OTF2 events of its writer (vt_evtw), at flush time. */
#include "archive/vt_evtw.h"
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_loctab.h"
#include "base/vt_log.h"
#include "defs/vt_callctx.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_unify.h"
#include "interpose/vt_own_fds.h"
#include "regions/vt_stack.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

static struct {
	/*
	 * What the encoder knows of each location (struct vt_enc_loc, archive/vt_otf2_priv.h),
	 * in its own table indexed by the location; the open regions are the regions'
	 * (vt_stack). All of it is touched with the location's lock held.
	 */
	struct vt_loctab encs;
	/* What the metric service told the writer once (its tables stay the service's): how
	 * values are written, and the definitions. n_metrics grows while the program defines
	 * counters. */
	struct {
		const struct vt_otf2_metric *metrics;
		uint32_t n_metrics;
		const struct vt_otf2_instance *instances;
		uint32_t n_instances;
		uint64_t last_ts;
	} mt;
	/* A ThreadCreate or ThreadWait was written (vt_otf2_thread_events). */
	bool thread_events;
} enc = {
    .encs = VT_LOCTAB_INIT(struct vt_enc_loc),
};

/* The location's entry: made at its first encoding. A location whose entry cannot be made
 * (out of memory) has its events dropped, with one line. */
static struct vt_enc_loc *enc_of(struct vt_loc *loc)
{
	struct vt_enc_loc *e = vt_loctab_get(&enc.encs, loc->index);
	if (!e)
		vt_error("thread %u: no memory for its encoder state; its events are lost",
			 loc->index);
	return e;
}

const struct vt_enc_loc *vt_enc_loc(uint32_t index)
{
	static const struct vt_enc_loc none;
	const struct vt_enc_loc *e = vt_loctab_peek(&enc.encs, index);
	return e ? e : &none;
}

/* The writer of a location, made when it first has something to write: in MPI mode the
 * archive, and the rank that is part of the location id, exist only after MPI_Init. */
static struct vt_evtw *writer_of(struct vt_loc *loc, struct vt_enc_loc *e)
{
	OTF2_Archive *archive = vt_otf2_archive();
	/* Every location defined has its id, also one made after a failed write. */
	if (!e->writer && archive)
		loc->ref = vt_otf2_location_ref(loc->index);
	if (vt_otf2_failed())
		return NULL;
	if (e->writer || !archive)
		return e->writer;
	e->writer = vt_otf2_evt_open(loc->ref);
	if (!e->writer)
		vt_error("no memory for the event writer of thread %u in %s; its events are lost",
			 loc->index, vt_otf2_anchor());
	return e->writer;
}

int vt_otf2_loc_open(struct vt_loc *loc)
{
	/* Before MPI_Init there is no archive yet: the writer comes later. */
	if (!vt_otf2_archive())
		return 0;
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return -1;
	if (writer_of(loc, e))
		return 0;
	/* A thread that starts after a failed write is not recorded, but it is a location of
	 * the trace (as every thread that ran): its event file holds no events. */
	if (vt_otf2_failed())
		e->n_events = vt_otf2_events_on_disk(loc->ref);
	return -1;
}

void vt_otf2_forget_writers(void)
{
	for (uint32_t i = 0; i < vt_thread_count(); i++) {
		struct vt_enc_loc *e = vt_loctab_peek(&enc.encs, i);
		if (e && e->writer)
			vt_otf2_evt_forget(e->writer);
		if (e)
			e->writer = NULL;
	}
}

void vt_otf2_set_metrics(const struct vt_otf2_metric *m, uint32_t n)
{
	enc.mt.metrics = m;
	__atomic_store_n(&enc.mt.n_metrics, n, __ATOMIC_RELEASE);
}

void vt_otf2_metrics_grew(uint32_t n)
{
	__atomic_store_n(&enc.mt.n_metrics, n, __ATOMIC_RELEASE);
}

void vt_otf2_set_instances(const struct vt_otf2_instance *in, uint32_t n, uint64_t last_ts)
{
	enc.mt.instances = in;
	enc.mt.n_instances = n;
	enc.mt.last_ts = last_ts;
}

const struct vt_otf2_metric *vt_otf2_metrics(uint32_t *n)
{
	*n = __atomic_load_n(&enc.mt.n_metrics, __ATOMIC_ACQUIRE);
	return enc.mt.metrics;
}

const struct vt_otf2_instance *vt_otf2_instances(uint32_t *n)
{
	*n = enc.mt.instances ? enc.mt.n_instances : 0;
	return enc.mt.instances;
}

uint64_t vt_otf2_metric_last_ts(void)
{
	return enc.mt.last_ts;
}

/* A value of metric m as OTF2 writes it. */
static OTF2_MetricValue value_of(const struct vt_otf2_metric *m, uint64_t value)
{
	OTF2_MetricValue v;
	if (m->is_float) {
		/* A float in the low 32 bits; OTF2 has doubles. */
		float f;
		uint32_t low = (uint32_t)value;
		memcpy(&f, &low, sizeof(f));
		v.floating_point = f;
	} else {
		v.unsigned_int = value;
	}
	return v;
}

/* A value of metric m as a Metric record's one member: false for a metric this process does
 * not define (it has no type: nothing is written). */
static bool one_value(uint32_t m, uint64_t value, OTF2_Type *type, OTF2_MetricValue *v)
{
	if (m >= __atomic_load_n(&enc.mt.n_metrics, __ATOMIC_ACQUIRE))
		return false;
	*type = enc.mt.metrics[m].type;
	*v = value_of(&enc.mt.metrics[m], value);
	return true;
}

bool vt_otf2_write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t m, uint64_t value)
{
	OTF2_Type type;
	OTF2_MetricValue v;
	if (!one_value(m, value, &type, &v))
		return true;
	/* After a failed write no writer is touched again (vt_otf2_failed). */
	if (vt_otf2_failed())
		return false;
	return vt_otf2_ok(OTF2_EvtWriter_Metric(w, NULL, ts, id, 1, &type, &v));
}

/* The same into a location's writer of vt's own. */
static bool write_value(struct vt_evtw *w, uint64_t ts, uint32_t m, uint64_t value)
{
	OTF2_Type type;
	OTF2_MetricValue v;
	if (!one_value(m, value, &type, &v))
		return true;
	return !vt_otf2_failed() && vt_evtw_metric(w, ts, m, 1, &type, &v);
}

/* Whether class g of the table has exactly the n members of v, in their order. */
static bool is_group(uint32_t g, uint32_t n_metrics, const struct vt_enc_value *v, uint32_t n)
{
	if (g >= n_metrics || enc.mt.metrics[g].n_members != n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (enc.mt.metrics[g].members[i] != v[i].metric)
			return false;
	return true;
}

/* The class of the metric service whose members are v's metrics, or UINT32_MAX: the one of
 * the location's last such values, else found in the table (a thread's set changes rarely:
 * at MPI_Init). */
static uint32_t group_of(struct vt_enc_loc *e, const struct vt_enc_value *v, uint32_t n)
{
	uint32_t n_metrics = __atomic_load_n(&enc.mt.n_metrics, __ATOMIC_ACQUIRE);
	if (e->group && is_group(e->group - 1, n_metrics, v, n))
		return e->group - 1;
	for (uint32_t g = 0; g < n_metrics; g++)
		if (is_group(g, n_metrics, v, n)) {
			e->group = g + 1;
			return g;
		}
	return UINT32_MAX;
}

/* The n values of v as one Metric event of class g (whose members are their metrics). */
static bool write_group(struct vt_evtw *w, uint64_t ts, uint32_t g, const struct vt_enc_value *v,
			uint32_t n)
{
	if (vt_otf2_failed())
		return false;
	OTF2_Type types[VT_OTF2_GROUP_MAX];
	OTF2_MetricValue values[VT_OTF2_GROUP_MAX];
	for (uint32_t i = 0; i < n; i++) {
		types[i] = enc.mt.metrics[v[i].metric].type;
		values[i] = value_of(&enc.mt.metrics[v[i].metric], v[i].value);
	}
	return vt_evtw_metric(w, ts, g, (uint8_t)n, types, values);
}

static bool is_strict(uint32_t m, uint32_t n_metrics)
{
	return m < n_metrics && enc.mt.metrics[m].occurrence == OTF2_METRIC_SYNCHRONOUS_STRICT;
}

/*
 * The synchronous values v[0..n) of the event at ts: the strict ones, when the metric service
 * made a class of them (two or more: vt_metric.c), as one Metric event of that class, every
 * other value as a Metric event of its own metric.
 */
__attribute__((noinline)) static bool write_several(struct vt_enc_loc *e, uint64_t ts,
						    const struct vt_enc_value *v, uint32_t n)
{
	uint32_t n_metrics = __atomic_load_n(&enc.mt.n_metrics, __ATOMIC_ACQUIRE);
	/* The usual case: the values are those of the location's last event. */
	if (e->group && is_group(e->group - 1, n_metrics, v, n))
		return write_group(e->writer, ts, e->group - 1, v, n);
	struct vt_enc_value strict[VT_OTF2_GROUP_MAX];
	uint32_t k = 0, g = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (k < VT_OTF2_GROUP_MAX && is_strict(v[i].metric, n_metrics))
			strict[k++] = v[i];
	if (k >= 2)
		g = group_of(e, strict, k);
	if (g != UINT32_MAX && !write_group(e->writer, ts, g, strict, k))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (g != UINT32_MAX && is_strict(v[i].metric, n_metrics))
			continue;
		if (!write_value(e->writer, ts, v[i].metric, v[i].value))
			return false;
	}
	return true;
}

/* The same, a single value (the usual case of one counter) without a call. */
static inline bool write_values(struct vt_enc_loc *e, uint64_t ts, const struct vt_enc_value *v,
				uint32_t n)
{
	if (n == 1)
		return write_value(e->writer, ts, v[0].metric, v[0].value);
	return n == 0 || write_several(e, ts, v, n);
}

/* Leaves every open region down to (not including) depth 'keep' at ts, each with the
 * thread's last synchronous values (strict or not: a counter read at every Enter and Leave
 * reads at these too, as the last value): a Leave vt writes itself has no reading of its
 * own. */
static bool unwind(struct vt_enc_loc *e, struct vt_stack *s, size_t keep, uint64_t ts)
{
	while (s->depth > keep) {
		uint32_t region;
		if (!vt_stack_pop(s, &region))
			continue;
		if (!vt_evtw_leave(e->writer, ts, region))
			return false;
		if (e->n_strict && !write_values(e, ts, e->strict, e->n_strict))
			return false;
	}
	return true;
}

/* Keeps a synchronous value that followed the last Enter/Leave (e->strict). */
static void keep_strict(struct vt_enc_loc *e, uint32_t metric, uint64_t value)
{
	if (e->n_strict == e->cap_strict) {
		uint32_t cap = e->cap_strict ? 2 * e->cap_strict : 8;
		struct vt_enc_value *v = realloc(e->strict, cap * sizeof(*v));
		if (!v)
			return;
		e->strict = v;
		e->cap_strict = cap;
	}
	e->strict[e->n_strict++] = (struct vt_enc_value){metric, value};
}

/* A thread's sequence number: the one its creator gave it (VT_REC_THREAD_BEGIN), else its
 * location's index, which no creator's number takes (those start above 2^32). */
static uint64_t seq_of(struct vt_loc *loc, const struct vt_enc_loc *e)
{
	return e->seq_set ? e->seq : loc->index;
}

static void begin(struct vt_loc *loc, struct vt_enc_loc *e, uint64_t ts)
{
	e->began = true;
	e->first_ts = ts;
	if (loc->index > 0)
		vt_evtw_thread_seq(e->writer, ts, VT_EVTW_THREAD_BEGIN, VT_OTF2_THREAD_COMM_LOCAL,
				   seq_of(loc, e));
}

static bool enter(struct vt_stack *s, struct vt_evtw *w, uint64_t ts, uint32_t id)
{
	bool recorded = vt_stack_enter(s, id);
	if (recorded)
		vt_evtw_enter(w, ts, id);
	return recorded;
}

/* A frame open at the start of a ring's window (VT_REC_ENTER_BEFORE): an Enter at the
 * window's start whose attribute says when the region was really entered. */
static bool enter_before(struct vt_stack *s, struct vt_evtw *w, uint64_t ts, uint32_t id,
			 uint64_t entered)
{
	bool recorded = vt_stack_enter(s, id);
	struct vt_evtw_attr a = {VT_UNIFY_ATTR_ENTERED, OTF2_TYPE_UINT64, entered};
	if (recorded)
		vt_evtw_enter_attrs(w, &a, 1, ts, id);
	return recorded;
}

/* A Leave whose region is not the innermost open one: longjmp or an exception skipped
 * Leaves, and those regions are left here too (vt_stack counts them as repaired). */
static __attribute__((noinline)) bool leave_slow(struct vt_enc_loc *e, struct vt_stack *s,
						 uint64_t ts, uint32_t id)
{
	long d = vt_stack_leave(s, id);
	if (d < 0)
		return false;
	bool recorded = s->frames[d].recorded;
	unwind(e, s, (size_t)d, ts);
	return recorded;
}

/* A Leave closes the innermost open region: nearly always the one it names, which takes one
 * pop and one record, without the search and the unwind's loop (there are no synchronous
 * values to repeat yet: they follow the Leave). Whether it was written. */
static inline bool leave(struct vt_enc_loc *e, struct vt_stack *s, uint64_t ts, uint32_t id)
{
	size_t top = s->depth;
	if (vt_unlikely(top == 0 || s->frames[top - 1].region != id))
		return leave_slow(e, s, ts, id);
	bool recorded = s->frames[top - 1].recorded;
	s->depth = top - 1;
	if (recorded)
		vt_evtw_leave(e->writer, ts, id);
	return recorded;
}

/*
 * A POSIX operation (VT_REC_IO_OP_BEGIN, and _END when its end is an event of its own): the
 * Enter and the IoOperationBegin with the location's next matching id at *ts, then, where
 * the event holds the end, the IoOperationComplete (or Cancelled) of that id and the Leave
 * at the end's time (*ts moves to it); without the Enter or the Leave when written apart.
 */
static bool posix_end(struct vt_enc_loc *e, struct vt_stack *s, uint64_t ts, uint32_t region,
		      uint32_t handle, bool failed, bool alone, uint64_t done)
{
	struct vt_evtw *w = e->writer;
	bool began = e->io_open;
	e->io_open = false;
	bool ok = !began   ? true
		  : failed ? vt_evtw_io_mark(w, ts, VT_EVTW_IO_CANCELLED, handle, e->io_ops)
			   : vt_evtw_io_complete(w, NULL, 0, ts, handle, done, e->io_ops);
	if (!ok)
		return false;
	if (!alone) {
		e->n_strict = 0;
		e->last_recorded = leave(e, s, ts, region & VT_REGION_ID_MASK);
	}
	return true;
}

static bool posix_op(struct vt_enc_loc *e, struct vt_stack *s, uint64_t *ts, const struct vt_rec *r,
		     const union vt_rec_payload *p)
{
	struct vt_evtw *w = e->writer;
	const struct vt_rec_io *a = &p[0].io;
	bool alone = a->flags & VT_REC_IO_OP_ALONE;
	if (r->kind == VT_REC_IO_OP_END)
		return posix_end(e, s, *ts, r->region, a->handle, a->flags & VT_REC_IO_OP_FAILED,
				 alone, a->value);
	if (!alone) {
		e->n_strict = 0;
		e->last_recorded = enter(s, w, *ts, r->region & VT_REGION_ID_MASK);
	}
	if (!vt_evtw_io_begin(w, NULL, 0, *ts, a->handle, (OTF2_IoOperationMode)(a->flags & 0xFF),
			      OTF2_IO_OPERATION_FLAG_NONE, a->value, ++e->io_ops))
		return false;
	e->io_open = true;
	const struct vt_rec_io_end *end = &p[1].io_end;
	uint64_t at = __atomic_load_n(&end->ts, __ATOMIC_ACQUIRE);
	if (!at)
		return true;
	if (at > *ts)
		*ts = at;
	return posix_end(e, s, *ts, r->region, a->handle, end->result < 0, alone,
			 end->result < 0 ? 0 : (uint64_t)end->result);
}

/*
 * The encoders of the event kinds: head record r (its time clamped to ts) and its payload
 * p. One per kind, indexed by kind; a kind without an encoder is skipped with its payload.
 */
typedef bool (*encode_fn)(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			  const struct vt_rec *r, const union vt_rec_payload *p);

/* The communicators a thread other than the master makes MPI calls on, noted as its events
 * are encoded (off the program's path), for its communicator lanes (vt_mpi_defs.h). The
 * master's events, most of them, make no call. */
static void used_comm(struct vt_loc *loc, uint32_t comm)
{
	if (loc->index != 0)
		vt_mpi_defs_comm_used(loc->index, comm);
}

/* A message or collective end the window of a job's snapshot cut from its other end
 * (VT_REC_CUT): the attribute that says so, value 1 on a receive (sent before the window),
 * 2 on a send (received after it), 3 on a collective's end (others ended it outside); NULL
 * for the others. */
static uint32_t cut_attr(const struct vt_rec *r, uint8_t value, struct vt_evtw_attr *a)
{
	*a = (struct vt_evtw_attr){VT_UNIFY_ATTR_CUT, OTF2_TYPE_UINT8, value};
	return r->region & VT_REC_CUT ? 1 : 0;
}

static bool enc_send(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		     const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	struct vt_evtw_attr a;
	uint32_t n = cut_attr(r, 2, &a);
	return vt_evtw_mpi_send(w, &a, n, ts, r->region & ~VT_REC_CUT, p[0].msg.comm, p[0].msg.tag,
				p[0].msg.bytes);
}

static bool enc_recv(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		     const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	struct vt_evtw_attr a;
	uint32_t n = cut_attr(r, 1, &a);
	return vt_evtw_mpi_recv(w, &a, n, ts, r->region & ~VT_REC_CUT, p[0].msg.comm, p[0].msg.tag,
				p[0].msg.bytes);
}

static bool enc_isend(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		      const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	struct vt_evtw_attr a;
	uint32_t n = cut_attr(r, 2, &a);
	return vt_evtw_mpi_isend(w, &a, n, ts, r->region & ~VT_REC_CUT, p[0].msg.comm, p[0].msg.tag,
				 p[0].msg.bytes, p[1].req.id);
}

static bool enc_irecv(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		      const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	struct vt_evtw_attr a;
	uint32_t n = cut_attr(r, 1, &a);
	return vt_evtw_mpi_irecv(w, &a, n, ts, r->region & ~VT_REC_CUT, p[0].msg.comm, p[0].msg.tag,
				 p[0].msg.bytes, p[1].req.id);
}

static bool enc_isend_complete(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_ISEND_COMPLETE, p[0].req.id);
}

static bool enc_irecv_request(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			      const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_IRECV_REQUEST, p[0].req.id);
}

static bool enc_isend_complete_id32(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
				    const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_ISEND_COMPLETE, r->region);
}

static bool enc_irecv_request_id32(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
				   const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_IRECV_REQUEST, r->region);
}

static bool enc_request_test(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_REQUEST_TEST, p[0].req.id);
}

static bool enc_request_cancelled(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
				  const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_REQUEST_CANCELLED, p[0].req.id);
}

static bool enc_coll_begin(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			   const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_coll_begin(w, ts);
}

static bool enc_coll_end(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
			 const union vt_rec_payload *p)
{
	used_comm(loc, p[0].coll.comm);
	struct vt_evtw_attr a;
	uint32_t n = cut_attr(r, 3, &a);
	return vt_evtw_coll_end(w, &a, n, ts, (OTF2_CollectiveOp)(r->region & ~VT_REC_CUT),
				p[0].coll.comm, p[0].coll.root, p[0].coll.sent, p[1].req.id);
}

static bool enc_nbc_request(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			    const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_request(w, ts, VT_EVTW_NBC_REQUEST, p[0].req.id);
}

static bool enc_nbc_complete(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	used_comm(loc, p[0].coll.comm);
	return vt_evtw_nbc_complete(w, ts, (OTF2_CollectiveOp)r->region, p[0].coll.comm,
				    p[0].coll.root, p[0].coll.sent, p[1].nbc.received, p[1].nbc.id);
}

static bool enc_rma_win(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	return vt_evtw_rma_win(w, ts, r->kind == VT_REC_RMA_WIN_CREATE, r->region);
}

static bool enc_rma_coll_begin(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_rma_coll_begin(w, ts);
}

static bool enc_rma_coll_end(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_rma_coll_end(w, ts, (OTF2_CollectiveOp)(r->region & 0xFF),
				    (OTF2_RmaSyncLevel)(r->region >> 8), p[0].rma.win,
				    p[0].rma.remote, p[0].rma.value, p[1].nbc.received);
}

static bool enc_rma_op(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		       const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	if (r->kind == VT_REC_RMA_PUT || r->kind == VT_REC_RMA_GET)
		return vt_evtw_rma_xfer(w, ts, r->kind == VT_REC_RMA_PUT, a->win, a->remote,
					a->value, p[1].nbc.id);
	return vt_evtw_rma_atomic(w, ts, a->win, a->remote, (OTF2_RmaAtomicType)r->region, a->value,
				  p[1].nbc.received, p[1].nbc.id);
}

static bool enc_rma_complete(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	uint8_t type = r->region == VT_RMA_COMPLETE_BLOCKING	  ? VT_EVTW_RMA_COMPLETE_BLOCKING
		       : r->region == VT_RMA_COMPLETE_NONBLOCKING ? VT_EVTW_RMA_COMPLETE_NONBLOCKING
								  : VT_EVTW_RMA_COMPLETE_REMOTE;
	return vt_evtw_rma_complete(w, ts, type, a->win, a->value);
}

static bool enc_rma_lock(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
			 const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	if ((r->region & 0xFF) == VT_RMA_LOCK_REQUEST)
		return vt_evtw_rma_request_lock(w, ts, a->win, a->remote, a->value,
						(OTF2_LockType)(r->region >> 8));
	return vt_evtw_rma_release_lock(w, ts, a->win, a->remote, a->value);
}

static bool enc_rma_group_sync(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return vt_evtw_rma_group_sync(w, ts, (OTF2_RmaSyncLevel)r->region, p[0].rma.win,
				      (OTF2_GroupRef)p[0].rma.value);
}

static bool enc_io(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		   const union vt_rec_payload *p)
{
	const struct vt_rec_io *a = &p[0].io;
	switch (r->kind) {
	case VT_REC_IO_CREATE:
		return vt_evtw_io_create_handle(w, ts, a->handle, (OTF2_IoAccessMode)r->region,
						(OTF2_IoCreationFlag)a->value,
						(OTF2_IoStatusFlag)a->flags);
	case VT_REC_IO_DESTROY:
		return vt_evtw_io_destroy_handle(w, ts, a->handle);
	case VT_REC_IO_BEGIN:
		return vt_evtw_io_begin(
		    w, NULL, 0, ts, a->handle, (OTF2_IoOperationMode)(r->region & 0xFF),
		    (OTF2_IoOperationFlag)(r->region >> 8), a->value, p[1].nbc.id);
	case VT_REC_IO_ISSUED:
		return vt_evtw_io_mark(w, ts, VT_EVTW_IO_ISSUED, a->handle, a->value);
	case VT_REC_IO_COMPLETE:
		return vt_evtw_io_complete(w, NULL, 0, ts, a->handle, a->value, p[1].nbc.id);
	case VT_REC_IO_CANCELLED:
		return vt_evtw_io_mark(w, ts, VT_EVTW_IO_CANCELLED, a->handle, a->value);
	case VT_REC_IO_SEEK:
		return vt_evtw_io_seek(w, ts, a->handle, (int64_t)a->value,
				       (OTF2_IoSeekOption)r->region, p[1].nbc.received);
	case VT_REC_IO_DUP:
		return vt_evtw_io_duplicate_handle(w, ts, a->handle, (OTF2_IoHandleRef)a->value,
						   (OTF2_IoStatusFlag)a->flags);
	case VT_REC_IO_STATUS:
		return vt_evtw_io_change_status(w, ts, a->handle, (OTF2_IoStatusFlag)a->flags);
	case VT_REC_IO_DELETE:
		/* POSIX's paradigm is the first one defined (defs/vt_unify_write.c); the file
		 * is named by a handle of it, which the IO_FILE mapping table maps. */
		return vt_evtw_io_delete_file(w, ts, 0, a->handle);
	default:
		return true;
	}
}

static bool enc_counter(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	return write_value(w, ts, r->region, p[0].value.value);
}

static bool enc_measure(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	return vt_evtw_measurement(w, ts, r->region ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF);
}

static bool enc_thread(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		       const union vt_rec_payload *p)
{
	const struct vt_rec_thread *t = &p[0].thread;
	switch (r->kind) {
	case VT_REC_THREAD_FORK:
		return vt_evtw_thread_fork(w, ts, (OTF2_Paradigm)t->a, r->region);
	case VT_REC_THREAD_JOIN:
		return vt_evtw_thread_join(w, ts, (OTF2_Paradigm)t->a);
	case VT_REC_THREAD_TEAM_BEGIN: {
		struct vt_enc_loc *e = enc_of(loc);
		if (e && e->n_teams < sizeof(e->teams) / sizeof(e->teams[0]))
			e->teams[e->n_teams] = r->region;
		if (e)
			e->n_teams++;
		return vt_evtw_thread_team(w, ts, true, r->region);
	}
	case VT_REC_THREAD_TEAM_END: {
		struct vt_enc_loc *e = enc_of(loc);
		if (e && e->n_teams)
			e->n_teams--;
		return vt_evtw_thread_team(w, ts, false, r->region);
	}
	case VT_REC_THREAD_ACQUIRE_LOCK:
	case VT_REC_THREAD_RELEASE_LOCK:
		return vt_evtw_thread_lock(w, ts, r->kind == VT_REC_THREAD_ACQUIRE_LOCK,
					   (OTF2_Paradigm)t->a, r->region, (uint32_t)t->value);
	case VT_REC_THREAD_TASK_CREATE:
		return vt_evtw_thread_task(w, ts, VT_EVTW_TASK_CREATE, r->region, t->a, t->b);
	case VT_REC_THREAD_TASK_SWITCH:
		return vt_evtw_thread_task(w, ts, VT_EVTW_TASK_SWITCH, r->region, t->a, t->b);
	case VT_REC_THREAD_TASK_COMPLETE:
		return vt_evtw_thread_task(w, ts, VT_EVTW_TASK_COMPLETE, r->region, t->a, t->b);
	case VT_REC_THREAD_CREATE:
		__atomic_store_n(&enc.thread_events, true, __ATOMIC_RELAXED);
		return vt_evtw_thread_seq(w, ts, VT_EVTW_THREAD_CREATE, VT_OTF2_THREAD_COMM_LOCAL,
					  t->value);
	case VT_REC_THREAD_WAIT:
		__atomic_store_n(&enc.thread_events, true, __ATOMIC_RELAXED);
		return vt_evtw_thread_seq(w, ts, VT_EVTW_THREAD_WAIT, VT_OTF2_THREAD_COMM_LOCAL,
					  t->value);
	default:
		return true;
	}
}

/*
 * A sample: its frames become calling contexts; the unwind distance says how much of the
 * stack is new since the location's last sample (OTF2's definition): the nodes below the
 * part both share, plus the deepest shared one, which made progress as far as a sample can
 * tell.
 */
static bool enc_sample(struct vt_loc *loc, struct vt_evtw *w, uint64_t ts, const struct vt_rec *r,
		       const union vt_rec_payload *p)
{
	uint32_t path[VT_REC_SAMPLE_MAX + 1], depth;
	uint32_t n = VT_REC_SAMPLE_FRAMES(r->region);
	if (n > VT_REC_SAMPLE_MAX)
		return true;
	uint32_t ctx = vt_callctx_path((const uint64_t *)(const void *)p, n,
				       r->region & VT_REC_SAMPLE_CUT, path, &depth);
	if (ctx == VT_CALLCTX_NONE)
		return true;
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return true;
	uint32_t same = 0;
	while (e->sample_path && same < depth && same < e->sample_depth &&
	       path[same] == e->sample_path[same])
		same++;
	uint32_t distance = same ? depth - same + 1 : depth;
	if (!vt_evtw_sample(w, ts, ctx, distance, 0))
		return false;
	if (!e->sample_path)
		e->sample_path = malloc((VT_REC_SAMPLE_MAX + 1) * sizeof(*e->sample_path));
	if (e->sample_path) {
		memcpy(e->sample_path, path, depth * sizeof(*path));
		e->sample_depth = depth;
	}
	return true;
}

static const encode_fn encoders[VT_REC_KIND_MAX] = {
    /* VT_REC_ENTER, VT_REC_LEAVE: in the loop below, without an indirect call. */
    [VT_REC_MPI_SEND] = enc_send,
    [VT_REC_MPI_RECV] = enc_recv,
    [VT_REC_MPI_ISEND] = enc_isend,
    [VT_REC_MPI_IRECV] = enc_irecv,
    [VT_REC_MPI_ISEND_COMPLETE] = enc_isend_complete,
    [VT_REC_MPI_IRECV_REQUEST] = enc_irecv_request,
    [VT_REC_MPI_ISEND_COMPLETE_ID32] = enc_isend_complete_id32,
    [VT_REC_MPI_IRECV_REQUEST_ID32] = enc_irecv_request_id32,
    [VT_REC_MPI_REQUEST_TEST] = enc_request_test,
    [VT_REC_MPI_REQUEST_CANCELLED] = enc_request_cancelled,
    [VT_REC_MPI_COLL_BEGIN] = enc_coll_begin,
    [VT_REC_MPI_COLL_END] = enc_coll_end,
    [VT_REC_MPI_NBC_REQUEST] = enc_nbc_request,
    [VT_REC_MPI_NBC_COMPLETE] = enc_nbc_complete,
    [VT_REC_RMA_WIN_CREATE] = enc_rma_win,
    [VT_REC_RMA_WIN_DESTROY] = enc_rma_win,
    [VT_REC_RMA_COLL_BEGIN] = enc_rma_coll_begin,
    [VT_REC_RMA_COLL_END] = enc_rma_coll_end,
    [VT_REC_RMA_PUT] = enc_rma_op,
    [VT_REC_RMA_GET] = enc_rma_op,
    [VT_REC_RMA_ATOMIC] = enc_rma_op,
    [VT_REC_RMA_COMPLETE] = enc_rma_complete,
    [VT_REC_RMA_LOCK] = enc_rma_lock,
    [VT_REC_RMA_GROUP_SYNC] = enc_rma_group_sync,
    [VT_REC_IO_CREATE] = enc_io,
    [VT_REC_IO_DESTROY] = enc_io,
    [VT_REC_IO_BEGIN] = enc_io,
    [VT_REC_IO_ISSUED] = enc_io,
    [VT_REC_IO_COMPLETE] = enc_io,
    [VT_REC_IO_CANCELLED] = enc_io,
    [VT_REC_IO_SEEK] = enc_io,
    [VT_REC_IO_DUP] = enc_io,
    [VT_REC_IO_STATUS] = enc_io,
    [VT_REC_IO_DELETE] = enc_io,
    [VT_REC_COUNTER] = enc_counter,
    [VT_REC_MEASURE] = enc_measure,
    [VT_REC_SAMPLE] = enc_sample,
    [VT_REC_THREAD_FORK] = enc_thread,
    [VT_REC_THREAD_JOIN] = enc_thread,
    [VT_REC_THREAD_TEAM_BEGIN] = enc_thread,
    [VT_REC_THREAD_TEAM_END] = enc_thread,
    [VT_REC_THREAD_ACQUIRE_LOCK] = enc_thread,
    [VT_REC_THREAD_RELEASE_LOCK] = enc_thread,
    [VT_REC_THREAD_TASK_CREATE] = enc_thread,
    [VT_REC_THREAD_TASK_SWITCH] = enc_thread,
    [VT_REC_THREAD_TASK_COMPLETE] = enc_thread,
    [VT_REC_THREAD_CREATE] = enc_thread,
    [VT_REC_THREAD_WAIT] = enc_thread,
    /* VT_REC_THREAD_BEGIN: in the loop below, before the location's first event. */
    /* VT_REC_METRIC: in the loop below, at the time of the event before it. */
};

static void encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to);

/* The writer writes into the event file while it encodes: the program's close or dup2 of the
 * file's descriptor waits for that (interpose/vt_own_fds.h). */
void vt_otf2_encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to)
{
	vt_own_fds_write_begin();
	encode(loc, from, to);
	vt_own_fds_write_end();
}

static void encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to)
{
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return;
	struct vt_evtw *w = writer_of(loc, e);
	struct vt_stack *s = vt_stack_of(loc->index);
	uint64_t last = e->last_ts;

	if (!w || !s)
		return;
	if (!e->began && from < to && from->kind == VT_REC_THREAD_BEGIN && from + 1 < to) {
		/* The thread's creator gave it its sequence number (interpose/vt_pthread.c). */
		e->seq = ((const struct vt_rec_thread *)(from + 1))->value;
		e->seq_set = true;
	}
	if (!e->began)
		begin(loc, e, from->ts);
	for (const struct vt_rec *r = from; r < to && !vt_otf2_failed(); r++) {
		unsigned kind = r->kind;
		/* Records are in the order they happened; a clock that steps back is clamped
		 * (a metric value has no time of its own: its event's is used). */
		uint64_t ts = r->ts > last ? r->ts : last;
		/* Enter and Leave, by far the most; the values that follow are theirs. */
		if (vt_likely(kind == VT_REC_ENTER || kind == VT_REC_LEAVE)) {
			uint32_t id = r->region & VT_REGION_ID_MASK;
			last = ts;
			e->n_strict = 0;
			e->last_recorded =
			    kind == VT_REC_ENTER ? enter(s, w, ts, id) : leave(e, s, ts, id);
			continue;
		}
		if (kind == VT_REC_METRIC) {
			/* The values of the Enter or Leave before them (they follow it in one
			 * reservation), at its time: none if that event was not written (a call
			 * limit). They are kept for the Leaves vt writes itself. */
			uint32_t first = e->n_strict;
			for (; r < to && r->kind == VT_REC_METRIC; r++) {
				const struct vt_rec_metric *m = (const struct vt_rec_metric *)r;
				keep_strict(e, m->metric, m->value);
			}
			r--;
			if (e->last_recorded && e->n_strict > first)
				write_values(e, last, e->strict + first, e->n_strict - first);
			continue;
		}
		last = ts;
		if (r->kind == VT_REC_ENTER_BEFORE && r + 1 < to) {
			e->n_strict = 0;
			e->last_recorded =
			    enter_before(s, w, ts, r->region & VT_REGION_ID_MASK, (r + 1)->ts);
			r++;
			continue;
		}
		if (r->kind == VT_REC_IO_OP_BEGIN || r->kind == VT_REC_IO_OP_END) {
			unsigned n = vt_rec_payloads(r);
			if (r + n >= to ||
			    !posix_op(e, s, &last, r, (const union vt_rec_payload *)(r + 1)))
				break;
			r += n;
			continue;
		}
		unsigned n = vt_rec_payloads(r);
		if (r + n < to && r->kind < VT_REC_KIND_MAX && encoders[r->kind] &&
		    !encoders[r->kind](loc, w, ts, r, (const union vt_rec_payload *)(r + 1)))
			break;
		r += n;
	}
	e->last_ts = last;
}

void vt_otf2_buffer_flush(struct vt_loc *loc, uint64_t start, uint64_t stop)
{
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return;
	if (start < e->last_ts)
		start = e->last_ts;
	if (stop < start)
		stop = start;
	if (writer_of(loc, e))
		vt_evtw_buffer_flush(e->writer, start, stop);
	e->last_ts = stop;
}

void vt_otf2_loc_stop(struct vt_loc *loc, uint64_t ts)
{
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return;
	if (ts < e->last_ts)
		ts = e->last_ts;
	struct vt_stack *s = vt_stack_of(loc->index);
	if (!writer_of(loc, e) || !s)
		return;
	if (unwind(e, s, 0, ts))
		vt_evtw_measurement(e->writer, ts, OTF2_MEASUREMENT_OFF);
	e->last_ts = ts;
}

static void loc_close(struct vt_loc *loc, uint64_t ts);

void vt_otf2_loc_close(struct vt_loc *loc, uint64_t ts)
{
	vt_own_fds_write_begin();
	loc_close(loc, ts);
	vt_own_fds_write_end();
}

static void loc_close(struct vt_loc *loc, uint64_t ts)
{
	struct vt_enc_loc *e = enc_of(loc);
	if (!e)
		return;
	struct vt_stack *s = vt_stack_of(loc->index);
	OTF2_Archive *archive = vt_otf2_archive();
	if (!writer_of(loc, e)) {
		/* After a failed write nothing more is written: the events are those the file
		 * holds, cut to its whole chunks. */
		if (e->writer)
			vt_otf2_evt_close(e->writer, &e->n_events);
		else if (vt_otf2_failed() && archive)
			e->n_events = vt_otf2_events_on_disk(loc->ref);
		e->writer = NULL;
		goto out;
	}
	if (ts < e->last_ts)
		ts = e->last_ts;
	if (!e->began)
		begin(loc, e, ts);
	bool open = !s || unwind(e, s, 0, ts);
	/* OpenMP's runtime reports the end of a worker's last team only when it gives the
	 * worker more work: the teams still open end with the location. */
	for (; open && e->n_teams; e->n_teams--)
		if (e->n_teams <= sizeof(e->teams) / sizeof(e->teams[0]))
			open = vt_evtw_thread_team(e->writer, ts, false, e->teams[e->n_teams - 1]);
	if (open && loc->index > 0)
		vt_evtw_thread_seq(e->writer, ts, VT_EVTW_THREAD_END, VT_OTF2_THREAD_COMM_LOCAL,
				   seq_of(loc, e));
	e->last_ts = ts;
	if (s && s->repaired)
		vt_info("thread %u: %lu Leave events added or dropped to keep regions balanced",
			loc->index, (unsigned long)s->repaired);
	/* A writer whose descriptor the program took is not closed: that would write into the
	 * program's file and close it; its file is cut to the chunks it holds. */
	vt_otf2_evt_close(e->writer, &e->n_events);
	e->writer = NULL;
out:
	if (s)
		vt_stack_release(s);
	free(e->sample_path);
	e->sample_path = NULL;
	free(e->strict);
	e->strict = NULL;
	e->n_strict = e->cap_strict = 0;
}

bool vt_otf2_thread_events(void)
{
	return __atomic_load_n(&enc.thread_events, __ATOMIC_RELAXED);
}
