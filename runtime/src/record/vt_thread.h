/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread state: the raw event buffer, the hot-path record functions, locations. */
#ifndef VT_THREAD_H
#define VT_THREAD_H

#include "base/vt_clock.h"
#include "record/vt_buf.h"
#include "regions/vt_region.h"
#include "vt/vt_inst.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A location: the lasting state of one thread. It outlives the thread (its TLS does not)
 * and is only touched under its lock, except buf, which the owning thread fills.
 */
struct vt_loc {
	pthread_mutex_t lock;
	uint32_t index;		      /* 0: the thread that initialised vt */
	uint64_t ref;		      /* OTF2 location id */
	struct vt_rec *buf, *buf_end; /* the half being filled */
	struct vt_rec *halves[2];
	/* A full half waiting for the writer (to != NULL); records before the current half's. */
	struct {
		struct vt_rec *from, *to;
		uint64_t t0, t1; /* when it was handed over, when the thread went on */
		bool stop;	 /* VT_MAX_FLUSHES reached: recording ends after it */
	} pending;
	pthread_cond_t written; /* pending was written */
	struct vt_loc *queue_next;
	/* The half the thread fills next, never filled yet: the writer faults its pages in
	 * before it writes the pending one (set at the first hand-over, cleared by the writer). */
	struct vt_rec *prefault;
	struct vt_tls *tls; /* owner's TLS while it lives; NULL after its exit */
	long flushes;
	bool done;	     /* closed: nothing more is encoded */
	bool stopped;	     /* VT_MAX_FLUSHES reached, or the buffer filled before MPI_Init */
	struct vt_rec *held; /* stopped before MPI_Init: the current half's end, kept for later */
	uint64_t dropped;    /* events not recorded: made inside vt or a plugin, or too many in a
				signal handler (vt_buf.c) */
	uint64_t end_at;     /* 0, or when its thread's last work ended (vt_thread_end_at) */
	/* VT_MODE=ring: its halves and more, kept (record/vt_ring.h). */
	struct vt_ring *ring;
	int tid; /* the kernel's id of its thread (the control channel signals it) */
	int ctl; /* enum vt_ctl_follow: how the thread follows vt-ctl's off (atomic) */
	struct vt_loc *next;
};

/*
 * Where a location's records go, and who hears of its thread: the record layer hands
 * "location, records" on and knows nothing above it. The lifecycle connects both before
 * the first location (the archive's encoders as the sink, the subsystems' phases as the
 * hooks). Every sink function is called with loc->lock held (or before the location is
 * shared); the hooks run on the location's thread, with errno saved by the caller.
 */
struct vt_loc_sink {
	bool (*ready)(void);  /* the archive is open (in MPI mode: from MPI_Init on) */
	bool (*failed)(void); /* a write of the trace failed: recording stops for the run */
	int (*open)(struct vt_loc *loc);
	void (*encode)(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to);
	/* A half was handed over at start and the thread went on at stop (a BufferFlush). */
	void (*flushed)(struct vt_loc *loc, uint64_t start, uint64_t stop);
	/* Recording stops: open regions are left at ts and a MeasurementOnOff(off) marks it. */
	void (*stop)(struct vt_loc *loc, uint64_t ts);
	/* The end of a location: open regions are left at ts, the writer is closed. */
	void (*close)(struct vt_loc *loc, uint64_t ts);
};

struct vt_thread_hooks {
	void (*init)(void);   /* the process's first event comes before vt started: start it */
	bool (*is_own)(void); /* a new thread belongs to a subsystem: never recorded */
	void (*begin)(struct vt_tls *t, struct vt_loc *loc);
	void (*flush)(struct vt_loc *loc); /* the owner's buffer was flushed, on its thread */
	void (*end)(struct vt_tls *t, struct vt_loc *loc);
};

void vt_thread_connect(const struct vt_loc_sink *sink, const struct vt_thread_hooks *hooks);

/* LONG_MAX when VT_MAX_STACK_DEPTH is unlimited. Written at init. */
extern long vt_max_depth __attribute__((visibility("hidden")));

/* Slow path of a thread's first event (and of events while off): true when recording. */
bool vt_thread_begin(struct vt_tls *t);
/* The same for a thread its creator numbered (seq > 0: a VT_REC_THREAD_BEGIN carrying it
 * is the location's first record); seq 0 is vt_thread_begin. */
bool vt_thread_begin_seq(struct vt_tls *t, uint64_t seq);

