/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread state: first-event set-up, buffer flushes, recording stops, thread exit, finalize. */
#include "record/vt_thread.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "base/vt_sys.h"
#include "interpose/vt_interpose.h"
#include "interpose/vt_own_fds.h"
#include "interpose/vt_signal.h"
#include "record/vt_ring.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	/* Where records go and who hears of threads (vt_thread_connect): written once by the
	 * lifecycle's constructor, before any location exists, read after. */
	const struct vt_loc_sink *sink;
	const struct vt_thread_hooks *hooks;
	pthread_mutex_t locs_lock;
	struct vt_loc *locs, **locs_tail;
	uint32_t n_locs;
	pthread_key_t exit_key;
	/* The background writer: encodes halves handed over by full buffers, in hand-over
	 * order. */
	pthread_mutex_t queue_lock;
	pthread_cond_t queue_cond;
	struct vt_loc *queue_head, **queue_tail;
	pthread_t writer;
	bool writer_started, writer_quit;
	/* A job the writer runs for another thread (on_writer), and whether it ran; gone: the
	 * writer has ended (it runs every job it was given first). */
	void (*job)(void *);
	void *job_arg;
	bool job_done, writer_gone;
	pthread_cond_t job_cond;
	/* vt-ctl's wish (vt_thread_ctl_set): every thread paused. Atomic. */
	bool ctl_off;
} thr = {
    .locs_lock = PTHREAD_MUTEX_INITIALIZER,
    .locs_tail = &thr.locs,
    .queue_lock = PTHREAD_MUTEX_INITIALIZER,
    .queue_cond = PTHREAD_COND_INITIALIZER,
    .job_cond = PTHREAD_COND_INITIALIZER,
    .queue_tail = &thr.queue_head,
};

void vt_thread_connect(const struct vt_loc_sink *s, const struct vt_thread_hooks *h)
{
	thr.sink = s;
	thr.hooks = h;
}

long vt_max_depth = LONG_MAX;

uint32_t vt_thread_count(void)
{
	return __atomic_load_n(&thr.n_locs, __ATOMIC_ACQUIRE);
}

/* Writes the half handed over, if the writer has not yet; caller holds loc->lock. */
static void write_pending_locked(struct vt_loc *loc)
{
	if (loc->ring) {
		/* Ring mode: the half that left the window is replayed, nothing is written. */
		if (loc->pending.to)
			vt_ring_replay(loc->ring, loc->pending.from, loc->pending.to, false);
		loc->pending.to = NULL;
		pthread_cond_broadcast(&loc->written);
		return;
	}
	/* In MPI mode nothing can be written before MPI_Init has opened the archive. */
	if (!loc->pending.to || !thr.sink->ready())
		return;
	if (loc->pending.to > loc->pending.from)
		thr.sink->encode(loc, loc->pending.from, loc->pending.to);
	/* Written inline, the flush lasted until now; handed over, until the thread went on. */
	uint64_t t1 = loc->pending.t1 ? loc->pending.t1 : vt_clock_now();
	thr.sink->flushed(loc, loc->pending.t0, t1);
	if (loc->pending.stop)
		thr.sink->stop(loc, t1);
	loc->pending.to = NULL;
	pthread_cond_broadcast(&loc->written);
}

/* Encodes what the location holds, up to upto in the current half; caller holds the lock. */
static void drain_locked(struct vt_loc *loc, struct vt_rec *upto)
{
	write_pending_locked(loc);
	if (loc->held) {
		/* Stopped before MPI_Init: the rest, then the marker of the stop. */
		if (loc->held > loc->buf)
			thr.sink->encode(loc, loc->buf, loc->held);
		thr.sink->stop(loc, 0); /* at its last event (the sink keeps times in order) */
		loc->held = NULL;
		return;
	}
	if (upto > loc->buf && upto <= loc->buf_end)
		thr.sink->encode(loc, loc->buf, upto);
}

