/* SPDX-License-Identifier: BSD-3-Clause */
/* pthread_create, join, mutexes and condition variables of the program, and libc's own ones. */

/* This file defines the names that the rest of vt reaches libc's functions under
 * (-Dpthread_mutex_lock=vt_real_mutex_lock, runtime/meson.build): here they are libc's. */
#undef pthread_mutex_lock
#undef pthread_mutex_trylock
#undef pthread_mutex_timedlock
#undef pthread_mutex_unlock
#undef pthread_cond_wait
#undef pthread_cond_timedwait
#undef pthread_cond_signal
#undef pthread_cond_broadcast
#undef pthread_join

#include "base/vt_compiler.h"
#include "interpose/vt_interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

/*
 * Every wrapper's first test is whether pthread events are recorded at all (the lifecycle
 * sets vt_interpose_hooks.pthread at init when VT_PTHREAD=yes): without them, a call costs
 * that branch and the indirect call of libc's function. With them, the hook decides on the
 * calling thread (not recording, inside vt, vt's own thread: libc's function alone) and
 * records around the real call. Whether a new thread is recorded from its start is also
 * the lifecycle's answer (thread_wanted: sampling is on). Threads vt or a plugin start
 * while inside vt (thread_busy) are theirs and are left alone; vt's own threads call
 * vt_real_pthread_create and never come here.
 */

/* Call sites of the program's pthread calls and whether they are the program's: at most
 * half the slots used, then each new site is looked up on every call. */
#define SITE_SLOTS (1u << 12)

typedef int (*lock_fn)(pthread_mutex_t *);
typedef int (*timedlock_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);
typedef int (*join_fn)(pthread_t, void **);

static struct {
	/* libc's functions: written at the first constructor (or first use), read after. */
	struct {
		lock_fn lock, trylock, unlock;
		timedlock_fn timedlock;
		wait_fn wait;
		timedwait_fn timedwait;
		cond_fn signal, broadcast;
		join_fn join;
	} real;
	/* Call site (return address) << 1 | traced; 0: empty. Filled at first sight, lock-free:
	 * one word, so a reader sees a whole entry or none. */
	uintptr_t sites[SITE_SLOTS];
	uint32_t n_sites;
} pt;

/* x86-64 has two versions of the condition variable functions; the default one is 2.3.2. */
VT_NO_ASAN static void *next_cond(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");
	return f ? f : vt_interpose_next(name);
}

VT_NO_ASAN void vt_interpose_resolve(void)
{
	*(void **)&pt.real.lock = vt_interpose_next("pthread_mutex_lock");
	*(void **)&pt.real.trylock = vt_interpose_next("pthread_mutex_trylock");
	*(void **)&pt.real.timedlock = vt_interpose_next("pthread_mutex_timedlock");
	*(void **)&pt.real.unlock = vt_interpose_next("pthread_mutex_unlock");
	*(void **)&pt.real.wait = next_cond("pthread_cond_wait");
	*(void **)&pt.real.timedwait = next_cond("pthread_cond_timedwait");
	*(void **)&pt.real.signal = next_cond("pthread_cond_signal");
	*(void **)&pt.real.broadcast = next_cond("pthread_cond_broadcast");
	*(void **)&pt.real.join = vt_interpose_next("pthread_join");
}

/* Before vt's first constructor (another library's constructor locking): resolved now. */
__attribute__((noinline, cold)) VT_NO_ASAN static void resolve_now(void)
{
	vt_interpose_resolve();
}

/* Exported: libvt-mpi's locks are vt's too. */
#define VT_REAL __attribute__((visibility("default"))) VT_NO_ASAN

#define REAL(f) (vt_likely(pt.real.f) ? pt.real.f : (resolve_now(), pt.real.f))

VT_REAL int vt_real_mutex_lock(pthread_mutex_t *m)
{
	return REAL(lock)(m);
}

VT_REAL int vt_real_mutex_trylock(pthread_mutex_t *m)
{
	return REAL(trylock)(m);
}

VT_REAL int vt_real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at)
{
	return REAL(timedlock)(m, at);
}

VT_REAL int vt_real_mutex_unlock(pthread_mutex_t *m)
{
	return REAL(unlock)(m);
}

VT_REAL int vt_real_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return REAL(wait)(c, m);
}

VT_REAL int vt_real_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at)
{
	return REAL(timedwait)(c, m, at);
}

VT_REAL int vt_real_cond_signal(pthread_cond_t *c)
{
	return REAL(signal)(c);
}

VT_REAL int vt_real_cond_broadcast(pthread_cond_t *c)
{
	return REAL(broadcast)(c);
}