/* Slow path of a full buffer: encodes it, returns the next free record or NULL. */
struct vt_rec *vt_thread_flush(struct vt_tls *t);

/*
 * Writes an event of 1 + n records (head: now, head value, kind; then the payload), all in
 * one half of the buffer, and publishes them together. Not the hot path of enter/exit.
 */
void vt_thread_put_event(struct vt_tls *t, uint32_t head, uint32_t kind,
			 const union vt_rec_payload *payload, unsigned n);

/* The same, stamped ts (taken before by the caller; never later than now). */
void vt_thread_put_event_at(struct vt_tls *t, uint64_t ts, uint32_t head, uint32_t kind,
			    const union vt_rec_payload *payload, unsigned n);

/* Two events in one reservation: the first (head0, kind0; no payload) stamped ts0, the
 * second (head1, kind1, then payload) now. A call's Begin and End (MPI collectives): one
 * reservation, one clock read. */
void vt_thread_put_pair(struct vt_tls *t, uint64_t ts0, uint32_t head0, uint32_t kind0,
			uint32_t head1, uint32_t kind1, const union vt_rec_payload *payload,
			unsigned n);

/* Writes a one-record event stamped with the clock in force. */
static inline __attribute__((always_inline)) void vt_thread_put(struct vt_tls *t, uint32_t region,
								uint32_t kind)
{
	struct vt_rec *p = vt_buf_reserve(t, 1);
	if (vt_unlikely(!p))
		return;
	p->ts = vt_clock_now();
	p->region = region;
	p->kind = kind;
	vt_buf_commit(t, p, 1);
}

/* An Enter or Leave followed by the thread's synchronous counter values (vt_metric.c). */
void vt_metric_put(struct vt_tls *t, uint32_t val, uint32_t kind);

static inline __attribute__((always_inline)) void vt_thread_enter(struct vt_tls *t, uint32_t val)
{
	if (vt_unlikely(val & VT_REGION_FILTERED))
		return;
	if (vt_unlikely(++t->depth > vt_max_depth))
		return;
	if (vt_unlikely(t->sync))
		return vt_metric_put(t, val, VT_REC_ENTER);
	vt_thread_put(t, val, VT_REC_ENTER);
}

static inline __attribute__((always_inline)) void vt_thread_leave(struct vt_tls *t, uint32_t val)
{
	if (vt_unlikely(val & VT_REGION_FILTERED))
		return;
	if (vt_unlikely(t->depth-- > vt_max_depth))
		return;
	if (vt_unlikely(t->sync))
		return vt_metric_put(t, val, VT_REC_LEAVE);
	vt_thread_put(t, val, VT_REC_LEAVE);
}

/*
 * The common tail of the fast paths (compinst, descriptors), once they have the region's
 * value and know the TSC is the clock: the filter test, the depth limit, then the event
 * with the thread's synchronous counter values, or alone.
 */