static void *writer_main(void *arg)
{
	/* vt's own thread: never traced, even if it runs instrumented code. */
	vt_tls.state = VT_TLS_OFF;
	vt_tls.busy = 1;
	vt_own_fds_leave_table();
	pthread_mutex_lock(&thr.queue_lock);
	for (;;) {
		while (!thr.queue_head && !(thr.job && !thr.job_done) && !thr.writer_quit)
			pthread_cond_wait(&thr.queue_cond, &thr.queue_lock);
		if (thr.job && !thr.job_done) {
			pthread_mutex_unlock(&thr.queue_lock);
			thr.job(thr.job_arg);
			pthread_mutex_lock(&thr.queue_lock);
			thr.job_done = true;
			pthread_cond_broadcast(&thr.job_cond);
			continue;
		}
		struct vt_loc *loc = thr.queue_head;
		if (!loc) {
			thr.writer_gone = true;
			pthread_cond_broadcast(&thr.job_cond);
			break;
		}
		thr.queue_head = loc->queue_next;
		if (!thr.queue_head)
			thr.queue_tail = &thr.queue_head;
		struct vt_rec *half = loc->prefault;
		loc->prefault = NULL;
		pthread_mutex_unlock(&thr.queue_lock);
		if (half)
			vt_buf_prefault(loc, half);
		pthread_mutex_lock(&loc->lock);
		write_pending_locked(loc);
		pthread_mutex_unlock(&loc->lock);
		pthread_mutex_lock(&thr.queue_lock);
	}
	pthread_mutex_unlock(&thr.queue_lock);
	return arg;
}

/*
 * Woken by a flush, the writer would be placed beside the thread that woke it and share its
 * CPU while another stands idle (the overhead benchmark's runs were bimodal: 25 or 55 ns per
 * call). So before each wake-up it is allowed every CPU of the process but the flushing
 * thread's, where there is another. One system call per half a buffer.
 */
