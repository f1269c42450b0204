/* SPDX-License-Identifier: BSD-3-Clause */
/* The buffers: memory, spares and prefault; the reservation's slow paths; events with payloads. */
#include "record/vt_buf.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_sys.h"
#include "record/vt_thread.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct vt_tls vt_tls __attribute__((tls_model("initial-exec")));

size_t vt_buf_half_records(uint64_t buffer_size)
{
	return (size_t)(buffer_size / sizeof(struct vt_rec) / 2);
}

void vt_buf_put_slow(struct vt_tls *t, uint32_t region, uint32_t kind)
{
	struct vt_rec *p = vt_buf_reserve(t, 1);
	if (!p)
		return;
	p->ts = vt_clock_now();
	p->region = region;
	p->kind = kind;
	vt_buf_commit(t, p, 1);
}

static void dropped(struct vt_tls *t, uint64_t events)
{
	if (t->loc)
		__atomic_fetch_add(&t->loc->dropped, events, __ATOMIC_RELAXED);
}

/* Room for n records in a fresh half, flushing the full one; NULL when recording ends. */
static struct vt_rec *room(struct vt_tls *t, unsigned n)
{
	/* vt-ctl switched recording off: this event is the first of the gap. */
	if (vt_unlikely(t->ctl_armed)) {
		vt_thread_ctl_pause_armed(t);
		return NULL;
	}
	struct vt_rec *p = t->pos;
	if (p && n > (size_t)(t->loc->halves[1] - t->loc->halves[0])) {
		/* Larger than half a buffer: the configuration keeps such events out. */
		dropped(t, 1);
		return NULL;
	}
	while (p && (size_t)(t->end - p) < n)
		p = vt_thread_flush(t); /* closes the half at pos: its tail stays unused */
	return p;
}

struct vt_rec *vt_buf_reserve_slow(struct vt_tls *t, unsigned n)
{
	struct vt_rec *p = room(t, n);
	if (!p) {
		vt_signal_fence();
		t->nest = 0;
		vt_signal_fence();
		if (__atomic_load_n(&t->side_n, __ATOMIC_RELAXED))
			vt_buf_drain(t);
	}
	return p;
}

/* vt-ctl off while the thread waited in an operation (vt_thread.h). */
bool vt_thread_ctl_lift(struct vt_tls *t)
{
	struct vt_loc *loc = t->loc;
	if (vt_likely(!t->ctl_armed) || t->nest || t->busy || !loc)
		return false;
	/* As a producer (the handler keeps out). Still armed (an "on" may have disarmed it):
	 * nothing recorded since, else it would be paused; the half's end is given back, and
	 * the thread counts as not following (vt_thread_ctl_land follows). */
	t->nest = 1;
	vt_signal_fence();
	bool lifted = t->ctl_armed;
	if (lifted) {
		t->end = t->ctl_end;
		t->ctl_armed = 0;
		t->ctl_lifted = 1;
		__atomic_store_n(&loc->ctl, VT_CTL_FOLLOW_ON, __ATOMIC_RELEASE);
	}
	vt_signal_fence();
	t->nest = 0;
	vt_signal_fence();
	return lifted;
}

void vt_thread_ctl_land(struct vt_tls *t)
{
	t->ctl_lifted = 0;
	vt_signal_fence();
	vt_thread_ctl_follow(); /* a handler may have been first: then this one does nothing */
}

/* The side area's segment k: its first slot, counted over all segments, and its size. */
static uint32_t side_base(unsigned k)
{
	return VT_BUF_SIDE * ((1u << k) - 1);
}

static uint32_t side_size(unsigned k)
{
	return VT_BUF_SIDE << k;
}

/* The segment that holds slot i (i < VT_BUF_SIDE_MAX). */
static unsigned side_seg(uint32_t i)
{
	return 31 - (unsigned)__builtin_clz(i / VT_BUF_SIDE + 1);
}

/* Segment k, mapped now if no handler did yet; NULL when the system refuses. A handler that
 * nests in between may map it too: the first to publish it wins, the other unmaps its own. */