static inline __attribute__((always_inline)) void vt_thread_event_tsc(struct vt_tls *t,
								      uint32_t val, uint32_t kind)
{
	if (vt_unlikely(val & VT_REGION_FILTERED))
		return;
	if (kind == VT_REC_ENTER) {
		if (vt_unlikely(++t->depth > vt_max_depth))
			return;
	} else {
		if (vt_unlikely(t->depth-- > vt_max_depth))
			return;
	}
	/* A thread with synchronous counters: the event and their values together. */
	if (vt_unlikely(t->sync))
		return vt_metric_put(t, val, kind);
	vt_buf_put_tsc(t, val, kind);
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

/* The program switches recording off and on again on its thread (user API, perfstubs): the
 * trace gets MeasurementOnOff events, and the events between are not recorded. */
void vt_thread_pause(struct vt_tls *t);
void vt_thread_resume(struct vt_tls *t);

/*
 * Recording switched from outside (vt-ctl off/on, lifecycle/vt_ctl.c): only a thread may
 * change its own buffer position, so the control thread sets the wish and signals each
 * live thread until it follows; the thread's handler follows between two producers. A
 * thread that starts while the wish is "off" starts paused.
 */
enum vt_ctl_follow {
	VT_CTL_FOLLOW_ON = 0, /* recording as usual (or as the program switched it) */
	VT_CTL_FOLLOW_PAUSED, /* paused by vt-ctl off: vt-ctl on resumes it */
	VT_CTL_FOLLOW_IDLE,   /* off acknowledged, but it was not recording then */
};
/* Sets the process's wish (off: true). */
void vt_thread_ctl_set(bool off);
/* Signals (tgkill, sig) every live thread that does not follow the wish yet; the number
 * signalled (0: every thread follows). total: the live threads. */
int vt_thread_ctl_nudge(int sig, int *total);
/* In the handler of the control signal, on the signalled thread: follows the wish if the
 * thread is between producers, else leaves it to the next nudge. Off arms the slow path
 * (the thread pauses at its next event; one that makes none records nothing anyway); on
 * disarms it or resumes a paused thread. Async-signal-safe (a trylock, no wait, no
 * allocation). */
void vt_thread_ctl_follow(void);
/* Whether the wish is "off". */
bool vt_thread_ctl_off(void);
/* The thread's first event since its handler armed "off" (vt_buf.c's slow path, inside the
 * producer): the thread pauses, its OFF marker stamped when it was armed. */
void vt_thread_ctl_pause_armed(struct vt_tls *t);
/*
 * An operation the thread was blocked in when its handler armed "off" (a read on a pipe)
 * ends: its end is recorded before the pause. Lift disarms the thread (false: it was not
 * armed, nothing changed) and keeps its handlers from following the wish; the caller writes
 * the end's records, then vt_thread_ctl_land follows the wish again (off: armed anew, the OFF
 * marker stamped then, after the end). Never inside a producer or a signal handler.
 */
bool vt_thread_ctl_lift(struct vt_tls *t);
void vt_thread_ctl_land(struct vt_tls *t);

/* From a signal handler whose thread has no room: hands the full half to the background
 * writer if that needs neither waiting nor allocation; the next free record or NULL. */
struct vt_rec *vt_thread_flush_signal(struct vt_tls *t);

/* Starts the background writer now (sampling: handlers can only hand over to a running one). */
void vt_thread_writer_start(void);

/* Hands the thread's filled records to the writer now (user API, perfstubs dump). */
void vt_thread_flush_now(struct vt_tls *t);

/* The location's thread did nothing after ts (a worker an OpenMP runtime keeps parked):
 * at finalize its open regions end and it closes there rather than at the trace's end.
 * Before vt_thread_finalize (a subsystem's stop hook). */
void vt_thread_end_at(struct vt_loc *loc, uint64_t ts);

/* Init/finalize hooks of the module (see vt_core.c). */
void vt_thread_init(void);
/* Encodes what every location still holds and closes it; returns the list. */
struct vt_loc *vt_thread_finalize(uint64_t end_ts);
/* Ring mode: the latest time a location's window starts at, of those whose records left
 * their ring (0: none did); the halves that left are replayed first. */
uint64_t vt_thread_ring_start(void);
/* Ring mode: fn for each location's ring, with where its current half ends, under its lock,
 * in the order of the locations. */
struct vt_ring;
void vt_thread_each_ring(void (*fn)(void *arg, struct vt_ring *g, struct vt_rec *upto), void *arg);
uint32_t vt_thread_count(void);

/* Ring mode's snapshot: every location's lock taken (hold true), so that no ring turns
 * while the process forks, and given back (false; in the forked child too, whose one thread
 * is the one that took them). */
void vt_thread_hold_all(bool hold);

/* In a process forked to write a snapshot: vt's writer thread, if any, is not in it. */
void vt_thread_forked(void);

/* MPI mode: the archive exists now; writes what waited for it. */
void vt_thread_archive_ready(void);

/* vt could not start after all (MPI mode): every location stops at its next flush. */
void vt_thread_switch_off(void);

/* vt's own work on the program's thread (definitions: they allocate), marked busy so that
 * the memory counters and the interposed calls leave it out; the expression's value. */
#define VT_OWN_WORK(expr)                                                                          \
	({                                                                                         \
		int busy_ = vt_tls.busy;                                                           \
		vt_tls.busy = VT_BUSY_OWN;                                                         \
		__typeof__(expr) r_ = (expr);                                                      \
		vt_tls.busy = busy_;                                                               \
		r_;                                                                                \
	})

/* The region of a descriptor of vt's own (interposed I/O, stdio, allocation calls),
 * registered as vt's own work at its first use, errno kept. */
uint32_t vt_thread_desc_register(struct vt_inst_desc *d);
static inline __attribute__((always_inline)) uint32_t vt_thread_desc_region(struct vt_inst_desc *d)
{
	uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!h, 0))
		h = vt_thread_desc_register(d);
	return h - 1;
}

#endif