static void keep_writer_away(void)
{
	cpu_set_t allowed;
	int here = sched_getcpu();
	if (here < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	if (CPU_COUNT(&allowed) < 2 || !CPU_ISSET(here, &allowed))
		return;
	CPU_CLR(here, &allowed);
	pthread_setaffinity_np(thr.writer, sizeof(allowed), &allowed);
}

/* Caller holds queue_lock. */
static void start_writer_locked(void)
{
	if (thr.writer_started || thr.writer_quit)
		return;
	thr.writer_started = vt_own_thread_create(&thr.writer, writer_main, NULL) == 0;
	if (!thr.writer_started)
		thr.writer_quit = true;
}

void vt_thread_writer_start(void)
{
	if (!vt_cfg.flush_thread)
		return;
	pthread_mutex_lock(&thr.queue_lock);
	start_writer_locked();
	pthread_mutex_unlock(&thr.queue_lock);
}

static bool enqueue_locked(struct vt_loc *loc);

/* Ring mode: the half full up to pos stays in the ring, the thread goes on in the next one,
 * and the half that left the window is replayed by the writer (inline without one, or in a
 * signal handler). Caller holds loc->lock, and no replay is pending. */
static struct vt_rec *ring_next_locked(struct vt_loc *loc, struct vt_tls *t, struct vt_rec *pos,
				       bool in_handler)
{
	const struct vt_rec *from, *to;
	loc->buf = vt_ring_rotate(loc->ring, pos, &from, &to);
	loc->buf_end = loc->buf + (loc->halves[1] - loc->halves[0]);
	t->end = loc->buf_end;
	__atomic_store_n(&t->pos, loc->buf, __ATOMIC_RELEASE);
	if (from) {
		loc->pending.from = (struct vt_rec *)from;
		loc->pending.to = (struct vt_rec *)to;
		if (in_handler || !enqueue_locked(loc)) {
			vt_ring_replay(loc->ring, from, to, in_handler);
			loc->pending.to = NULL;
		}
	}
	return loc->buf;
}

/*
 * A full half, handed over from a signal handler (samples): only what cannot wait or block.
 * Both locks are tried, never waited for; the writer must be running and done with the other
 * half; a flush that would reach VT_MAX_FLUSHES is left to the thread's next ordinary one.
 * The condition variable's signal takes glibc's internal condvar lock briefly; the
 * interrupted code is not vt's (the handler checked busy), so it does not hold it.
 */
struct vt_rec *vt_thread_flush_signal(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	struct vt_rec *next = NULL;
	if (loc && loc->ring && !t->ctl_armed && pthread_mutex_trylock(&loc->lock) == 0) {
		/* Ring mode: the half joins the ring, without allocation, unless the writer is
		 * still replaying the last one (no waiting here). */
		if (!loc->done && !loc->pending.to) {
			loc->flushes++;
			next = ring_next_locked(loc, t, t->pos, true);
		}
		pthread_mutex_unlock(&loc->lock);
		return next;
	}
	/* Armed by vt-ctl off: the thread records nothing, there is nothing to hand over. */
	if (!loc || loc->ring || t->ctl_armed || !vt_cfg.flush_thread ||
	    pthread_mutex_trylock(&loc->lock) != 0)
		return NULL;
	bool last = vt_cfg.max_flushes && loc->flushes + 1 >= vt_cfg.max_flushes;
	if (!loc->done && !loc->pending.to && !last && thr.sink->ready() &&
	    pthread_mutex_trylock(&thr.queue_lock) == 0) {
		if (thr.writer_started && !thr.writer_quit) {
			loc->flushes++;
			uint64_t now = vt_clock_now();
			loc->pending.from = loc->buf;
			loc->pending.to = t->pos;
			loc->pending.stop = false;
			loc->pending.t0 = loc->pending.t1 = now;
			loc->queue_next = NULL;
			*thr.queue_tail = loc;
			thr.queue_tail = &loc->queue_next;
			pthread_cond_signal(&thr.queue_cond);
			loc->buf = loc->buf == loc->halves[0] ? loc->halves[1] : loc->halves[0];
			loc->buf_end = loc->buf + (loc->halves[1] - loc->halves[0]);
			next = loc->buf;
			t->end = loc->buf_end;
			if (t->ctl_armed) { /* a sample's flush while armed: still off */
				t->ctl_end = t->end;
				t->end = next;
			}
			__atomic_store_n(&t->pos, next, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&thr.queue_lock);
	}
	pthread_mutex_unlock(&loc->lock);
	return next;
}

/* Hands the pending half to the writer; false when there is none and it must be written
 * inline. Caller holds loc->lock. */
static bool enqueue_locked(struct vt_loc *loc)
{
	if (!vt_cfg.flush_thread)
		return false;
	pthread_mutex_lock(&thr.queue_lock);
	start_writer_locked();
	bool queued = thr.writer_started && !thr.writer_quit;
	if (queued) {
		loc->queue_next = NULL;
		*thr.queue_tail = loc;
		thr.queue_tail = &loc->queue_next;
		keep_writer_away();
		pthread_cond_signal(&thr.queue_cond);
	}
	pthread_mutex_unlock(&thr.queue_lock);
	return queued;
}

/*
 * The writer has a descriptor table of its own (vt_own_fds_leave_table): the event files it
 * opens are in no other. While it runs, every encoding and closing of a location is its work,
 * also at a thread's exit, MPI_Init and the end: fn is handed to it, and the caller waits.
 * Inline without a writer (and on it). Caller holds none of the record layer's locks.
 */
static void on_writer(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&thr.queue_lock);
	while (thr.job && !thr.writer_gone)
		pthread_cond_wait(&thr.job_cond, &thr.queue_lock);
	bool handed =
	    thr.writer_started && !thr.writer_gone && !pthread_equal(thr.writer, pthread_self());
	if (handed) {
		thr.job = fn;
		thr.job_arg = arg;
		thr.job_done = false;
		pthread_cond_signal(&thr.queue_cond);
		while (!thr.job_done)
			pthread_cond_wait(&thr.job_cond, &thr.queue_lock);
		thr.job = NULL;
		pthread_cond_broadcast(&thr.job_cond);
	}
	pthread_mutex_unlock(&thr.queue_lock);
	if (!handed)
		fn(arg);
}

static void writer_stop(void)
{
	pthread_mutex_lock(&thr.queue_lock);
	bool started = thr.writer_started;
	thr.writer_quit = true;
	pthread_cond_broadcast(&thr.queue_cond);
	pthread_mutex_unlock(&thr.queue_lock);
	if (started)
		pthread_join(thr.writer, NULL);
}

/* vt_ring_write's encoder: the location's sink. */
static void ring_encode(void *arg, const struct vt_rec *from, const struct vt_rec *to)
{
	if (to > from)
		thr.sink->encode(arg, from, to);
}

static void close_locked(struct vt_loc *loc, struct vt_rec *upto, uint64_t end_ts)
{
	if (loc->done)
		return;
	if (loc->ring) {
		/* Ring mode: the window, now (in MPI mode after MPI_Init's archive), once the
		 * half that left last is replayed. */
		write_pending_locked(loc);
		vt_ring_write(loc->ring, upto, loc, ring_encode);
		if (vt_ring_lost_bytes(loc->ring))
			vt_info("thread %u: ring mode kept the last %lu bytes of events; %lu "
				"earlier bytes left the ring",
				loc->index, (unsigned long)vt_cfg.ring_size,
				(unsigned long)vt_ring_lost_bytes(loc->ring));
	} else {
		drain_locked(loc, upto);
	}
	/* Armed by vt-ctl off, its thread made no event since: recording stopped then. The
	 * control thread has stopped (finalize) or this is the owner (exit): nothing disarms
	 * it meanwhile. */
	struct vt_tls *o = loc->tls;
	if (o && o->ctl_armed)
		thr.sink->stop(loc, o->ctl_ts);
	thr.sink->close(loc, end_ts);
	loc->done = true;
	if (loc->dropped)
		vt_warn(
		    "thread %u: %lu events were not recorded (made while vt or a counter plugin "
		    "ran on the thread, or more than %u records by signal handlers interrupting "
		    "vt, a gap the trace marks as measurement off)",
		    loc->index, (unsigned long)loc->dropped, VT_BUF_SIDE_MAX);
}

/*
 * A closed location's buffer goes back (to the spare buffers or the system), so that memory
 * follows the threads alive, not the threads that ever were. Only once its events are encoded
 * (in MPI mode they wait in it for MPI_Init's archive). Caller holds loc->lock.
 */
static void release_buffer_locked(struct vt_loc *loc)
{
	if (!loc->done || !loc->halves[0] || !thr.sink->ready())
		return;
	vt_buf_give_back(loc->halves[0], loc->flushes == 0 && !loc->held);
	/* The ring's other halves: a thread alive at the end may still write into the one it
	 * fills, so they go back here only, as the buffer does. */
	vt_ring_free(loc->ring);
	loc->ring = NULL;
	loc->halves[0] = loc->halves[1] = loc->buf = loc->buf_end = NULL;
}

struct close_job {
	struct vt_loc *loc;
	struct vt_rec *upto;
	uint64_t end_ts;
};

static void close_one(void *arg)
{
	struct close_job *j = arg;
	pthread_mutex_lock(&j->loc->lock);
	close_locked(j->loc, j->upto, j->end_ts);
	pthread_mutex_unlock(&j->loc->lock);
}

/* Thread exit: its TLS is about to go, so its location is closed now. */
static void thread_exit(void *arg)
{
	struct vt_loc *loc = arg;
	struct vt_tls *t = &vt_tls;
	int saved = errno;

	t->busy = 1;
	/* What the subsystems keep per thread ends with it, on it (counters: disable_counter,
	 * last values). */
	thr.hooks->end(t, loc);
	struct close_job job = {loc, t->pos ? t->pos : t->paused, vt_clock_now()};
	on_writer(close_one, &job);
	pthread_mutex_lock(&loc->lock);
	loc->tls = NULL;
	t->paused = NULL;
	t->pos = t->end = NULL;
	/* A signal handler on this thread from now on records nothing, not even aside. */
	t->side[0] = NULL;
	vt_signal_fence();
	for (unsigned k = 1; k < VT_BUF_SIDE_SEGS; k++) {
		struct vt_rec *s = t->side[k];
		t->side[k] = NULL;
		if (s) /* mapped by a handler (vt_buf.c): VT_BUF_SIDE << k records */
			vt_sys_munmap(s, ((size_t)VT_BUF_SIDE << k) * sizeof(*s));
	}
	release_buffer_locked(loc);
	pthread_mutex_unlock(&loc->lock);
	t->state = VT_TLS_OFF;
	t->busy = 0;
	errno = saved;
}

void vt_thread_init(void)
{
	pthread_key_create(&thr.exit_key, thread_exit);
	vt_max_depth = vt_cfg.max_stack_depth ? vt_cfg.max_stack_depth : LONG_MAX;
}

static struct vt_loc *new_location(struct vt_tls *t)
{
	/* Two halves: one filling while the other is written; then the side area of producers
	 * interrupted by signal handlers (vt_buf.h). */
	size_t n = vt_buf_half_records(vt_cfg.buffer_size) * 2;
	struct vt_rec *buf = vt_buf_take();
	struct vt_loc *loc = calloc(1, sizeof(*loc));
	if (!buf || !loc) {
		vt_error("cannot allocate a %lu-byte event buffer (VT_BUFFER_SIZE) for a new "
			 "thread: %s; that thread is not recorded",
			 (unsigned long)vt_cfg.buffer_size, strerror(errno));
		if (buf)
			vt_sys_munmap(buf, vt_buf_bytes());
		free(loc);
		return NULL;
	}
	pthread_mutex_init(&loc->lock, NULL);
	pthread_cond_init(&loc->written, NULL);
	loc->halves[0] = buf;
	loc->halves[1] = loc->halves[0] + n / 2;
	loc->buf = loc->halves[0];
	loc->buf_end = loc->halves[1];
	loc->tls = t;
	if (vt_cfg.mode == VT_MODE_RING &&
	    !(loc->ring = vt_ring_new(loc->halves[0], loc->halves[1], n / 2))) {
		vt_sys_munmap(buf, vt_buf_bytes());
		free(loc);
		return NULL;
	}
	loc->tid = gettid();
	pthread_mutex_lock(&thr.locs_lock);
	loc->index = thr.n_locs;
	*thr.locs_tail = loc;
	thr.locs_tail = &loc->next;
	__atomic_store_n(&thr.n_locs, thr.n_locs + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&thr.locs_lock);
	if (thr.sink->open(loc) < 0) {
		loc->done = true;
		return NULL;
	}
	pthread_setspecific(thr.exit_key, loc);
	return loc;
}

bool vt_thread_begin(struct vt_tls *t)
{
	return vt_thread_begin_seq(t, 0);
}

bool vt_thread_begin_seq(struct vt_tls *t, uint64_t seq)
{
	if (t->busy || t->state == VT_TLS_OFF || t->state == VT_TLS_PAUSED)
		return false;
	int saved = errno;
	bool on = false;

	t->busy = 1;
	if (vt_core_state() == VT_STATE_NEW) {
		if (!thr.hooks) {
			/* Before the lifecycle connected the layer (its constructor): stays NEW. */
			t->busy = 0;
			errno = saved;
			return false;
		}
		thr.hooks->init();
	}
	if (vt_core_state() == VT_STATE_ON && t->state == VT_TLS_NEW && thr.hooks->is_own()) {
		/* A subsystem's own thread (a plugin's: is_thread_registered): never recorded. */
		t->state = VT_TLS_OFF;
	} else if (vt_core_state() == VT_STATE_ON && t->state == VT_TLS_NEW) {
		struct vt_loc *loc = new_location(t);
		if (loc) {
			t->loc = loc;
			t->side[0] = loc->halves[0] + vt_buf_half_records(vt_cfg.buffer_size) * 2;
			t->end = loc->buf_end;
			t->depth = 0;
			t->state = VT_TLS_ON;
			__atomic_store_n(&t->pos, loc->buf, __ATOMIC_RELEASE);
			on = true;
			/* The creator's number for the thread comes first (archive/vt_encode.c
			 * reads it before the ThreadBegin it goes into). */
			if (seq) {
				union vt_rec_payload p = {.thread = {seq, 0, 0}};
				vt_thread_put_event(t, 0, VT_REC_THREAD_BEGIN, &p, 1);
			}
			/* Counters in scope are added before the thread's first event. */
			thr.hooks->begin(t, loc);
			/* Started while vt-ctl has recording off: paused from its start. */
			if (__atomic_load_n(&thr.ctl_off, __ATOMIC_ACQUIRE)) {
				t->busy = 0;
				vt_thread_pause(t);
				t->busy = 1;
				if (t->state == VT_TLS_PAUSED)
					__atomic_store_n(&loc->ctl, VT_CTL_FOLLOW_PAUSED,
							 __ATOMIC_RELEASE);
			}
		}
	}
	/* A thread that starts while vt initialises (on this thread) stays NEW and is retried. */
	if (!on && vt_core_state() != VT_STATE_INITIALISING)
		t->state = VT_TLS_OFF;
	t->busy = 0;
	if (vt_unlikely(vt_signal_pending))
		vt_signal_deferred();
	errno = saved;
	return on;
}

/* The end of every flush of vt_thread_flush, loc->lock held: returns next. */
static struct vt_rec *flush_end(struct vt_tls *t, struct vt_loc *loc, struct vt_rec *next,
				int saved)
{
	pthread_mutex_unlock(&loc->lock);
	/* A flush is an event of the owner: on-event counter values are collected. A module
	 * that runs code not the program's meanwhile (a plugin's) marks the thread busy with
	 * foreign code itself (vt_metric.c); otherwise a signal handler's events are kept
	 * aside as during the rest of a flush. */
	t->busy = 0;
	thr.hooks->flush(loc);
	if (vt_unlikely(vt_signal_pending))
		vt_signal_deferred();
	errno = saved;
	return next;
}

struct vt_rec *vt_thread_flush(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	struct vt_rec *next = NULL;

	if (t->busy) {
		/* Instrumented code that vt runs on this thread (a plugin's, say). */
		__atomic_fetch_add(&loc->dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	int saved = errno;
	/* Only vt's code until the counters below: a signal handler's events meanwhile are
	 * kept aside and follow the event that flushes. */
	t->busy = VT_BUSY_OWN;
	pthread_mutex_lock(&loc->lock);
	if (loc->ring) {
		/* Ring mode: nothing is encoded during the run. The half to fill next is the one
		 * the writer replays: wait for it, as for a write. */
		while (loc->pending.to && !loc->done)
			pthread_cond_wait(&loc->written, &loc->lock);
		if (!loc->done) {
			loc->flushes++;
			next = ring_next_locked(loc, t, t->pos, false);
		} else {
			__atomic_store_n(&t->pos, NULL, __ATOMIC_RELEASE);
			t->end = NULL;
			t->state = VT_TLS_OFF;
		}
		return flush_end(t, loc, next, saved);
	}
	uint64_t t0 = vt_clock_now();
	/* The writer is a whole half behind: wait for it (this is what the trace's BufferFlush
	 * event then shows as time lost to flushing). The wait drops the lock, and the
	 * location may be closed meanwhile (finalize on another thread): test done after it. */
	while (loc->pending.to && !loc->done && thr.sink->ready())
		pthread_cond_wait(&loc->written, &loc->lock);
	if (!loc->done && loc->pending.to) {
		/* Both halves full before MPI_Init opened the archive: nowhere to write. */
		loc->held = t->pos;
		loc->stopped = true;
		vt_warn("thread %u: the event buffer filled up before MPI_Init; recording stopped "
			"there (the trace marks it); raise VT_BUFFER_SIZE to record more",
			loc->index);
	} else if (!loc->done) {
		loc->flushes++;
		bool stop = vt_cfg.max_flushes && loc->flushes >= vt_cfg.max_flushes;
		loc->pending.from = loc->buf;
		loc->pending.to = t->pos;
		loc->pending.stop = stop;
		loc->pending.t0 = t0;
		loc->pending.t1 = vt_clock_now();
		if (loc->flushes == 1) /* the other half is fresh: see prefault */
			loc->prefault =
			    loc->buf == loc->halves[0] ? loc->halves[1] : loc->halves[0];
		if (!enqueue_locked(loc)) {
			loc->prefault = NULL;
			loc->pending.t1 = 0;
			write_pending_locked(loc);
		}
		if (stop) {
			loc->stopped = true;
			vt_warn("thread %u: recording stopped after %ld buffer flushes "
				"(VT_MAX_FLUSHES=%ld); the trace marks where; raise VT_BUFFER_SIZE "
				"or VT_MAX_FLUSHES to record more",
				loc->index, loc->flushes, vt_cfg.max_flushes);
		} else if (thr.sink->failed()) {
			/* A write failed (the writer said so, once): nothing more is recorded. */
			loc->stopped = true;
		} else {
			loc->buf = loc->buf == loc->halves[0] ? loc->halves[1] : loc->halves[0];
			loc->buf_end = loc->buf + (loc->halves[1] - loc->halves[0]);
			next = loc->buf;
		}
	}
	/* Under the lock: a finalize on another thread reads pos against loc->buf. */
	if (next) {
		t->end = loc->buf_end;
		if (vt_unlikely(t->ctl_armed)) { /* a flush on demand while armed: still off */
			t->ctl_end = t->end;
			t->end = next;
		}
		__atomic_store_n(&t->pos, next, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&t->pos, NULL, __ATOMIC_RELEASE);
		t->end = NULL;
		t->state = VT_TLS_OFF;
	}
	return flush_end(t, loc, next, saved);
}

void vt_thread_pause(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	if (t->nest || t->busy || !loc)
		return;
	vt_thread_put(t, 0, VT_REC_MEASURE);
	pthread_mutex_lock(&loc->lock);
	if (t->pos && !loc->done) {
		t->paused = t->pos;
		__atomic_store_n(&t->pos, NULL, __ATOMIC_RELEASE);
		t->state = VT_TLS_PAUSED;
	}
	pthread_mutex_unlock(&loc->lock);
}

void vt_thread_resume(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	if (t->state != VT_TLS_PAUSED || t->nest || t->busy || !loc)
		return;
	/* Paused by vt-ctl: only vt-ctl on resumes it. */
	if (__atomic_load_n(&loc->ctl, __ATOMIC_ACQUIRE) == VT_CTL_FOLLOW_PAUSED)
		return;
	pthread_mutex_lock(&loc->lock);
	if (loc->done) {
		t->state = VT_TLS_OFF; /* closed meanwhile (the program is ending) */
	} else {
		t->state = VT_TLS_ON;
		__atomic_store_n(&t->pos, t->paused, __ATOMIC_RELEASE);
	}
	t->paused = NULL;
	pthread_mutex_unlock(&loc->lock);
	if (t->pos)
		vt_thread_put(t, 1, VT_REC_MEASURE);
}

void vt_thread_ctl_set(bool off)
{
	__atomic_store_n(&thr.ctl_off, off, __ATOMIC_RELEASE);
}

bool vt_thread_ctl_off(void)
{
	return __atomic_load_n(&thr.ctl_off, __ATOMIC_ACQUIRE);
}

int vt_thread_ctl_nudge(int sig, int *total)
{
	bool off = vt_thread_ctl_off();
	int n = 0, live = 0;
	pid_t pid = getpid();
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		/* tls is written under the location's lock at the thread's exit: a location
		 * without one has no thread to signal (and tid may be reused by now). */
		pthread_mutex_lock(&loc->lock);
		bool alive = loc->tls && !loc->done;
		pthread_mutex_unlock(&loc->lock);
		if (!alive)
			continue;
		live++;
		int ctl = __atomic_load_n(&loc->ctl, __ATOMIC_ACQUIRE);
		if ((ctl != VT_CTL_FOLLOW_ON) == off)
			continue;
		if (syscall(SYS_tgkill, pid, loc->tid, sig) == 0)
			n++;
	}
	pthread_mutex_unlock(&thr.locs_lock);
	if (total)
		*total = live;
	return n;
}

void vt_thread_ctl_pause_armed(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	t->end = t->ctl_end;
	t->ctl_armed = 0;
	/* Armed with room for both markers: OFF now, ON's slot kept at paused. pos and paused
	 * change under the lock, as vt_thread_pause's (a finalize reads them). */
	pthread_mutex_lock(&loc->lock);
	struct vt_rec *p = t->pos;
	if (p && !loc->done && (size_t)(t->end - p) >= 2) {
		p->ts = t->ctl_ts;
		p->region = 0;
		p->kind = VT_REC_MEASURE;
		t->paused = p + 1;
		__atomic_store_n(&t->pos, NULL, __ATOMIC_RELEASE);
		t->state = VT_TLS_PAUSED;
	}
	pthread_mutex_unlock(&loc->lock);
}

/* Off, in the handler: the thread's next event takes the slow path (end = pos), with room
 * for the two markers; false when there is none yet (the next nudge retries). */
static bool ctl_arm(struct vt_tls *t)
{
	if ((size_t)(t->end - t->pos) < 2 && !vt_thread_flush_signal(t))
		return false;
	if ((size_t)(t->end - t->pos) < 2)
		return false;
	t->ctl_end = t->end;
	t->ctl_ts = vt_clock_now();
	t->ctl_armed = 1;
	vt_signal_fence();
	t->end = t->pos;
	return true;
}

/* On, in the handler, for a thread armed that made no event since: the gap's two markers,
 * with the room kept at arming. */
static void ctl_disarm(struct vt_tls *t)
{
	t->end = t->ctl_end;
	t->ctl_armed = 0;
	vt_signal_fence();
	struct vt_rec *p = vt_buf_reserve_fast(t, 2);
	if (!p)
		return;
	p[0] = (struct vt_rec){t->ctl_ts, 0, VT_REC_MEASURE};
	p[1] = (struct vt_rec){vt_clock_now(), 1, VT_REC_MEASURE};
	vt_buf_commit(t, p, 2);
}

void vt_thread_ctl_follow(void)
{
	struct vt_tls *t = &vt_tls;
	struct vt_loc *loc = t->loc;
	/* Inside a producer or vt's own code: the next nudge finds it between two. Between
	 * two producers pos and end are the thread's own: a handler may change them, as a
	 * sampling handler's flush does; pos only becomes NULL in the thread's slow path.
	 * Lifted: the thread follows itself once its operation's end is written. */
	if (!loc || t->nest || t->busy || t->ctl_lifted)
		return;
	bool off = vt_thread_ctl_off();
	int ctl = __atomic_load_n(&loc->ctl, __ATOMIC_ACQUIRE);
	if ((ctl != VT_CTL_FOLLOW_ON) == off)
		return;
	if (off) {
		if (t->state == VT_TLS_ON && t->pos && !loc->done && !t->ctl_armed) {
			if (!ctl_arm(t))
				return;
			__atomic_store_n(&loc->ctl, VT_CTL_FOLLOW_PAUSED, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&loc->ctl, VT_CTL_FOLLOW_IDLE, __ATOMIC_RELEASE);
		}
		return;
	}
	if (ctl == VT_CTL_FOLLOW_PAUSED && t->ctl_armed) {
		ctl_disarm(t);
	} else if (ctl == VT_CTL_FOLLOW_PAUSED && t->state == VT_TLS_PAUSED) {
		/* The lock orders paused and pos against a finalize on another thread; held by
		 * this thread (the program's own pause or resume), the next nudge retries. */
		if (pthread_mutex_trylock(&loc->lock) != 0)
			return;
		if (loc->done) {
			t->state = VT_TLS_OFF;
		} else {
			struct vt_rec *q = t->paused;
			*q = (struct vt_rec){vt_clock_now(), 1, VT_REC_MEASURE};
			t->state = VT_TLS_ON;
			__atomic_store_n(&t->pos, q + 1, __ATOMIC_RELEASE);
		}
		t->paused = NULL;
		pthread_mutex_unlock(&loc->lock);
	}
	__atomic_store_n(&loc->ctl, VT_CTL_FOLLOW_ON, __ATOMIC_RELEASE);
}

void vt_thread_flush_now(struct vt_tls *t)
{
	/* Inside a producer (a signal handler that interrupted one): not now. */
	if (t->nest || t->busy)
		return;
	t->nest = 1;
	vt_signal_fence();
	if (t->pos && t->loc && t->pos != t->loc->buf)
		vt_thread_flush(t);
	vt_signal_fence();
	t->nest = 0;
	vt_signal_fence();
	if (__atomic_load_n(&t->side_n, __ATOMIC_RELAXED))
		vt_buf_drain(t);
}

void vt_thread_hold_all(bool hold)
{
	if (hold) {
		pthread_mutex_lock(&thr.locs_lock);
		for (struct vt_loc *loc = thr.locs; loc; loc = loc->next)
			pthread_mutex_lock(&loc->lock);
		return;
	}
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next)
		pthread_mutex_unlock(&loc->lock);
	pthread_mutex_unlock(&thr.locs_lock);
}

void vt_thread_forked(void)
{
	pthread_mutex_init(&thr.queue_lock, NULL);
	vt_buf_forked();
	thr.queue_head = NULL;
	thr.queue_tail = &thr.queue_head;
	thr.writer_started = false;
	pthread_cond_init(&thr.job_cond, NULL);
	thr.job = NULL;
	thr.writer_gone = false;
}

static void archive_ready(void *arg)
{
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		if (!loc->done)
			drain_locked(loc, NULL);
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&thr.locs_lock);
}