static struct vt_rec *side_segment(struct vt_tls *t, unsigned k)
{
	struct vt_rec *s = __atomic_load_n(&t->side[k], __ATOMIC_ACQUIRE);
	if (s)
		return s;
	int saved = errno;
	size_t bytes = (size_t)side_size(k) * sizeof(*s);
	s = vt_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		errno = saved;
		return NULL;
	}
	struct vt_rec *was = NULL;
	if (!__atomic_compare_exchange_n(&t->side[k], &was, s, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		vt_sys_munmap(s, bytes);
		s = was;
	}
	errno = saved;
	return s;
}

/* A handler's event that the side area cannot take: counted, and its time kept for the
 * drain's mark in the trace. */
static void lost(struct vt_tls *t)
{
	dropped(t, 1);
	uint64_t none = 0;
	__atomic_compare_exchange_n(&t->side_lost, &none, vt_clock_now(), false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

struct vt_rec *vt_buf_reserve_nested(struct vt_tls *t, unsigned n)
{
	/* Instrumented code that vt or a plugin runs on this thread is not the program's. */
	if ((t->busy && t->busy != VT_BUSY_OWN) || !t->side[0]) {
		dropped(t, 1);
		return NULL;
	}
	if (n > side_size(VT_BUF_SIDE_SEGS - 1)) {
		lost(t); /* larger than any segment (the configuration keeps such events out) */
		return NULL;
	}
	/* n slots in one segment: the claim starts the next segment when the rest of the
	 * current one is too short (the slots skipped stay zero). A handler that nests between
	 * the load and the exchange claims first; this one then tries again after it. */
	uint32_t i = __atomic_load_n(&t->side_n, __ATOMIC_RELAXED), at;
	unsigned k;
	do {
		at = i;
		k = at < VT_BUF_SIDE_MAX ? side_seg(at) : VT_BUF_SIDE_SEGS;
		while (k < VT_BUF_SIDE_SEGS && at + n > side_base(k) + side_size(k)) {
			at = side_base(k) + side_size(k);
			k++;
		}
		if (k == VT_BUF_SIDE_SEGS) {
			/* Full: every later claim fails too, until the drain, so that what is
			 * kept precedes what is lost. */
			__atomic_store_n(&t->side_n, VT_BUF_SIDE_MAX, __ATOMIC_RELAXED);
			lost(t);
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&t->side_n, &i, at + n, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	struct vt_rec *s = side_segment(t, k);
	if (!s) {
		lost(t); /* the claimed slots stay zero: the drain passes over them */
		return NULL;
	}
	t->nest++;
	return s + (at - side_base(k));
}

/*
 * Copies the whole events of side slots [from, to) into the buffer; returns where it stopped.
 * Slots that no event holds are zero (kind 0): the tail of a segment that a claim skipped,
 * or a claim whose segment could not be mapped; an unmapped segment holds none.
 */
static uint32_t copy_events(struct vt_tls *t, uint32_t from, uint32_t to)
{
	while (from < to) {
		unsigned k = side_seg(from);
		uint32_t end = side_base(k) + side_size(k);
		const struct vt_rec *h = t->side[k] ? t->side[k] + (from - side_base(k)) : NULL;
		if (!h) {
			from = end < to ? end : to;
			continue;
		}
		if (!h->kind) {
			from++;
			continue;
		}
		unsigned len = 1 + vt_rec_payloads(h);
		if (from + len > to || from + len > end)
			return to;
		struct vt_rec *p = room(t, len);
		if (!p) {
			dropped(t, 1);
			from += len;
			continue;
		}
		memcpy(p, h, len * sizeof(*p));
		__atomic_store_n(&t->pos, p + len, __ATOMIC_RELEASE);
		from += len;
	}
	return from;
}

/* Zeroes side slots [from, to), segment by segment. */
static void side_zero(struct vt_tls *t, uint32_t from, uint32_t to)
{
	while (from < to) {
		unsigned k = side_seg(from);
		uint32_t end = side_base(k) + side_size(k);
		if (end > to)
			end = to;
		if (t->side[k])
			memset(t->side[k] + (from - side_base(k)), 0,
			       (size_t)(end - from) * sizeof(struct vt_rec));
		from = end;
	}
}

/*
 * Where handlers' records were lost (the side area full, or a segment not mapped): the
 * interval from the first loss to now, after the records kept, as MeasurementOnOff off and
 * on, like a pause of the recording (docs/environment.md).
 */
static void mark_lost(struct vt_tls *t)
{
	uint64_t since = __atomic_exchange_n(&t->side_lost, 0, __ATOMIC_RELAXED);
	if (!since)
		return;
	struct vt_rec *p = room(t, 2);
	if (!p)
		return;
	uint64_t now = vt_clock_now();
	p[0] = (struct vt_rec){since < now ? since : now, 0, VT_REC_MEASURE};
	p[1] = (struct vt_rec){now, 1, VT_REC_MEASURE};
	__atomic_store_n(&t->pos, p + 2, __ATOMIC_RELEASE);
}

void vt_buf_drain(struct vt_tls *t)
{
	/* Called with nest 0: this is the outermost producer, and handlers that come while it
	 * drains keep aside again (claims past the ones read here). */
	do {
		t->nest = 1;
		vt_signal_fence();
		uint32_t done = 0;
		for (;;) {
			uint32_t n = __atomic_load_n(&t->side_n, __ATOMIC_RELAXED);
			uint32_t m = n < VT_BUF_SIDE_MAX ? n : VT_BUF_SIDE_MAX;
			uint32_t from = done;
			done = copy_events(t, from, m);
			/* Zeroed before the claims are reset: a slot claimed after the reset must
			 * keep what its handler writes. */
			side_zero(t, from, m);
			if (__atomic_compare_exchange_n(&t->side_n, &n, 0, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
		}
		mark_lost(t);
		vt_signal_fence();
		t->nest = 0;
		vt_signal_fence();
		/* A handler between the reset and nest 0 kept its events aside too. */
	} while (__atomic_load_n(&t->side_n, __ATOMIC_RELAXED));
}

/*
 * The buffers of a few ended threads, kept for the next new threads: a program that starts
 * threads one after the other then maps and unmaps nothing per thread (an munmap of touched
 * pages interrupts every CPU the process ran on, and a fresh page costs a fault, ~30 us on a
 * paravirtualised VM). Only a buffer that never flushed comes here (its resident part is what
 * its thread wrote, less than a half), and at most SPARE_BUFFERS of them: memory still
 * follows the threads alive.
 */
#define SPARE_BUFFERS 2

static struct {
	/* The spare buffers (SPARE_BUFFERS above). */
	pthread_mutex_t spare_lock;
	struct vt_rec *spare[SPARE_BUFFERS];
	int n_spare;
	bool no_populate; /* no MADV_POPULATE_WRITE (kernels before 5.14): not tried again */
} bufs = {.spare_lock = PTHREAD_MUTEX_INITIALIZER};

/* The bytes of a location's buffer: two halves and the side area (new_location). */
size_t vt_buf_bytes(void)
{
	return (vt_buf_half_records(vt_cfg.buffer_size) * 2 + VT_BUF_SIDE) * sizeof(struct vt_rec);
}

struct vt_rec *vt_buf_take(void)
{
	struct vt_rec *buf = NULL;
	pthread_mutex_lock(&bufs.spare_lock);
	if (bufs.n_spare > 0)
		buf = bufs.spare[--bufs.n_spare];
	pthread_mutex_unlock(&bufs.spare_lock);
	if (buf)
		return buf;
	/* mmap: pages become resident as the buffer fills, not up front. */
	buf = vt_sys_mmap(NULL, vt_buf_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	return buf == MAP_FAILED ? NULL : buf;
}

void vt_buf_give_back(struct vt_rec *buf, bool keep)
{
	size_t half = vt_buf_half_records(vt_cfg.buffer_size);
	if (keep) {
		/* The side area's free slots are zero (vt_buf.c): as in a fresh mapping. */
		memset(buf + 2 * half, 0, VT_BUF_SIDE * sizeof(*buf));
		pthread_mutex_lock(&bufs.spare_lock);
		if (bufs.n_spare < SPARE_BUFFERS) {
			bufs.spare[bufs.n_spare++] = buf;
			buf = NULL;
		}
		pthread_mutex_unlock(&bufs.spare_lock);
	}
	if (buf)
		vt_sys_munmap(buf, vt_buf_bytes());
}

void vt_buf_forked(void)
{
	pthread_mutex_init(&bufs.spare_lock, NULL);
}

/*
 * A fresh half costs its thread a page fault per 4 KiB (~1.65 us on a paravirtualised VM). At
 * a location's first hand-over the half it fills next was never touched: the writer faults it
 * in first (MADV_POPULATE_WRITE), well ahead of the thread. Each step holds the location's
 * lock, so the buffer cannot be unmapped meanwhile (thread exit: the half is checked again
 * under it), and lets it go after, so a thread handing over its next half (under the same
 * lock) waits for one step at most: 64 KiB, 16 faults. The first half stays the thread's: a
 * writer started with every thread would cost the start of programs that never flush.
 */
#define PREFAULT_STEP (64 * 1024)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void vt_buf_prefault(struct vt_loc *loc, struct vt_rec *half)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t p = ((uintptr_t)half + page - 1) & ~(page - 1);
	uintptr_t end = (uintptr_t)(half + vt_buf_half_records(vt_cfg.buffer_size)) & ~(page - 1);
	while (p < end && !__atomic_load_n(&bufs.no_populate, __ATOMIC_RELAXED)) {
		size_t n = end - p < PREFAULT_STEP ? end - p : PREFAULT_STEP;
		pthread_mutex_lock(&loc->lock);
		bool mine = !loc->done && (half == loc->halves[0] || half == loc->halves[1]);
		/* By system call (never the program's madvise). EINVAL: an older kernel. */
		if (mine && syscall(SYS_madvise, (void *)p, n, MADV_POPULATE_WRITE) != 0) {
			if (errno == EINVAL)
				__atomic_store_n(&bufs.no_populate, true, __ATOMIC_RELAXED);
			mine = false;
		}
		pthread_mutex_unlock(&loc->lock);
		if (!mine)
			break;
		p += n;
	}
}

/* The producers of whole events with a payload (vt_thread.h): a reservation, filled. */
void vt_thread_put_event_at(struct vt_tls *t, uint64_t ts, uint32_t head, uint32_t kind,
			    const union vt_rec_payload *payload, unsigned n)
{
	struct vt_rec *p = vt_buf_reserve(t, 1 + n);
	if (!p)
		return;
	/* Taken before the reservation: a flush it made must not come after the event (the
	 * encoder keeps time non-decreasing by clamping; a BufferFlush's stop is later). */
	uint64_t now = vt_clock_now();
	p[0].ts = ts < now ? ts : now;
	p[0].region = head;
	p[0].kind = kind;
	memcpy(p + 1, payload, n * sizeof(*p));
	vt_buf_commit(t, p, 1 + n);
}

void vt_thread_put_pair(struct vt_tls *t, uint64_t ts0, uint32_t head0, uint32_t kind0,
			uint32_t head1, uint32_t kind1, const union vt_rec_payload *payload,
			unsigned n)
{
	struct vt_rec *p = vt_buf_reserve(t, 2 + n);
	if (!p)
		return;
	uint64_t now = vt_clock_now(); /* after the reservation, as in vt_thread_put_event_at */
	p[0].ts = ts0 < now ? ts0 : now;
	p[0].region = head0;
	p[0].kind = kind0;
	p[1].ts = now;
	p[1].region = head1;
	p[1].kind = kind1;
	memcpy(p + 2, payload, n * sizeof(*p));
	vt_buf_commit(t, p, 2 + n);
}

void vt_thread_put_event(struct vt_tls *t, uint32_t head, uint32_t kind,
			 const union vt_rec_payload *payload, unsigned n)
{
	struct vt_rec *p = vt_buf_reserve(t, 1 + n);
	if (!p)
		return;
	p[0].ts = vt_clock_now();
	p[0].region = head;
	p[0].kind = kind;
	memcpy(p + 1, payload, n * sizeof(*p));
	vt_buf_commit(t, p, 1 + n);
}
