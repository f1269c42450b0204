/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks through which interposed libc calls reach the modules, and libc's own functions. */
#include "interpose/vt_interpose.h"
#include "base/vt_compiler.h"

#include <dlfcn.h>
#include <errno.h>

struct vt_interpose_hooks vt_interpose_hooks;

void vt_interpose_set_hooks(const struct vt_interpose_hooks *h)
{
	vt_interpose_resolve();
	vt_interpose_hooks = *h;
	vt_interpose_hooks.pthread = NULL;
}

void vt_interpose_set_pthread(const struct vt_pthread_hooks *p)
{
	__atomic_store_n(&vt_interpose_hooks.pthread, p, __ATOMIC_RELEASE);
}

VT_NO_ASAN void *vt_interpose_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

VT_NO_ASAN int vt_real_pthread_create(pthread_t *th, const pthread_attr_t *attr,
				      void *(*fn)(void *), void *arg)
{
	typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	static create_fn real;
	if (!real)
		*(void **)&real = vt_interpose_next("pthread_create");
	return real ? real(th, attr, fn, arg) : EAGAIN;
}

int vt_own_thread_create(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = vt_real_pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
