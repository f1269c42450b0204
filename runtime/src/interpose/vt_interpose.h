/* SPDX-License-Identifier: BSD-3-Clause */
/* What libc calls vt interposes report, to whom, and the real functions for vt's own use. */
#ifndef VT_INTERPOSE_H
#define VT_INTERPOSE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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
	/* daemon(): the parent, about to _exit, forked the daemon (process child). */
	void (*daemon_parent)(int child);
	/* A terminating signal ends the process and arrived outside vt: write the trace. */
	void (*signal_end)(int sig, const char *what);
	/* The program sets the disposition of a signal vt does not watch for its end (vt's
	 * control signal among them), before the call reaches the kernel. */
	void (*signal_set)(int sig, const struct sigaction *act);
	/* Whether the calling thread is inside vt's own code (its busy flag): a signal then
	 * waits for vt_signal_deferred, a thread it creates is vt's own. */
	bool (*thread_busy)(void);
	/* pthread_create: whether the new thread gets its location at its start, and its
	 * first call on that thread. */
	bool (*thread_wanted)(void);
	void (*thread_start)(void);
	/* VT_PTHREAD=yes, from init on: the program's pthread calls (vt_pthread.c); NULL (the
	 * default and VT_PTHREAD=no): every call goes straight to libc. */
	const struct vt_pthread_hooks *pthread;
};

/*
 * The program's pthread calls, as interpose/vt_pthread.c reports them: each hook makes
 * the call itself (with the vt_real_* functions below) and records around it, or only
 * makes it when the calling thread does not record. caller: the call's return address, for
 * vt_interpose_caller_traced. thread_create returns the new thread's sequence number (0:
 * the thread is not announced), which thread_created hears with the outcome of the real
 * call and thread_begin on the new thread before anything else runs there.
 */
struct vt_pthread_hooks {
	uint64_t (*thread_create)(const void *caller);
	void (*thread_created)(uint64_t seq, int rc, pthread_t th);
	void (*thread_begin)(uint64_t seq);
	int (*join)(pthread_t th, void **ret, const void *caller);
	int (*mutex_lock)(pthread_mutex_t *m, const void *caller);
	int (*mutex_trylock)(pthread_mutex_t *m, const void *caller);
	int (*mutex_timedlock)(pthread_mutex_t *m, const struct timespec *at, const void *caller);
	int (*mutex_unlock)(pthread_mutex_t *m, const void *caller);
	int (*cond_wait)(pthread_cond_t *c, pthread_mutex_t *m, const void *caller);
	int (*cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at,
			      const void *caller);
	int (*cond_signal)(pthread_cond_t *c, const void *caller);
	int (*cond_broadcast)(pthread_cond_t *c, const void *caller);
};

/* Written once by the lifecycle's init, read by the interposers (NULL hooks before). */
void vt_interpose_set_hooks(const struct vt_interpose_hooks *h);
/* VT_PTHREAD=yes: the pthread hooks from now on (the lifecycle, once recording is on). */
void vt_interpose_set_pthread(const struct vt_pthread_hooks *p);
extern struct vt_interpose_hooks vt_interpose_hooks __attribute__((visibility("hidden")));

/* The next definition of a libc function after libvt's (dlsym RTLD_NEXT), or NULL. */
void *vt_interpose_next(const char *name);

/* libc's own pthread_create and sigaction: vt's threads (the writer, plugin hosts) and
 * vt's handlers (sampling) never pass through vt's wrappers. -1 with errno, as libc's. */
int vt_real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			   void *arg);
int vt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* A thread of vt's own (the writer, the control channel's): libc's pthread_create with every
 * signal blocked in the new thread, as signals are the program's business; the caller's mask
 * is as before. 0 or an error number, as pthread_create. */
int vt_own_thread_create(pthread_t *th, void *(*fn)(void *), void *arg);

/*
 * libc's own mutex, condition variable and join functions. libvt defines
 * pthread_mutex_lock and the others (vt_pthread.c), so a call of vt's own code would reach
 * the wrapper: libvt and libvt-mpi are compiled with -Dpthread_mutex_lock=vt_real_mutex_lock
 * and so on (runtime/meson.build), which makes every lock of vt's a direct call to libc's.
 * Resolved at vt's first constructor (vt_interpose_set_hooks), or at first use before it.
 */
int vt_real_mutex_lock(pthread_mutex_t *m);
int vt_real_mutex_trylock(pthread_mutex_t *m);
int vt_real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at);
int vt_real_mutex_unlock(pthread_mutex_t *m);
int vt_real_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int vt_real_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at);
int vt_real_cond_signal(pthread_cond_t *c);
int vt_real_cond_broadcast(pthread_cond_t *c);
int vt_real_join(pthread_t th, void **ret);

/*
 * Whether a pthread call from this return address is the program's: false for calls from
 * the runtimes vt traces through interfaces of their own or that are not the program's
 * (OpenMP, MPI with its components and transports, the Fortran runtime, libotf2, elfutils),
 * whose internal locks and threads would only be noise. Each call site is looked up once
 * (the object holding it, by name) and kept in a lock-free table; a call then costs a probe.
 */
bool vt_interpose_caller_traced(const void *caller);

/* Looks libc's functions up (vt_interpose_set_hooks does). */
void vt_interpose_resolve(void);

#endif