void vt_thread_archive_ready(void)
{
	on_writer(archive_ready, NULL);
}

void vt_thread_switch_off(void)
{
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		loc->done = true;
		loc->pending.to = NULL;
		pthread_cond_broadcast(&loc->written);
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&thr.locs_lock);
	__atomic_store_n(&vt_tls.pos, NULL, __ATOMIC_RELEASE);
	vt_tls.end = NULL;
	vt_tls.state = VT_TLS_OFF;
}

void vt_thread_end_at(struct vt_loc *loc, uint64_t ts)
{
	pthread_mutex_lock(&loc->lock);
	loc->end_at = ts;
	pthread_mutex_unlock(&loc->lock);
}

/* Where a location's current half ends now (vt_thread_finalize's snapshot of it). */
static struct vt_rec *upto_locked(struct vt_loc *loc)
{
	struct vt_rec *upto = loc->tls ? __atomic_load_n(&loc->tls->pos, __ATOMIC_ACQUIRE) : NULL;
	return !upto && loc->tls ? loc->tls->paused : upto; /* written under the lock */
}

uint64_t vt_thread_ring_start(void)
{
	uint64_t start = 0;
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		if (loc->ring && !loc->done) {
			write_pending_locked(loc);
			uint64_t s = vt_ring_window_start(loc->ring, upto_locked(loc));
			start = s > start ? s : start;
		}
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&thr.locs_lock);
	return start;
}

