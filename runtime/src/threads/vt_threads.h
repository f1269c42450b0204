/* SPDX-License-Identifier: BSD-3-Clause */
/* Events of OTF2's thread model, as OpenMP (OMPT) and pthreads (interpose/) produce them. */
#ifndef VT_THREADS_H
#define VT_THREADS_H

#include "record/vt_thread.h"

/*
 * One thread-model event on the calling thread: head (a team, a lock, a thread count: see
 * the kind in record/vt_rec.h) and its vt_rec_thread payload, in one reservation. Nothing
 * when the thread does not record. Never takes a lock on the common path.
 */
static inline void vt_threads_put(struct vt_tls *t, uint32_t head, uint32_t kind, uint64_t value,
				  uint32_t a, uint32_t b)
{
	union vt_rec_payload p = {.thread = {value, a, b}};
	vt_thread_put_event(t, head, kind, &p, vt_rec_kinds[kind].payloads);
}

#endif
