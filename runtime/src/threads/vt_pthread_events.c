/* SPDX-License-Identifier: BSD-3-Clause */
/* pthread events (vt_pthread_events.h): regions, thread numbers, lock numbers and orders. */
#include "threads/vt_pthread_events.h"
#include "base/vt_state.h"
#include "regions/vt_region.h"
#include "threads/vt_threads.h"
#include "vt/vt_inst.h"

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <errno.h>

/* Mutexes told apart per process; at most half the slots are used. */
#define LOCK_SLOTS (1u << 14)
#define LOCK_MAX   (LOCK_SLOTS / 2)
#define LOCK_NONE  UINT32_MAX
/* Numbered threads not joined yet (detached ones stay until their id is reused). */
#define THREADS_MAX 4096
/* A creator's numbers start above 2^32, so they never equal a location's index, which a
 * thread nobody numbered carries in its ThreadBegin (archive/vt_encode.c). */
#define SEQ_BASE (1ull << 32)

enum {
	R_CREATE,
	R_JOIN,
	R_LOCK,
	R_TRYLOCK,
	R_TIMEDLOCK,
	R_UNLOCK,
	R_WAIT,
	R_TIMEDWAIT,
	R_SIGNAL,
	R_BROADCAST,
	N_REGIONS
};

/*
 * A mutex: its address and number in one word, published at once (a reader never sees an
 * address without its number, and no one waits for another thread, which a signal handler
 * could have interrupted between the two). Mutexes are 8-byte aligned and user addresses
 * below 2^47, so the address >> 3 takes 44 bits and the number the low LOCK_BITS. order,
 * held and holder change only while the mutex is held by a recording thread, so the mutex
 * itself orders them.
 */
#define LOCK_BITS 20
struct lock_slot {
	uint64_t word;	  /* (address >> 3) << LOCK_BITS | number; 0: empty */
	uint32_t order;	  /* acquisitions recorded so far */
	uint32_t held;	  /* the order of the current holder's acquisition */
	uintptr_t holder; /* the holder's vt_tls when its acquisition was recorded, else 0 */
};

static inline uint32_t lock_number(const struct lock_slot *s)
{
	return (uint32_t)(s->word & ((1u << LOCK_BITS) - 1));
}

struct numbered {
	pthread_t th;
	uint64_t seq;
};

#define DESC(name, role)                                                                           \
	{                                                                                          \
		0, VT_INST_ABI, name, NULL, 0, (OTF2_PARADIGM_PTHREAD << 8) | (role)               \
	}