void vt_thread_each_ring(void (*fn)(void *arg, struct vt_ring *g, struct vt_rec *upto), void *arg)
{
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		if (loc->ring && !loc->done)
			fn(arg, loc->ring, upto_locked(loc));
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&thr.locs_lock);
}

static void finalize_all(void *arg)
{
	uint64_t end_ts = *(uint64_t *)arg;
	pthread_mutex_lock(&thr.locs_lock);
	for (struct vt_loc *loc = thr.locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		/* A live thread keeps writing above this snapshot; that is after the trace's end.
		 */
		close_locked(loc, upto_locked(loc),
			     loc->end_at && loc->end_at < end_ts ? loc->end_at : end_ts);
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&thr.locs_lock);
}

struct vt_loc *vt_thread_finalize(uint64_t end_ts)
{
	struct vt_tls *self = &vt_tls;
	self->busy = 1;
	on_writer(finalize_all, &end_ts);
	writer_stop();
	__atomic_store_n(&self->pos, NULL, __ATOMIC_RELEASE);
	self->end = NULL;
	self->state = VT_TLS_OFF;
	self->busy = 0;
	return thr.locs;
}

uint32_t vt_thread_desc_register(struct vt_inst_desc *d)
{
	int saved = errno;
	uint32_t h = VT_OWN_WORK(vt_region_register_desc(d));
	errno = saved;
	return h;
}
