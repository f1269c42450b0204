/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread state: the raw event buffer, the hot-path record functions, locations. */
#ifndef VT_THREAD_H
#define VT_THREAD_H

#include "vt_clock.h"
#include "vt_region.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define vt_likely(x) __builtin_expect(!!(x), 1)
#define vt_unlikely(x) __builtin_expect(!!(x), 0)

/*
 * Record kinds. Enter and Leave are one record; the MPI kinds carry 1 or 2 payload records
 * after the head record (vt_rec_payloads), whose fields are reused as payload.
 */
enum vt_rec_kind {
	VT_REC_ENTER = 1, /* region */
	VT_REC_LEAVE, /* region */
	VT_REC_MPI_SEND, /* region: peer; +1: ts bytes, region comm, kind tag */
	VT_REC_MPI_RECV, /* as MPI_SEND */
	VT_REC_MPI_ISEND, /* as MPI_SEND; +2: ts request id */
	VT_REC_MPI_IRECV, /* as MPI_ISEND */
	VT_REC_MPI_ISEND_COMPLETE, /* +1: ts request id */
	VT_REC_MPI_IRECV_REQUEST, /* +1: ts request id */
	VT_REC_MPI_REQUEST_TEST, /* +1: ts request id */
	VT_REC_MPI_REQUEST_CANCELLED, /* +1: ts request id */
	VT_REC_MPI_COLL_BEGIN, /* no payload */
	VT_REC_MPI_COLL_END, /* region: op; +1: ts bytes sent, region comm, kind root; +2: ts
				bytes received */
	VT_REC_METRIC, /* ts: the value, region: the metric; at the preceding event's time */
	VT_REC_KIND_MAX,
};

/* The raw record: encoded to OTF2 at flush time, off the hot path. */
struct vt_rec {
	uint64_t ts;
	uint32_t region;
	uint32_t kind;
};

/* Payload records that follow a head record of each kind. */
static inline unsigned vt_rec_payloads(uint32_t kind)
{
	switch (kind) {
	case VT_REC_MPI_SEND:
	case VT_REC_MPI_RECV:
	case VT_REC_MPI_ISEND_COMPLETE:
	case VT_REC_MPI_IRECV_REQUEST:
	case VT_REC_MPI_REQUEST_TEST:
	case VT_REC_MPI_REQUEST_CANCELLED:
		return 1;
	case VT_REC_MPI_ISEND:
	case VT_REC_MPI_IRECV:
	case VT_REC_MPI_COLL_END:
		return 2;
	default:
		return 0;
	}
}

struct vt_open_region {
	uint32_t region;
	bool recorded; /* false: dropped by a call limit, so its Leave is dropped too */
};

/*
 * A location: the lasting state of one thread. It outlives the thread (its TLS does not)
 * and is only touched under its lock, except buf, which the owning thread fills.
 */
struct vt_loc {
	pthread_mutex_t lock;
	uint32_t index; /* 0: the thread that initialised vt */
	uint64_t ref; /* OTF2 location id */
	struct vt_rec *buf, *buf_end; /* the half being filled */
	struct vt_rec *halves[2];
	/* A full half waiting for the writer (to != NULL); records before the current half's. */
	struct {
		struct vt_rec *from, *to;
		uint64_t t0, t1; /* when it was handed over, when the thread went on */
		bool stop; /* VT_MAX_FLUSHES reached: recording ends after it */
	} pending;
	pthread_cond_t written; /* pending was written */
	struct vt_loc *queue_next;
	struct vt_tls *tls; /* owner's TLS while it lives; NULL after its exit */
	long flushes;
	bool done; /* closed: nothing more is encoded */
	bool stopped; /* VT_MAX_FLUSHES reached, or the buffer filled before MPI_Init */
	struct vt_rec *held; /* stopped before MPI_Init: the current half's end, kept for later */
	uint64_t dropped; /* events lost by re-entry during a flush */
	/* encoder state */
	void *writer; /* OTF2_EvtWriter */
	uint64_t last_ts, first_ts, n_events;
	bool began;
	struct vt_open_region *stack;
	size_t depth, cap;
	uint64_t repaired; /* Leaves added or dropped to keep the stack balanced */
	bool last_recorded; /* the last Enter/Leave was written: its metric values follow */
	struct vt_plugin_loc *plugins; /* counters added here (vt_plugin.c), or NULL */
	struct vt_loc *next;
};

