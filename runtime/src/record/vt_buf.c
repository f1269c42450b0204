/* SPDX-License-Identifier: BSD-3-Clause */
/* The slow paths of the buffer reservation: flushes, producers interrupted by signal handlers. */
#include "record/vt_buf.h"
#include "base/vt_clock.h"
#include "record/vt_thread.h"

#include <string.h>

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

struct vt_rec *vt_buf_reserve_nested(struct vt_tls *t, unsigned n)
{
	/* Instrumented code that vt or a plugin runs on this thread is not the program's. */
	if ((t->busy && t->busy != VT_BUSY_OWN) || !t->side || n > t->side_cap) {
		dropped(t, 1);
		return NULL;
	}
	uint32_t i = __atomic_fetch_add(&t->side_n, n, __ATOMIC_RELAXED);
	if (i + n > t->side_cap) {
		/* side_n stays past the end: every later claim fails too, until the drain. */
		dropped(t, 1);
		return NULL;
	}
	t->nest++;
	return t->side + i;
}

/*
 * Copies the whole events of side[from, to) into the buffer; returns where it stopped. A
 * claim that was refused left its slots zero (kind 0), and nothing after it was accepted.
 */
static uint32_t copy_events(struct vt_tls *t, uint32_t from, uint32_t to)
{
	while (from < to) {
		const struct vt_rec *h = &t->side[from];
		if (!h->kind)
			return to;
		unsigned len = 1 + vt_rec_payloads(h);
		if (from + len > to)
			return to;
		struct vt_rec *p = room(t, len);
		if (!p) {
			dropped(t, 1);
			from += len;
			continue;
		}
		/* A flush that waited may have moved the side area to a larger one (same slots). */
		memcpy(p, &t->side[from], len * sizeof(*p));
		__atomic_store_n(&t->pos, p + len, __ATOMIC_RELEASE);
		from += len;
	}
	return from;
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
			uint32_t m = n < t->side_cap ? n : t->side_cap;
			uint32_t from = done;
			done = copy_events(t, from, m);
			/* Zeroed before the claims are reset: a slot claimed after the reset must
			 * keep what its handler writes. */
			memset(t->side + from, 0, (size_t)(m - from) * sizeof(*t->side));
			if (__atomic_compare_exchange_n(&t->side_n, &n, 0, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
		}
		vt_signal_fence();
		t->nest = 0;
		vt_signal_fence();
		/* A handler between the reset and nest 0 kept its events aside too. */
	} while (__atomic_load_n(&t->side_n, __ATOMIC_RELAXED));
}
