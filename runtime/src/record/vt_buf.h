/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-thread event buffer: hot thread state and the one reservation API every producer uses. */
#ifndef VT_BUF_H
#define VT_BUF_H

#include "base/vt_compiler.h"
#include "record/vt_rec.h"

#include <x86intrin.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Records that producers interrupted by a signal handler keep aside (per thread), in
 * VT_BUF_SIDE_SEGS segments that never move: the first, VT_BUF_SIDE records, in the buffer's
 * mapping; each further one twice as large as the one before, mapped by the first handler
 * that needs it (a system call: no lock, no malloc, safe in a handler) and kept until the
 * thread ends. A thread that waits long for the writer while handlers keep coming (a loaded
 * machine starves the writer) so keeps up to VT_BUF_SIDE_MAX records aside (8 MiB, 43 s of
 * a 500 us timer's handler that records three calls); a handler that records more loses the
 * rest, counted, reported and marked in the trace (vt_buf.c).
 */
#define VT_BUF_SIDE	 512
#define VT_BUF_SIDE_SEGS 10
#define VT_BUF_SIDE_MAX	 (VT_BUF_SIDE * ((1u << VT_BUF_SIDE_SEGS) - 1))

struct vt_loc;
struct vt_metric_sync_set;

/*
 * The hot part of a thread's state, in initial-exec TLS: reached without a function call.
 *
 * Producers never lock. Signal safety rests on `nest`: a producer sets it before it reads
 * pos and clears it after it has published, so a signal handler that records on the same
 * thread in between sees it and writes its events to the side area instead of the buffer
 * (where the interrupted producer is about to write). The interrupted producer appends the
 * side area after its own event when it commits. nest changes symmetrically (a handler
 * restores what it found), so plain loads and stores are enough; the side area's claims are
 * atomic read-modify-writes because handlers can nest.
 */
struct vt_tls {
	struct vt_rec *pos; /* next free record; NULL: not recording (new, off, done) */
	struct vt_rec *end; /* end of the half being filled */
	/* Synchronous counters of this thread, read at each of its events; NULL: none. */
	struct vt_metric_sync_set *sync;
	long depth;
	struct vt_loc *loc;
	int state;	       /* enum vt_tls_state */
	int busy;	       /* enum vt_busy: inside vt's slow path or foreign code */
	uint32_t nest;	       /* producers between reserve and commit on this thread */
	uint32_t side_n;       /* records claimed in the side area (its segments in a row) */
	struct vt_rec *paused; /* PAUSED: where pos was (written under the location's lock) */
	/* The side area's segments: [0] in the buffer's mapping, the others mapped when first
	 * claimed; NULL: not (yet) mapped, or [0] NULL: the thread records nothing aside. */
	struct vt_rec *side[VT_BUF_SIDE_SEGS];
	/* When a handler's record was first lost since the side area was last drained (0:
	 * none): the drain marks the gap in the trace. */
	uint64_t side_lost;
	/* vt-ctl off, armed by the control signal's handler between two producers
	 * (record/vt_thread.c): end was set to pos, so that the next event takes the slow path,
	 * which pauses the thread there. ctl_end: the half's real end; ctl_ts: when recording
	 * went off. Only the thread and its handlers touch them. ctl_lifted: armed, and the
	 * thread writes the end of an operation it was blocked in first (vt_thread_ctl_lift). */
	uint32_t ctl_armed;
	uint32_t ctl_lifted;
	struct vt_rec *ctl_end;
	uint64_t ctl_ts;
};

/*
 * busy: FOREIGN, code that is not the program's may run on the thread (a plugin's, vt's
 * initialisation): its events are dropped and counted. OWN, only vt's own, uninstrumented
 * code runs (a flush's hand-over): an event now comes from a signal handler of the program
 * that interrupted it, and goes to the side area like any nested producer's.
 */
enum vt_busy { VT_BUSY_NO = 0, VT_BUSY_FOREIGN = 1, VT_BUSY_OWN = 2 };

/* PAUSED: the program switched recording off on this thread (user API, perfstubs); pos is
 * NULL, so events take the slow path, which answers at once. */
enum vt_tls_state { VT_TLS_NEW = 0, VT_TLS_ON, VT_TLS_OFF, VT_TLS_PAUSED };

extern __thread struct vt_tls vt_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Orders the thread's own accesses against a signal handler on it; emits no instruction. */
#define vt_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Slow paths of the reservation (vt_buf.c). reserve_slow: the current half has no room for
 * n records (or the thread does not record); flushes, returns room or NULL (nothing may be
 * written; nest is cleared). reserve_nested: inside another producer; room in the side area
 * or NULL (counted). drain: appends the side area to the buffer. */
struct vt_rec *vt_buf_reserve_slow(struct vt_tls *t, unsigned n);
struct vt_rec *vt_buf_reserve_nested(struct vt_tls *t, unsigned n);
void vt_buf_drain(struct vt_tls *t);

/* A one-record event stamped with the clock in force, through reserve and commit. */
void vt_buf_put_slow(struct vt_tls *t, uint32_t region, uint32_t kind);

/* Records in one half of a buffer of VT_BUFFER_SIZE bytes: the largest event that fits. */
size_t vt_buf_half_records(uint64_t buffer_size);
/* A location's buffer (two halves and the side area): mapped, or a spare one of an ended
 * thread; given back (kept as a spare when keep); in a forked child. */
size_t vt_buf_bytes(void);
struct vt_rec *vt_buf_take(void);
void vt_buf_give_back(struct vt_rec *buf, bool keep);
void vt_buf_forked(void);
/* The writer faults in a location's half before its thread first fills it (vt_buf.c). */
struct vt_loc;
void vt_buf_prefault(struct vt_loc *loc, struct vt_rec *half);

/*
 * Reserves n contiguous records (an event: head and payload) in the thread's buffer, flushing
 * a full half first; NULL when the thread does not record (nothing to do then). The caller
 * takes the timestamp after this call, so a flush never carries a later time than the event
 * after it, writes the records and then calls vt_buf_commit(). n must not exceed the records
 * of half a buffer (checked against the configuration where an event's size is chosen).
 */
static inline __attribute__((always_inline)) struct vt_rec *vt_buf_reserve(struct vt_tls *t,
									   unsigned n)
{
	if (vt_unlikely(t->nest))
		return vt_buf_reserve_nested(t, n);
	t->nest = 1;
	vt_signal_fence();
	struct vt_rec *p = t->pos;
	if (vt_unlikely(!p || (size_t)(t->end - p) < n))
		return vt_buf_reserve_slow(t, n);
	return p;
}

/* vt_buf_reserve's common case alone, for callers whose other cases are out of line: room
 * for n records in the current half, for an outermost producer; else NULL, nothing reserved
 * and nothing changed. */
static inline __attribute__((always_inline)) struct vt_rec *vt_buf_reserve_fast(struct vt_tls *t,
										unsigned n)
{
	if (vt_unlikely(t->nest))
		return NULL;
	t->nest = 1;
	vt_signal_fence();
	struct vt_rec *p = t->pos;
	if (vt_unlikely(!p || (size_t)(t->end - p) < n)) {
		vt_signal_fence();
		t->nest = 0;
		return NULL;
	}
	return p;
}

/* Publishes the n records written at p (from vt_buf_reserve), and whatever a signal handler
 * recorded meanwhile after them. */
static inline __attribute__((always_inline)) void vt_buf_commit(struct vt_tls *t, struct vt_rec *p,
								unsigned n)
{
	if (vt_unlikely(t->nest != 1)) {
		t->nest--;
		return;
	}
	/* Release: a finalising thread that reads pos sees complete records below it. */
	__atomic_store_n(&t->pos, p + n, __ATOMIC_RELEASE);
	vt_signal_fence();
	t->nest = 0;
	vt_signal_fence();
	if (vt_unlikely(__atomic_load_n(&t->side_n, __ATOMIC_RELAXED)))
		vt_buf_drain(t);
}

/*
 * The fast paths' one-record event, stamped with the TSC (callers have checked that it is
 * the clock): vt_buf_reserve and vt_buf_commit for the common case, an outermost producer
 * with room, and every other case handed to vt_buf_put_slow as a tail call, so that the
 * caller needs no stack frame.
 */
static inline __attribute__((always_inline)) void vt_buf_put_tsc(struct vt_tls *t, uint32_t region,
								 uint32_t kind)
{
	if (vt_unlikely(t->nest))
		return vt_buf_put_slow(t, region, kind);
	t->nest = 1;
	vt_signal_fence();
	struct vt_rec *p = t->pos;
	if (vt_unlikely(p == t->end)) {
		vt_signal_fence();
		t->nest = 0;
		return vt_buf_put_slow(t, region, kind);
	}
	p->ts = __rdtsc();
	p->region = region;
	p->kind = kind;
	__atomic_store_n(&t->pos, p + 1, __ATOMIC_RELEASE);
	vt_signal_fence();
	t->nest = 0;
	vt_signal_fence();
	if (vt_unlikely(__atomic_load_n(&t->side_n, __ATOMIC_RELAXED)))
		return vt_buf_drain(t);
}

#endif
