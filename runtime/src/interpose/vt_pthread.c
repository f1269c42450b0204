/* SPDX-License-Identifier: BSD-3-Clause */
/* pthread_create: a thread of the program may get its location at its start (sampling). */
#include "interpose/vt_interpose.h"

#include <errno.h>
#include <stdlib.h>

/*
 * Whether a new thread is recorded from its start is the lifecycle's answer (thread_wanted:
 * sampling is on). Threads vt or a plugin start while inside vt (thread_busy) are theirs and
 * are left alone; vt's own threads call vt_real_pthread_create and never come here.
 */
struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	if (vt_interpose_hooks.thread_start)
		vt_interpose_hooks.thread_start();
	return s.fn(s.arg);
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *th, const pthread_attr_t *attr,
							  void *(*fn)(void *), void *arg)
{
	const struct vt_interpose_hooks *h = &vt_interpose_hooks;
	if (!h->thread_wanted || !h->thread_wanted() || (h->thread_busy && h->thread_busy()))
		return vt_real_pthread_create(th, attr, fn, arg);
	struct start *s = malloc(sizeof(*s));
	if (!s)
		return vt_real_pthread_create(th, attr, fn, arg);
	*s = (struct start){fn, arg};
	int rc = vt_real_pthread_create(th, attr, thread_start, s);
	if (rc)
		free(s);
	return rc;
}