static struct {
	struct vt_inst_desc desc[N_REGIONS];
	uint64_t next_seq;
	uint32_t n_locks;
	struct lock_slot locks[LOCK_SLOTS];
	/* Numbered threads by their pthread_t, until joined: under threads_lock (create and
	 * join are system calls anyway). */
	pthread_mutex_t threads_lock;
	uint32_t n_threads;
	struct numbered threads[THREADS_MAX];
} pe = {
    .desc =
	{
	    [R_CREATE] = DESC("pthread_create", OTF2_REGION_ROLE_THREAD_CREATE),
	    [R_JOIN] = DESC("pthread_join", OTF2_REGION_ROLE_THREAD_WAIT),
	    [R_LOCK] = DESC("pthread_mutex_lock", OTF2_REGION_ROLE_WRAPPER),
	    [R_TRYLOCK] = DESC("pthread_mutex_trylock", OTF2_REGION_ROLE_WRAPPER),
	    [R_TIMEDLOCK] = DESC("pthread_mutex_timedlock", OTF2_REGION_ROLE_WRAPPER),
	    [R_UNLOCK] = DESC("pthread_mutex_unlock", OTF2_REGION_ROLE_WRAPPER),
	    [R_WAIT] = DESC("pthread_cond_wait", OTF2_REGION_ROLE_WRAPPER),
	    [R_TIMEDWAIT] = DESC("pthread_cond_timedwait", OTF2_REGION_ROLE_WRAPPER),
	    [R_SIGNAL] = DESC("pthread_cond_signal", OTF2_REGION_ROLE_WRAPPER),
	    [R_BROADCAST] = DESC("pthread_cond_broadcast", OTF2_REGION_ROLE_WRAPPER),
	},
    .threads_lock = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * The calling thread if it records already and is not inside vt (busy: a flush, a plugin;
 * nest: a producer a signal handler interrupted). pthread calls never give a thread its
 * location: the program's threads have theirs from their start (pthread_create), the
 * others at their first event, so that the threads of plugins and runtimes, which lock
 * too, stay out of the trace.
 */
static struct vt_tls *recording_now(void)
{
	struct vt_tls *t = &vt_tls;
	if (!t->pos || t->busy || t->nest || vt_core_state() != VT_STATE_ON)
		return NULL;
	return t;
}

/* The same, when the caller is the program's code (vt_interpose_caller_traced). */
static struct vt_tls *recording(const void *caller)
{
	struct vt_tls *t = recording_now();
	return t && vt_interpose_caller_traced(caller) ? t : NULL;
}

/* The region's handle less one: its id and filter flag, as vt_thread_enter takes them. */
static uint32_t region(int r)
{
	uint32_t h = __atomic_load_n(&pe.desc[r].handle, __ATOMIC_ACQUIRE);
	if (vt_unlikely(!h))
		h = vt_region_register_desc(&pe.desc[r]);
	return h - 1;
}

/* The mutex a thread locked last and its slot: its unlock finds it without a probe. */
static __thread struct {
	const void *m;
	struct lock_slot *s;
} last_lock __attribute__((tls_model("initial-exec")));

/* ---- lock numbers ----------------------------------------------------------------------- */

/* The mutex's slot, made at first sight when make is true; NULL: none (or no room). */
static struct lock_slot *lock_of(const void *m, bool make)
{
	uint64_t key = (uint64_t)(uintptr_t)m >> 3;
	if (!key)
		return NULL;
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 50) & (LOCK_SLOTS - 1);
	for (;;) {
		struct lock_slot *s = &pe.locks[i];
		uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
		if (w >> LOCK_BITS == key)
			return s;
		if (w == 0) {
			/* First sight: a number if there is room left (one lost to a thread that
			 * takes the slot first is not used: numbers may have gaps). */
			if (!make || __atomic_load_n(&pe.n_locks, __ATOMIC_RELAXED) >= LOCK_MAX)
				return NULL;
			uint32_t id = __atomic_fetch_add(&pe.n_locks, 1, __ATOMIC_RELAXED);
			if (__atomic_compare_exchange_n(&s->word, &w, key << LOCK_BITS | id, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return s;
			continue; /* another mutex took it meanwhile: look at it again */
		}
		i = (i + 1) & (LOCK_SLOTS - 1);
	}
}

/* A lock event in one reservation, its payload written in place (no copy). */
static inline __attribute__((always_inline)) void put_lock(struct vt_tls *t, uint32_t kind,
							   uint32_t lock, uint32_t order)
{
	struct vt_rec *p = vt_buf_reserve(t, 2);
	if (vt_unlikely(!p))
		return;
	p[0].ts = vt_clock_now();
	p[0].region = lock;
	p[0].kind = kind;
	struct vt_rec_thread *x = (struct vt_rec_thread *)&p[1];
	x->value = order;
	x->a = OTF2_PARADIGM_PTHREAD;
	x->b = 0;
	vt_buf_commit(t, p, 2);
}

/* The mutex was acquired by t (the caller holds it now). */
static void acquired(struct vt_tls *t, const void *m)
{
	struct lock_slot *s = last_lock.m == m ? last_lock.s : lock_of(m, true);
	if (!s)
		return;
	last_lock.m = m;
	last_lock.s = s;
	uint32_t order = s->order++;
	s->held = order;
	__atomic_store_n(&s->holder, (uintptr_t)t, __ATOMIC_RELAXED);
	put_lock(t, VT_REC_THREAD_ACQUIRE_LOCK, lock_number(s), order);
}

/* The slot of a mutex whose acquisition by t was recorded, else NULL. */
static struct lock_slot *held_by(struct vt_tls *t, const void *m)
{
	struct lock_slot *s = last_lock.m == m ? last_lock.s : lock_of(m, false);
	return s && __atomic_load_n(&s->holder, __ATOMIC_RELAXED) == (uintptr_t)t ? s : NULL;
}

/* The mutex (its slot from held_by) is about to be released by t, which still holds it. */
static void releasing(struct vt_tls *t, struct lock_slot *s)
{
	__atomic_store_n(&s->holder, 0, __ATOMIC_RELAXED);
	put_lock(t, VT_REC_THREAD_RELEASE_LOCK, lock_number(s), s->held);
}

/* A lock call's outcome: the mutex is held (EOWNERDEAD: held, its last owner died). */
static bool holds(int rc)
{
	return rc == 0 || rc == EOWNERDEAD;
}

/* ---- threads ---------------------------------------------------------------------------- */

static void remember(pthread_t th, uint64_t seq)
{
	pthread_mutex_lock(&pe.threads_lock);
	uint32_t i = 0;
	while (i < pe.n_threads && !pthread_equal(pe.threads[i].th, th))
		i++;
	if (i < THREADS_MAX) {
		/* A detached thread's id may come back: the new thread replaces it. */
		pe.threads[i] = (struct numbered){th, seq};
		if (i == pe.n_threads)
			__atomic_store_n(&pe.n_threads, i + 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&pe.threads_lock);
}

/* The number of a joined thread (0: none), forgotten. */
static uint64_t forget(pthread_t th)
{
	if (!__atomic_load_n(&pe.n_threads, __ATOMIC_RELAXED))
		return 0;
	uint64_t seq = 0;
	pthread_mutex_lock(&pe.threads_lock);
	for (uint32_t i = 0; i < pe.n_threads; i++) {
		if (pthread_equal(pe.threads[i].th, th)) {
			seq = pe.threads[i].seq;
			pe.threads[i] = pe.threads[pe.n_threads - 1];
			__atomic_store_n(&pe.n_threads, pe.n_threads - 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&pe.threads_lock);
	return seq;
}

static uint64_t thread_create(const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return 0;
	uint64_t seq = SEQ_BASE + 1 + __atomic_fetch_add(&pe.next_seq, 1, __ATOMIC_RELAXED);
	vt_thread_enter(t, region(R_CREATE));
	/* Before the thread exists: its ThreadBegin cannot come earlier. A failed creation
	 * leaves a ThreadCreate that no ThreadBegin answers. */
	vt_threads_put(t, 0, VT_REC_THREAD_CREATE, seq, 0, 0);
	return seq;
}

static void thread_created(uint64_t seq, int rc, pthread_t th)
{
	if (rc == 0)
		remember(th, seq);
	vt_thread_leave(&vt_tls, region(R_CREATE));
}

static void thread_begin(uint64_t seq)
{
	if (vt_core_state() == VT_STATE_ON)
		(void)vt_thread_begin_seq(&vt_tls, seq);
}

static int join(pthread_t th, void **ret, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t) {
		int rc = pthread_join(th, ret);
		if (rc == 0)
			(void)forget(th);
		return rc;
	}
	uint32_t r = region(R_JOIN);
	vt_thread_enter(t, r);
	int rc = pthread_join(th, ret);
	if (rc == 0) {
		uint64_t seq = forget(th);
		if (seq)
			vt_threads_put(t, 0, VT_REC_THREAD_WAIT, seq, 0, 0);
	}
	vt_thread_leave(t, r);
	return rc;
}

/* ---- mutexes and condition variables ---------------------------------------------------- */

static int mutex_lock(pthread_mutex_t *m, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_mutex_lock(m);
	uint32_t r = region(R_LOCK);
	vt_thread_enter(t, r);
	int rc = pthread_mutex_lock(m);
	if (holds(rc))
		acquired(t, m);
	vt_thread_leave(t, r);
	return rc;
}

static int mutex_trylock(pthread_mutex_t *m, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_mutex_trylock(m);
	uint32_t r = region(R_TRYLOCK);
	vt_thread_enter(t, r);
	int rc = pthread_mutex_trylock(m);
	if (holds(rc))
		acquired(t, m);
	vt_thread_leave(t, r);
	return rc;
}

static int mutex_timedlock(pthread_mutex_t *m, const struct timespec *at, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_mutex_timedlock(m, at);
	uint32_t r = region(R_TIMEDLOCK);
	vt_thread_enter(t, r);
	int rc = pthread_mutex_timedlock(m, at);
	if (holds(rc))
		acquired(t, m);
	vt_thread_leave(t, r);
	return rc;
}

/*
 * An unlock is recorded when the acquisition was, whoever calls it: a library's function
 * that ends in a tail call of pthread_mutex_unlock looks like its caller's call, and an
 * unlock of a mutex a library locked is not the program's. Acquisitions and releases pair.
 */
static int mutex_unlock(pthread_mutex_t *m, const void *caller)
{
	(void)caller;
	struct vt_tls *t = recording_now();
	struct lock_slot *s = t ? held_by(t, m) : NULL;
	if (!s)
		return pthread_mutex_unlock(m);
	uint32_t r = region(R_UNLOCK);
	vt_thread_enter(t, r);
	/* While still held: the next owner's acquisition cannot come before it. */
	releasing(t, s);
	int rc = pthread_mutex_unlock(m);
	vt_thread_leave(t, r);
	return rc;
}

/* The mutex is released while the thread waits and held again when it returns (also on a
 * timeout). */
static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_cond_wait(c, m);
	uint32_t r = region(R_WAIT);
	vt_thread_enter(t, r);
	struct lock_slot *s = held_by(t, m);
	if (s)
		releasing(t, s);
	int rc = pthread_cond_wait(c, m);
	acquired(t, m);
	vt_thread_leave(t, r);
	return rc;
}

static int cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at,
			  const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_cond_timedwait(c, m, at);
	uint32_t r = region(R_TIMEDWAIT);
	vt_thread_enter(t, r);
	struct lock_slot *s = held_by(t, m);
	if (s)
		releasing(t, s);
	int rc = pthread_cond_timedwait(c, m, at);
	/* EINVAL (a bad argument): nothing was released or taken; else it is held again. */
	if (rc != EINVAL)
		acquired(t, m);
	vt_thread_leave(t, r);
	return rc;
}

static int cond_signal(pthread_cond_t *c, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_cond_signal(c);
	uint32_t r = region(R_SIGNAL);
	vt_thread_enter(t, r);
	int rc = pthread_cond_signal(c);
	vt_thread_leave(t, r);
	return rc;
}

static int cond_broadcast(pthread_cond_t *c, const void *caller)
{
	struct vt_tls *t = recording(caller);
	if (!t)
		return pthread_cond_broadcast(c);
	uint32_t r = region(R_BROADCAST);
	vt_thread_enter(t, r);
	int rc = pthread_cond_broadcast(c);
	vt_thread_leave(t, r);
	return rc;
}

static const struct vt_pthread_hooks hooks = {
    .thread_create = thread_create,
    .thread_created = thread_created,
    .thread_begin = thread_begin,
    .join = join,
    .mutex_lock = mutex_lock,
    .mutex_trylock = mutex_trylock,
    .mutex_timedlock = mutex_timedlock,
    .mutex_unlock = mutex_unlock,
    .cond_wait = cond_wait,
    .cond_timedwait = cond_timedwait,
    .cond_signal = cond_signal,
    .cond_broadcast = cond_broadcast,
};

const struct vt_pthread_hooks *vt_pthread_events_hooks(void)
{
	return &hooks;
}
