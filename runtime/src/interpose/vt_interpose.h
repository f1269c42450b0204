/* SPDX-License-Identifier: BSD-3-Clause */
/* What libc calls vt interposes report, to whom, and the real functions for vt's own use. */
#ifndef VT_INTERPOSE_H
#define VT_INTERPOSE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

/*
 * interpose/ is the libc boundary: one file per family of interposed functions (exec,
 * signals, threads, the host id). It sits just above the ground and knows no module above
 * it: what the program does there reaches the modules through these hooks, which the
 * lifecycle fills at init (lifecycle/vt_core.c), so the lifecycle stays the one place that
 * knows every module. A hook left NULL means "nothing to do"; until init, all are NULL.
 */
struct vt_interpose_hooks {
	/* exec* replaces the image of the process that initialised vt (what: the call). */
	void (*exec)(const char *what);
	/* A terminating signal ends the process and arrived outside vt: write the trace. */
	void (*signal_end)(int sig, const char *what);
	/* Whether the calling thread is inside vt's own code (its busy flag): a signal then
	 * waits for vt_signal_deferred, a thread it creates is vt's own. */
	bool (*thread_busy)(void);
	/* pthread_create: whether the new thread gets its location at its start, and its
	 * first call on that thread. */
	bool (*thread_wanted)(void);
	void (*thread_start)(void);
};

/* Written once by the lifecycle's init, read by the interposers (NULL hooks before). */
void vt_interpose_set_hooks(const struct vt_interpose_hooks *h);
extern struct vt_interpose_hooks vt_interpose_hooks __attribute__((visibility("hidden")));

/* The next definition of a libc function after libvt's (dlsym RTLD_NEXT), or NULL. */
void *vt_interpose_next(const char *name);

/* libc's own pthread_create and sigaction: vt's threads (the writer, plugin hosts) and
 * vt's handlers (sampling) never pass through vt's wrappers. -1 with errno, as libc's. */
int vt_real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg);
int vt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
