/* SPDX-License-Identifier: BSD-3-Clause */
/* The program's pthread calls as OTF2 thread-model events: creation, joins, mutexes, condvars. */
#ifndef VT_PTHREAD_EVENTS_H
#define VT_PTHREAD_EVENTS_H

#include "interpose/vt_interpose.h"

/*
 * What interpose/vt_pthread.c reports with VT_PTHREAD=yes (the lifecycle hands this table to
 * vt_interpose_set_pthread once recording is on). pthread_create: a region with
 * ThreadCreate(seq) on the creator, the new thread's ThreadBegin carrying seq; pthread_join:
 * a region with ThreadWait(seq of the joined thread); mutexes and condition variables:
 * regions with ThreadAcquireLock and ThreadReleaseLock (paradigm PTHREAD, a lock number per
 * mutex, the acquisition order per lock). Calls on a thread that does not record, inside
 * vt, or from the runtimes vt_interpose_caller_traced leaves out only reach libc.
 */
const struct vt_pthread_hooks *vt_pthread_events_hooks(void);

#endif
