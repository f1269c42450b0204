/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread state: first-event set-up, buffer flushes, recording stops, thread exit, finalize. */
#include "vt_thread.h"
#include "vt_config.h"
#include "vt_core.h"
#include "vt_log.h"
#include "vt_otf2.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__thread struct vt_tls vt_tls __attribute__((tls_model("initial-exec")));
long vt_max_depth = LONG_MAX;

static pthread_mutex_t locs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vt_loc *locs, **locs_tail = &locs;
static uint32_t n_locs;
static pthread_key_t exit_key;

uint32_t vt_thread_count(void)
{
	return __atomic_load_n(&n_locs, __ATOMIC_ACQUIRE);
}

/* Encodes [buf, upto) and rewinds; caller holds loc->lock. */
static void drain_locked(struct vt_loc *loc, struct vt_rec *upto)
{
	if (upto && upto > loc->buf)
		vt_otf2_encode(loc, loc->buf, upto);
}

static void close_locked(struct vt_loc *loc, struct vt_rec *upto, uint64_t end_ts)
{
	if (loc->done)
		return;
	drain_locked(loc, upto);
	vt_otf2_loc_close(loc, end_ts);
	loc->done = true;
	if (loc->dropped)
		vt_warn("thread %u: %lu events made during a buffer flush were not recorded",
			loc->index, (unsigned long)loc->dropped);
}

/* Thread exit: its TLS is about to go, so its location is closed now. */
static void thread_exit(void *arg)
{
	struct vt_loc *loc = arg;
	struct vt_tls *t = &vt_tls;
	int saved = errno;

	t->busy = 1;
	pthread_mutex_lock(&loc->lock);
	close_locked(loc, t->pos, vt_clock_now());
	loc->tls = NULL;
	pthread_mutex_unlock(&loc->lock);
	t->pos = t->end = NULL;
	t->state = VT_TLS_OFF;
	t->busy = 0;
	errno = saved;
}

void vt_thread_init(void)
{
	pthread_key_create(&exit_key, thread_exit);
	vt_max_depth = vt_cfg.max_stack_depth ? vt_cfg.max_stack_depth : LONG_MAX;
}

static struct vt_loc *new_location(struct vt_tls *t)
{
	size_t n = vt_cfg.buffer_size / sizeof(struct vt_rec);
	/* mmap: pages become resident as the buffer fills, not up front. */
	void *buf = mmap(NULL, n * sizeof(struct vt_rec), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct vt_loc *loc = calloc(1, sizeof(*loc));
	if (buf == MAP_FAILED || !loc) {
		vt_error("cannot allocate a %lu-byte event buffer (VT_BUFFER_SIZE) for a new "
			 "thread: %s; that thread is not recorded",
			 (unsigned long)vt_cfg.buffer_size, strerror(errno));
		if (buf != MAP_FAILED)
			munmap(buf, n * sizeof(struct vt_rec));
		free(loc);
		return NULL;
	}
	pthread_mutex_init(&loc->lock, NULL);
	loc->buf = buf;
	loc->buf_end = loc->buf + n;
	loc->tls = t;
	pthread_mutex_lock(&locs_lock);
	loc->index = n_locs;
	*locs_tail = loc;
	locs_tail = &loc->next;
	__atomic_store_n(&n_locs, n_locs + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&locs_lock);
	if (vt_otf2_loc_open(loc) < 0) {
		loc->done = true;
		return NULL;
	}
	pthread_setspecific(exit_key, loc);
	return loc;
}

bool vt_thread_begin(struct vt_tls *t)
{
	if (t->busy || t->state == VT_TLS_OFF)
		return false;
	int saved = errno;
	bool on = false;

	t->busy = 1;
	if (vt_state == VT_STATE_NEW)
		vt_init();
	if (vt_state == VT_STATE_ON && t->state == VT_TLS_NEW) {
		struct vt_loc *loc = new_location(t);
		if (loc) {
			t->loc = loc;
			t->end = loc->buf_end;
			t->depth = 0;
			t->state = VT_TLS_ON;
			__atomic_store_n(&t->pos, loc->buf, __ATOMIC_RELEASE);
			on = true;
		}
	}
	/* A thread that starts while vt initialises (on this thread) stays NEW and is retried. */
	if (!on && vt_state != VT_STATE_INITIALISING)
		t->state = VT_TLS_OFF;
	t->busy = 0;
	errno = saved;
	return on;
}

struct vt_rec *vt_thread_flush(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	struct vt_rec *next = NULL;

	if (t->busy) {
		/* An instrumented function called by the flush itself (a user malloc, say). */
		loc->dropped++;
		return NULL;
	}
	int saved = errno;
	t->busy = 1;
	pthread_mutex_lock(&loc->lock);
	if (!loc->done) {
		uint64_t start = vt_clock_now();
		drain_locked(loc, t->pos);
		uint64_t stop = vt_clock_now();
		vt_otf2_buffer_flush(loc, start, stop);
		loc->flushes++;
		if (vt_cfg.max_flushes && loc->flushes >= vt_cfg.max_flushes) {
			vt_otf2_loc_stop(loc, stop);
			loc->stopped = true;
			vt_warn("thread %u: recording stopped after %ld buffer flushes "
				"(VT_MAX_FLUSHES=%ld); the trace marks where; raise VT_BUFFER_SIZE "
				"or VT_MAX_FLUSHES to record more",
				loc->index, loc->flushes, vt_cfg.max_flushes);
		} else {
			next = loc->buf;
		}
	}
	pthread_mutex_unlock(&loc->lock);
	if (next) {
		__atomic_store_n(&t->pos, next, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&t->pos, NULL, __ATOMIC_RELEASE);
		t->end = NULL;
		t->state = VT_TLS_OFF;
	}
	t->busy = 0;
	errno = saved;
	return next;
}

struct vt_loc *vt_thread_finalize(uint64_t end_ts)
{
	struct vt_tls *self = &vt_tls;
	self->busy = 1;
	pthread_mutex_lock(&locs_lock);
	for (struct vt_loc *loc = locs; loc; loc = loc->next) {
		pthread_mutex_lock(&loc->lock);
		/* A live thread keeps writing above this snapshot; that is after the trace's end. */
		struct vt_rec *upto = loc->tls ? __atomic_load_n(&loc->tls->pos, __ATOMIC_ACQUIRE)
					       : NULL;
		close_locked(loc, upto, end_ts);
		pthread_mutex_unlock(&loc->lock);
	}
	pthread_mutex_unlock(&locs_lock);
	__atomic_store_n(&self->pos, NULL, __ATOMIC_RELEASE);
	self->end = NULL;
	self->state = VT_TLS_OFF;
	self->busy = 0;
	return locs;
}