VT_REAL int vt_real_join(pthread_t th, void **ret)
{
	return REAL(join)(th, ret);
}

/*
 * Whose pthread calls are the program's: those of the executable and of libraries outside
 * the system's library directories, and of libstdc++ (std::thread and its kin call pthread
 * there). Not the program's: the system's libraries (their
 * locks are their own business: the OpenMP runtimes, whose interface is OMPT, MPI and what it
 * loads, the Fortran runtime, X11 under hwloc's plugins...), and wherever they are installed, vt's
 * own libraries and the runtimes named below. A name matches when the file name starts with it and
 * goes on with '.', '-', '_' or a digit (libmpi: libmpi.so.40 and libmpi_mpifh.so, not
 * libmpich.so); a name ending in '_' matches whatever follows.
 */
static const char *const system_dirs[] = {"/lib/",	 "/lib64/",	"/usr/lib/",
					  "/usr/lib64/", "/usr/lib32/", NULL};
static const char *const not_the_program[] = {
    "libvt",	"libvt-mpi", "libvt-mpich",  "libgomp",	    "libomp",	   "libiomp",
    "libmpi",	"libmpich",  "libmpichfort", "libmpichcxx", "libopen-pal", "libopen-rte",
    "libprrte", "libpmix",   "mca_",	     "pmix_",	    "hwloc_",	   "libhwloc",
    "libucs",	"libucp",    "libuct",	     "libucm",	    "libfabric",   "libpsm",
    "libpsm2",	"libevent",  "libevent_",    "libgfortran", "libotf2",	   "libdw",
    "libelf",	"libpapi",   "libunwind",    NULL,
};

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool skipped_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (starts(base, "libstdc++"))
		return false;
	for (int i = 0; system_dirs[i]; i++)
		if (starts(path, system_dirs[i]))
			return true;
	for (int i = 0; not_the_program[i]; i++) {
		const char *n = not_the_program[i];
		size_t len = strlen(n);
		if (strncmp(base, n, len) != 0)
			continue;
		char next = base[len];
		if (n[len - 1] == '_' || next == '.' || next == '-' || next == '_' ||
		    (next >= '0' && next <= '9'))
			return true;
	}
	return false;
}

struct site_query {
	uintptr_t addr;
	bool traced;
	bool sanitizer; /* the object is a sanitizer's runtime (its interceptors) */
};

/* The object whose loaded text holds the address decides (the program: no name). */
static int site_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct site_query *q = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || q->addr < lo || q->addr >= lo + ph->p_memsz)
			continue;
		q->traced = !info->dlpi_name || !*info->dlpi_name || !skipped_name(info->dlpi_name);
		if (info->dlpi_name) {
			const char *base = strrchr(info->dlpi_name, '/');
			base = base ? base + 1 : info->dlpi_name;
			q->sanitizer = starts(base, "libasan.") || starts(base, "libtsan.") ||
				       starts(base, "libubsan.") || starts(base, "libclang_rt.");
		}
		return 1;
	}
	return 0;
}

/*
 * First sight of a call site. dl_iterate_phdr, not dladdr: it takes only the loader's list
 * lock, which dlopen holds while it links an object but never while constructors run, so
 * this cannot wait for a program's lock; dladdr takes the lock dlopen holds throughout.
 */
__attribute__((noinline, cold)) static bool site_first(uintptr_t addr, uint32_t i)
{
	struct site_query q = {addr, true, false};
	int saved = errno;
	dl_iterate_phdr(site_object, &q);
	errno = saved;
	uintptr_t word = addr << 1 | q.traced;
	if (__atomic_load_n(&pt.n_sites, __ATOMIC_RELAXED) >= SITE_SLOTS / 2)
		return q.traced;
	for (;;) {
		uintptr_t k = 0;
		if (__atomic_compare_exchange_n(&pt.sites[i], &k, word, false, __ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&pt.n_sites, 1, __ATOMIC_RELAXED);
			return q.traced;
		}
		if (k >> 1 == addr)
			return q.traced; /* another thread was first */
		i = (i + 1) & (SITE_SLOTS - 1);
	}
}

bool vt_interpose_caller_traced(const void *caller)
{
	uintptr_t addr = (uintptr_t)caller;
	uint32_t i = (uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> 52) & (SITE_SLOTS - 1);
	for (;;) {
		uintptr_t k = __atomic_load_n(&pt.sites[i], __ATOMIC_ACQUIRE);
		if (vt_likely(k >> 1 == addr))
			return k & 1;
		if (k == 0)
			return site_first(addr, i);
		i = (i + 1) & (SITE_SLOTS - 1);
	}
}

