/* SPDX-License-Identifier: BSD-3-Clause */
/* Events of OTF2's thread model, as OpenMP (OMPT) and pthreads (interpose/) produce them. */
#ifndef VT_THREADS_H
#define VT_THREADS_H

#include "record/vt_thread.h"

/*
 * One thread-model event on the calling thread: head (a team, a lock, a thread count: see
 * the kind in record/vt_rec.h) and its vt_rec_thread payload, in one reservation, written
 * in place (no call, no copy). Nothing when the thread does not record. Never takes a lock
 * on the common path.
 */
static inline __attribute__((always_inline)) void vt_threads_put(struct vt_tls *t, uint32_t head,
								 uint32_t kind, uint64_t value,
								 uint32_t a, uint32_t b)
{
	unsigned n = vt_rec_kinds[kind].payloads;
	struct vt_rec *p = vt_buf_reserve(t, 1 + n);
	if (vt_unlikely(!p))
		return;
	/* Taken after the reservation: a flush it made never carries a later time. */
	p[0].ts = vt_clock_now();
	p[0].region = head;
	p[0].kind = kind;
	if (n) {
		struct vt_rec_thread *x = (struct vt_rec_thread *)&p[1];
		x->value = value;
		x->a = a;
		x->b = b;
	}
	vt_buf_commit(t, p, 1 + n);
}

#endif