/* The hot part, in initial-exec TLS: reached without a function call. */
struct vt_tls {
	struct vt_rec *pos; /* next free record; NULL: not recording (new, off, done) */
	struct vt_rec *end;
	/* Synchronous plugin counters of this thread, read at each event; NULL: none. */
	struct vt_plugin_sync_set *sync;
	long depth;
	struct vt_loc *loc;
	int state; /* enum vt_tls_state */
	int busy; /* inside a slow path: no re-entry */
};

enum vt_tls_state { VT_TLS_NEW = 0, VT_TLS_ON, VT_TLS_OFF };

extern __thread struct vt_tls vt_tls
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* LONG_MAX when VT_MAX_STACK_DEPTH is unlimited. Written at init. */
extern long vt_max_depth __attribute__((visibility("hidden")));

/* Slow path of a thread's first event (and of events while off): true when recording. */
bool vt_thread_begin(struct vt_tls *t);

/* Slow path of a full buffer: encodes it, returns the next free record or NULL. */
struct vt_rec *vt_thread_flush(struct vt_tls *t);

/*
 * Writes an event of 1 + n records (head: now, region, kind; then the payload), all in one
 * half of the buffer, and publishes them together. Not the hot path of enter/exit.
 */
void vt_thread_put_event(struct vt_tls *t, uint32_t head, uint32_t kind,
			 const struct vt_rec *payload, unsigned n);

/* Writes one record; the caller has made sure the thread is recording (t->pos != NULL). */
static inline __attribute__((always_inline)) void vt_thread_put(struct vt_tls *t, uint32_t region,
								 uint32_t kind)
{
	struct vt_rec *p = t->pos;
	if (vt_unlikely(p == t->end)) {
		p = vt_thread_flush(t);
		if (!p)
			return;
	}
	/* After the flush check: a flush must not carry a later time than what follows it. */
	p->ts = vt_clock_now();
	p->region = region;
	p->kind = kind;
	/* Release: a finalising thread that reads pos sees complete records below it. */
	__atomic_store_n(&t->pos, p + 1, __ATOMIC_RELEASE);
}

/* An Enter or Leave followed by the thread's synchronous counter values (vt_plugin.c). */
void vt_plugin_put(struct vt_tls *t, uint32_t val, uint32_t kind);

static inline __attribute__((always_inline)) void vt_thread_enter(struct vt_tls *t, uint32_t val)
{
	if (vt_unlikely(val & VT_REGION_FILTERED))
		return;
	if (vt_unlikely(++t->depth > vt_max_depth))
		return;
	if (vt_unlikely(t->sync))
		return vt_plugin_put(t, val, VT_REC_ENTER);
	vt_thread_put(t, val, VT_REC_ENTER);
}

static inline __attribute__((always_inline)) void vt_thread_leave(struct vt_tls *t, uint32_t val)
{
	if (vt_unlikely(val & VT_REGION_FILTERED))
		return;
	if (vt_unlikely(t->depth-- > vt_max_depth))
		return;
	if (vt_unlikely(t->sync))
		return vt_plugin_put(t, val, VT_REC_LEAVE);
	vt_thread_put(t, val, VT_REC_LEAVE);
}

/* The calling thread's state, recording or not (NULL: not recording). */
static inline __attribute__((always_inline)) struct vt_tls *vt_thread_self(void)
{
	struct vt_tls *t = &vt_tls;
	if (vt_likely(t->pos))
		return t;
	/* Off (VT_ON=no, stopped, vt's own thread): answered here, without a call. */
	if (t->state == VT_TLS_OFF || !vt_thread_begin(t))
		return NULL;
	return t;
}

/* Init/finalize hooks of the module (see vt_core.c). */
void vt_thread_init(void);
/* Encodes what every location still holds and closes it; returns the list. */
struct vt_loc *vt_thread_finalize(uint64_t end_ts);
uint32_t vt_thread_count(void);

/* MPI mode: the archive exists now; writes what waited for it. */
void vt_thread_archive_ready(void);

/* vt could not start after all (MPI mode): every location stops at its next flush. */
void vt_thread_switch_off(void);

#endif