/* ---- pthread_create -------------------------------------------------------------------- */

/*
 * Who called pthread_create: the caller, or when that is a sanitizer's interceptor (the ASan
 * run of the tests preloads libasan, which intercepts pthread_create and passes its own
 * start routine on), the interceptor's caller, one frame further up the frame-pointer chain
 * (sanitizer runtimes keep frame pointers for their own unwinder). frame is the wrapper's
 * frame address: [0] the interceptor's saved frame pointer.
 */
VT_NO_ASAN static const void *creator(const void *caller, void *frame)
{
	struct site_query q = {(uintptr_t)caller, true, false};
	int saved = errno;
	dl_iterate_phdr(site_object, &q);
	errno = saved;
	if (!q.sanitizer || !frame)
		return caller;
	void **up = *(void ***)frame; /* the interceptor's frame: above this one, near */
	uintptr_t at = (uintptr_t)frame, next = (uintptr_t)up;
	if (next <= at || next - at > (1u << 20) || next % sizeof(void *))
		return caller;
	return up[1];
}

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t seq; /* from the creator's thread_create; 0: none */
};

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	const struct vt_pthread_hooks *ph = vt_interpose_hooks.pthread;
	if (s.seq && ph)
		ph->thread_begin(s.seq);
	else if (vt_interpose_hooks.thread_start)
		vt_interpose_hooks.thread_start();
	return s.fn(s.arg);
}

__attribute__((visibility("default"), optimize("no-omit-frame-pointer"))) VT_NO_ASAN int
pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	const struct vt_interpose_hooks *h = &vt_interpose_hooks;
	const struct vt_pthread_hooks *ph = h->pthread;
	bool wanted = ph || (h->thread_wanted && h->thread_wanted());
	if (!wanted || (h->thread_busy && h->thread_busy()))
		return vt_real_pthread_create(th, attr, fn, arg);
	struct start *s = malloc(sizeof(*s));
	if (!s)
		return vt_real_pthread_create(th, attr, fn, arg);
	*s = (struct start){fn, arg, 0};
	if (ph)
		s->seq = ph->thread_create(
		    creator(__builtin_return_address(0), __builtin_frame_address(0)));
	if (!s->seq && !(h->thread_wanted && h->thread_wanted())) {
		/* Not announced, and sampling does not need the thread's start either. */
		free(s);
		return vt_real_pthread_create(th, attr, fn, arg);
	}
	uint64_t seq = s->seq;
	int rc = vt_real_pthread_create(th, attr, thread_start, s);
	if (rc)
		free(s);
	if (seq)
		ph->thread_created(seq, rc, rc ? 0 : *th);
	return rc;
}

/* ---- joins, mutexes, condition variables ------------------------------------------------ */

#define WRAPPER	      __attribute__((visibility("default"))) VT_NO_ASAN
#define PTHREAD_HOOKS (vt_interpose_hooks.pthread)

WRAPPER int pthread_join(pthread_t th, void **ret)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return vt_real_join(th, ret);
	return ph->join(th, ret, __builtin_return_address(0));
}

WRAPPER int pthread_mutex_lock(pthread_mutex_t *m)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(lock)(m);
	return ph->mutex_lock(m, __builtin_return_address(0));
}

WRAPPER int pthread_mutex_trylock(pthread_mutex_t *m)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(trylock)(m);
	return ph->mutex_trylock(m, __builtin_return_address(0));
}

WRAPPER int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(timedlock)(m, at);
	return ph->mutex_timedlock(m, at, __builtin_return_address(0));
}

WRAPPER int pthread_mutex_unlock(pthread_mutex_t *m)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(unlock)(m);
	return ph->mutex_unlock(m, __builtin_return_address(0));
}

WRAPPER int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(wait)(c, m);
	return ph->cond_wait(c, m, __builtin_return_address(0));
}

WRAPPER int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(timedwait)(c, m, at);
	return ph->cond_timedwait(c, m, at, __builtin_return_address(0));
}

WRAPPER int pthread_cond_signal(pthread_cond_t *c)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(signal)(c);
	return ph->cond_signal(c, __builtin_return_address(0));
}

WRAPPER int pthread_cond_broadcast(pthread_cond_t *c)
{
	const struct vt_pthread_hooks *ph = PTHREAD_HOOKS;
	if (vt_likely(!ph))
		return REAL(broadcast)(c);
	return ph->cond_broadcast(c, __builtin_return_address(0));
}
