/* SPDX-License-Identifier: BSD-3-Clause */
/* The OMPT tool in libvt: OpenMP's regions, thread teams and locks in OTF2's thread model. */
#include "threads/vt_ompt.h"
#include "base/vt_config.h"
#include "base/vt_state.h"
#include "defs/vt_teams.h"
#include "regions/vt_region.h"
#include "threads/vt_omp_runtime.h"
#include "threads/vt_threads.h"

#include VT_OMP_TOOLS_H

#include <errno.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/*
 * LLVM's libomp looks for ompt_start_tool in the global namespace when it initialises
 * (lazily, at the program's first OpenMP call, or earlier from a constructor): libvt
 * exports it. The callbacks run on the program's threads and record like any producer,
 * through the thread's reservation: no lock, and no allocation once a thread's forks and
 * the process's teams are known.
 *
 * Teams: a team's identity is the list of its members' locations (defs/vt_teams.h). The
 * thread that forks a parallel region hands its members a fork record (parallel_data); each
 * member writes its location there at its implicit task's begin and the last one to arrive
 * looks the team up (lock-free when known; the fork record remembers its last team, so a
 * loop of identical regions does not even hash) and publishes it; the others wait for it,
 * which they do at most as long as it takes the runtime to start the team's last thread.
 * Every member's ThreadTeamBegin then names the same communicator, stamped when its
 * implicit task began.
 */

/* The constructs, each a region per code address; < 64 (vt_region_of_code). */
enum construct {
	C_PARALLEL,
	C_BARRIER,
	C_IMPLICIT_BARRIER,
	C_IMPL_BARRIER,
	C_TASKWAIT,
	C_TASKGROUP,
	C_LOOP,
	C_SECTIONS,
	C_SINGLE,
	C_WORKSHARE,
	C_DISTRIBUTE,
	C_TASKLOOP,
	C_SCOPE,
	C_MASKED,
	C_CRITICAL,
	C_ATOMIC,
	C_ORDERED,
	C_SET_LOCK,
	C_UNSET_LOCK,
	C_TEST_LOCK,
	C_SET_NEST_LOCK,
	C_UNSET_NEST_LOCK,
	C_TEST_NEST_LOCK,
	C_TASK_CREATE,
	C_TASK,
	C_TASK_UNTIED,
	C_MAX
};

static const struct {
	const char *prefix;
	uint8_t role;
	bool at_code; /* named after its code address ("... @file:line") */
} constructs[C_MAX] = {
    [C_PARALLEL] = {"!$omp parallel", OTF2_REGION_ROLE_PARALLEL, true},
    [C_BARRIER] = {"!$omp barrier", OTF2_REGION_ROLE_BARRIER, true},
    [C_IMPLICIT_BARRIER] = {"!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER, true},
    [C_IMPL_BARRIER] = {"!$omp implementation barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER, true},
    [C_TASKWAIT] = {"!$omp taskwait", OTF2_REGION_ROLE_TASK_WAIT, true},
    [C_TASKGROUP] = {"!$omp taskgroup", OTF2_REGION_ROLE_TASK_WAIT, true},
    [C_LOOP] = {"!$omp for", OTF2_REGION_ROLE_LOOP, true},
    [C_SECTIONS] = {"!$omp sections", OTF2_REGION_ROLE_SECTIONS, true},
    [C_SINGLE] = {"!$omp single", OTF2_REGION_ROLE_SINGLE, true},
    [C_WORKSHARE] = {"!$omp workshare", OTF2_REGION_ROLE_WORKSHARE, true},
    [C_DISTRIBUTE] = {"!$omp distribute", OTF2_REGION_ROLE_LOOP, true},
    [C_TASKLOOP] = {"!$omp taskloop", OTF2_REGION_ROLE_LOOP, true},
    [C_SCOPE] = {"!$omp scope", OTF2_REGION_ROLE_CODE, true},
    [C_MASKED] = {"!$omp masked", OTF2_REGION_ROLE_MASTER, true},
    [C_CRITICAL] = {"!$omp critical", OTF2_REGION_ROLE_CRITICAL, true},
    [C_ATOMIC] = {"!$omp atomic", OTF2_REGION_ROLE_ATOMIC, true},
    [C_ORDERED] = {"!$omp ordered", OTF2_REGION_ROLE_ORDERED, true},
    [C_SET_LOCK] = {"omp_set_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_UNSET_LOCK] = {"omp_unset_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_TEST_LOCK] = {"omp_test_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_SET_NEST_LOCK] = {"omp_set_nest_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_UNSET_NEST_LOCK] = {"omp_unset_nest_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_TEST_NEST_LOCK] = {"omp_test_nest_lock", OTF2_REGION_ROLE_FUNCTION, false},
    [C_TASK_CREATE] = {"!$omp task create", OTF2_REGION_ROLE_TASK_CREATE, true},
    [C_TASK] = {"!$omp task", OTF2_REGION_ROLE_TASK, true},
    [C_TASK_UNTIED] = {"!$omp task untied", OTF2_REGION_ROLE_TASK_UNTIED, true},
};

#define FORK_DEPTH 16	/* parallel regions one thread forks inside each other */
#define OPEN_DEPTH 64	/* construct regions open on one thread */
#define LOCKS	   4096 /* distinct locks and critical sections (more: not recorded) */
#define HELD	   16	/* locks one thread holds at once (more: their orders are not kept) */

/*
 * A parallel region a thread forks, at its depth of forks: reused by its next region there
 * (the previous one has ended: every member passed its begin before the join). members,
 * arrived and team are written by the team's members; the rest by the forking thread, or
 * by the last member to arrive, which the runtime's barriers order.
 */
struct fork {
	uint32_t *members; /* location index per thread number, cap of them */
	uint32_t cap;
	uint32_t arrived;
	uint32_t team;	 /* 0 until the last member published it */
	uint32_t region; /* the parallel construct's region */
	uint32_t *last;	 /* the last team's members, its size and id */
	uint32_t last_n, last_cap, last_team;
	uint32_t gen;	   /* counts the regions forked here */
	uintptr_t code;	   /* the parallel construct's code address */
	uint32_t join_gen; /* the region that joined last, at join_ts (atomic) */
	uint64_t join_ts;
};

/*
 * An implicit task a thread is in. libomp reports the end of a worker's implicit task, and
 * of the barrier that joined it, only when it next gives the worker work: those ends are
 * stamped with the time the forking thread joined the team, when that time is known.
 */
struct itask {
	struct fork *f;
	uintptr_t code;
	uint32_t team, region, gen, k;
	uint32_t open_base; /* the thread's open constructs when it began (n_open) */
	bool recorded;
};

/* What one thread keeps: its forks and the construct regions it has open. */
struct omp_thread {
	struct fork forks[FORK_DEPTH];
	uint32_t n_forks;
	struct itask tasks[FORK_DEPTH];
	uint32_t n_tasks;
	uint32_t n_open;
	struct {
		uint32_t region;
		uint32_t construct;
	} open[OPEN_DEPTH];
	/* The locks the thread holds and the order it acquired each in: the runtime reports a
	 * release after the lock is free, when another thread may hold it already. */
	uint32_t n_held;
	struct {
		uint32_t lock, order;
	} held[HELD];
	/* A lock call begun (on_mutex_acquire of a lock or nest lock): its region and when.
	 * Its region is entered only once the call holds the lock, stamped then: libomp
	 * reports omp_test_lock as omp_set_lock, and of a test that fails only the begin. */
	struct {
		uint64_t ts;
		uint32_t region, construct;
		bool begun;
	} call;
	uint32_t tasks_made; /* explicit tasks this thread created: their generation numbers */
	/* The explicit task the thread runs (0: its implicit task), and how many construct
	 * regions were open when it switched to it: the task's own are above. */
	uint64_t task;
	uint32_t task_base;
	/* A worker's entry in the list of workers (omp.workers), and its location. */
	struct omp_thread *next, **pprev;
	struct vt_loc *loc;
};

/* The thread's, made at its first callback (one allocation per thread) and kept after it
 * ends: its forks are read by the members of its teams, a late worker's end among them. */
static __thread struct omp_thread *omp_me __attribute__((tls_model("initial-exec")));

/* The calling thread's state; NULL only when no memory was left for it. */
static struct omp_thread *me(void)
{
	struct omp_thread *o = omp_me;
	if (vt_likely(o))
		return o;
	int saved = errno;
	o = calloc(1, sizeof(*o));
	errno = saved;
	omp_me = o;
	return o;
}

/* Written at initialize (and mode once known), read by the callbacks. */
static struct {
	/* The runtime's workers that record, for the end of the run (stop). */
	pthread_mutex_t workers_lock;
	struct omp_thread *workers;
	int mode;     /* enum vt_openmp_mode; -1: not known yet (vt not started) */
	bool stopped; /* vt finalises: nothing more is recorded */
	ompt_start_tool_result_t result;
	/* Locks by their wait id: a slot's key (wait id + 1) is claimed with a CAS and never
	 * changes; order counts its acquisitions (written by the holder). */
	struct {
		uint64_t key;
		uint32_t order;
	} locks[LOCKS];
} omp = {.mode = -1, .workers_lock = PTHREAD_MUTEX_INITIALIZER};

/* The mode, once vt has started (VT_OPENMP); OFF while it has not or does not record. */
static int mode(void)
{
	int m = __atomic_load_n(&omp.mode, __ATOMIC_RELAXED);
	if (vt_likely(m >= 0))
		return __atomic_load_n(&omp.stopped, __ATOMIC_RELAXED) ? VT_OPENMP_OFF : m;
	int s = vt_core_state();
	if (s == VT_STATE_ON)
		m = vt_cfg.openmp;
	else if (s == VT_STATE_NEW || s == VT_STATE_INITIALISING)
		return VT_OPENMP_OFF;
	else
		m = VT_OPENMP_OFF;
	__atomic_store_n(&omp.mode, m, __ATOMIC_RELAXED);
	return m;
}

/* The calling thread's recording state, when OpenMP events are recorded at level want. */
static struct vt_tls *self(int want)
{
	return mode() >= want ? vt_thread_self() : NULL;
}

static uint32_t region_of(enum construct c, const void *codeptr)
{
	uintptr_t code = constructs[c].at_code ? (uintptr_t)codeptr : 0;
	return vt_region_of_code(code, c, constructs[c].prefix, OTF2_PARADIGM_OPENMP,
				 constructs[c].role);
}

static void open_region_id(struct vt_tls *t, enum construct c, uint32_t region)
{
	struct omp_thread *o = me();
	if (!o)
		return;
	if (o->n_open < OPEN_DEPTH) {
		o->open[o->n_open].region = region;
		o->open[o->n_open].construct = c;
	}
	o->n_open++;
	vt_thread_enter(t, region);
}

static void open_region(struct vt_tls *t, enum construct c, const void *codeptr)
{
	open_region_id(t, c, region_of(c, codeptr));
}

/* The region of the lock call the thread began (o->call), entered at its begin; false when
 * none was begun (then the caller opens one now). */
static bool open_call(struct vt_tls *t, struct omp_thread *o, enum construct c)
{
	if (!o->call.begun || o->call.construct != (uint32_t)c)
		return false;
	o->call.begun = false;
	if (t->sync) { /* an Enter with the counters' values, now */
		open_region_id(t, c, o->call.region);
		return true;
	}
	if (o->n_open < OPEN_DEPTH) {
		o->open[o->n_open].region = o->call.region;
		o->open[o->n_open].construct = c;
	}
	o->n_open++;
	if (++t->depth > vt_max_depth)
		return true;
	union vt_rec_payload none = {0};
	vt_thread_put_event_at(t, o->call.ts, o->call.region, VT_REC_ENTER, &none, 0);
	return true;
}

/* A Leave stamped ts (not later than now). */
static void leave_at(struct vt_tls *t, uint32_t region, uint64_t ts)
{
	union vt_rec_payload none = {0};
	if (t->sync || ts == UINT64_MAX) {
		vt_thread_leave(t, region); /* with the counters' values, now */
		return;
	}
	if (t->depth-- > vt_max_depth)
		return;
	vt_thread_put_event_at(t, ts, region, VT_REC_LEAVE, &none, 0);
}

/* The innermost implicit task of the thread, or NULL. */
static struct itask *itask_now(void)
{
	struct omp_thread *o = me();
	return o && o->n_tasks && o->n_tasks <= FORK_DEPTH ? &o->tasks[o->n_tasks - 1] : NULL;
}

/* When the end of something in implicit task it happened: the join's time when the team
 * has joined already (a worker's late end), else now (UINT64_MAX). */
static uint64_t end_ts(const struct itask *it)
{
	if (!it || !it->f || __atomic_load_n(&it->f->join_gen, __ATOMIC_ACQUIRE) != it->gen)
		return UINT64_MAX;
	uint64_t ts = __atomic_load_n(&it->f->join_ts, __ATOMIC_RELAXED);
	return ts < vt_clock_now() ? ts : UINT64_MAX;
}

/* The end of the innermost construct c: its Leave, if its Enter was recorded. */
static void close_region_at(struct vt_tls *t, enum construct c, uint64_t ts)
{
	struct omp_thread *o = me();
	if (!o || !o->n_open)
		return;
	if (o->n_open > OPEN_DEPTH) {
		o->n_open--;
		return;
	}
	if (o->open[o->n_open - 1].construct != c)
		return;
	o->n_open--;
	if (t)
		leave_at(t, o->open[o->n_open].region, ts);
}

static void close_region(struct vt_tls *t, enum construct c)
{
	close_region_at(t, c, UINT64_MAX);
}

static void put_team(struct vt_tls *t, uint64_t ts, uint32_t team, uint32_t kind)
{
	union vt_rec_payload none = {0};
	vt_thread_put_event_at(t, ts, team, kind, &none, 0);
}

/* ---- parallel regions and teams ---- */

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *codeptr)
{
	struct omp_thread *o = me();
	parallel->ptr = NULL;
	if (!o)
		return;
	uint32_t depth = o->n_forks++;
	if (depth >= FORK_DEPTH || (flags & ompt_parallel_league) || !requested)
		return;
	struct fork *f = &o->forks[depth];
	if (f->cap < requested) {
		uint32_t *m = realloc(f->members, requested * sizeof(*m));
		if (!m)
			return;
		f->members = m;
		f->cap = requested;
	}
	f->arrived = 0;
	f->team = 0;
	f->gen++;
	f->code = (uintptr_t)codeptr;
	f->region = region_of(C_PARALLEL, codeptr);
	parallel->ptr = f;
	struct vt_tls *t = self(VT_OPENMP_REGIONS);
	if (t)
		vt_threads_put(t, requested, VT_REC_THREAD_FORK, 0, OTF2_PARADIGM_OPENMP, 0);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
			    const void *codeptr)
{
	struct omp_thread *o = me();
	if (o && o->n_forks)
		o->n_forks--;
	struct fork *f = parallel->ptr;
	if (f) {
		__atomic_store_n(&f->join_ts, vt_clock_now(), __ATOMIC_RELAXED);
		__atomic_store_n(&f->join_gen, f->gen, __ATOMIC_RELEASE);
	}
	struct vt_tls *t = f ? self(VT_OPENMP_REGIONS) : NULL;
	if (t)
		vt_threads_put(t, 0, VT_REC_THREAD_JOIN, 0, OTF2_PARADIGM_OPENMP, 0);
}

/* The team of the fork f that thread k of n joins with location loc: see the top. Every
 * member arrives, recording or not, or the others would wait for it forever. */
static uint32_t join(struct fork *f, uint32_t n, uint32_t k, uint32_t loc)
{
	if (n > f->cap || k >= n)
		return VT_TEAMS_NONE; /* the same answer for every member */
	f->members[k] = loc;
	if (__atomic_add_fetch(&f->arrived, 1, __ATOMIC_ACQ_REL) == n) {
		uint32_t team = f->last_team;
		if (f->last_n != n || memcmp(f->last, f->members, n * sizeof(*f->members)) != 0) {
			team = vt_teams_id(f->members, n);
			if (f->last_cap < n) {
				uint32_t *l = realloc(f->last, n * sizeof(*l));
				f->last_n = 0;
				if (l) {
					f->last = l;
					f->last_cap = n;
				}
			}
			if (f->last_cap >= n) {
				memcpy(f->last, f->members, n * sizeof(*f->members));
				f->last_n = n;
				f->last_team = team;
			}
		}
		__atomic_store_n(&f->team, team, __ATOMIC_RELEASE);
		return team;
	}
	uint32_t team;
	for (unsigned spins = 0; !(team = __atomic_load_n(&f->team, __ATOMIC_ACQUIRE)); spins++) {
		if (spins < 256)
			__builtin_ia32_pause();
		else
			sched_yield();
	}
	return team;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int n, unsigned int k, int flags)
{
	struct omp_thread *o = me();
	if (flags & ompt_task_initial)
		return; /* a thread's initial task (or a league's): its location is the thread */
	if (endpoint == ompt_scope_begin) {
		uint64_t ts = vt_clock_now();
		struct fork *f = parallel ? parallel->ptr : NULL;
		task->value = 0;
		if (!f)
			return;
		struct vt_tls *t = self(VT_OPENMP_REGIONS);
		uint32_t team = join(f, n, k, t && t->loc ? t->loc->index : VT_TEAMS_NO_LOCATION);
		if (!o)
			return;
		task->value = 1;
		uint32_t i = o->n_tasks++;
		if (i >= FORK_DEPTH)
			return;
		struct itask *it = &o->tasks[i];
		*it = (struct itask){f, f->code, team, f->region, f->gen, k, o->n_open, false};
		if (!t || team == VT_TEAMS_NONE)
			return;
		put_team(t, ts, team, VT_REC_THREAD_TEAM_BEGIN);
		vt_thread_enter(t, f->region);
		it->recorded = true;
		return;
	}
	if (!task->value || !o || !o->n_tasks)
		return;
	task->value = 0;
	struct itask *it = itask_now();
	o->n_tasks--;
	struct vt_tls *t = it && it->recorded ? vt_thread_self() : NULL;
	/*
	 * Constructs still open in the task end with it, innermost first: a single's executor
	 * under libgomp's ABI (gcc's code) hears no end of it, as gcc calls no function at the
	 * end of a single; without their Leaves here the region's Leave would not match.
	 */
	uint32_t base = it ? it->open_base : o->n_open;
	uint64_t ts = t ? end_ts(it) : UINT64_MAX;
	while (o->n_open > base) {
		o->n_open--;
		if (t && o->n_open < OPEN_DEPTH)
			leave_at(t, o->open[o->n_open].region, ts);
	}
	if (t) {
		leave_at(t, it->region, ts);
		put_team(t, ts == UINT64_MAX ? vt_clock_now() : ts, it->team,
			 VT_REC_THREAD_TEAM_END);
	}
}

/* ---- barriers, waits and worksharing ---- */

static int sync_construct(ompt_sync_region_t kind)
{
	switch ((int)kind) {
	case ompt_sync_region_barrier_explicit:
		return C_BARRIER;
	case ompt_sync_region_barrier:
	case ompt_sync_region_barrier_implicit:
	case ompt_sync_region_barrier_implicit_workshare:
	case ompt_sync_region_barrier_implicit_parallel:
		return C_IMPLICIT_BARRIER;
	case ompt_sync_region_barrier_implementation:
		return C_IMPL_BARRIER;
	case ompt_sync_region_taskwait:
		return C_TASKWAIT;
	case ompt_sync_region_taskgroup:
		return C_TASKGROUP;
	default:
		return -1; /* reductions, teams: not recorded */
	}
}

static void scoped(ompt_scope_endpoint_t endpoint, int c, const void *codeptr)
{
	if (c < 0)
		return;
	struct vt_tls *t = self(VT_OPENMP_REGIONS);
	struct itask *it = itask_now();
	if (endpoint == ompt_scope_begin) {
		/* A worker's barriers come without an address: its parallel construct's. */
		if (!codeptr && it)
			codeptr = (const void *)it->code;
		if (t)
			open_region(t, (enum construct)c, codeptr);
	} else {
		close_region_at(t, (enum construct)c, end_ts(it));
	}
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			   ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	scoped(endpoint, sync_construct(kind), codeptr);
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
		    ompt_data_t *task, uint64_t count, const void *codeptr)
{
	static const int8_t of[] = {
	    [ompt_work_loop] = C_LOOP,
	    [ompt_work_sections] = C_SECTIONS,
	    [ompt_work_single_executor] = C_SINGLE,
	    [ompt_work_single_other] = C_SINGLE,
	    [ompt_work_workshare] = C_WORKSHARE,
	    [ompt_work_distribute] = C_DISTRIBUTE,
	    [ompt_work_taskloop] = C_TASKLOOP,
	    [ompt_work_scope] = C_SCOPE,
	};
	int c = kind > 0 && (size_t)kind < sizeof(of) ? of[kind] : -1;
	scoped(endpoint, c, codeptr);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
		      const void *codeptr)
{
	scoped(endpoint, C_MASKED, codeptr);
}

/* ---- locks, critical sections, atomics, ordered ---- */

/* The lock's number (its slot), or LOCKS when the table is full. */
static uint32_t lock_of(ompt_wait_id_t wait_id)
{
	uint64_t key = (uint64_t)wait_id + 1;
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (LOCKS - 1);
	for (uint32_t probes = 0; probes < LOCKS; probes++, i = (i + 1) & (LOCKS - 1)) {
		uint64_t k = __atomic_load_n(&omp.locks[i].key, __ATOMIC_ACQUIRE);
		if (k == key)
			return i;
		if (!k) {
			uint64_t empty = 0;
			if (__atomic_compare_exchange_n(&omp.locks[i].key, &empty, key, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
			    empty == key)
				return i;
		}
	}
	return LOCKS;
}

/* The region that waits for a mutex of kind (the construct, or the lock call). */
static int acquire_construct(ompt_mutex_t kind)
{
	switch ((int)kind) {
	case ompt_mutex_lock:
		return C_SET_LOCK;
	case ompt_mutex_nest_lock:
		return C_SET_NEST_LOCK;
	case ompt_mutex_critical:
		return C_CRITICAL;
	case ompt_mutex_atomic:
		return C_ATOMIC;
	case ompt_mutex_ordered:
		return C_ORDERED;
	default:
		return -1; /* tests: one region when they succeed (on_mutex_acquired) */
	}
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t wait_id, const void *codeptr)
{
	int c = acquire_construct(kind);
	struct vt_tls *t = c >= 0 ? self(VT_OPENMP_ALL) : NULL;
	struct omp_thread *o = t ? me() : NULL;
	if (!o)
		return;
	if (c == C_SET_LOCK || c == C_SET_NEST_LOCK) {
		o->call.ts = vt_clock_now();
		o->call.region = region_of((enum construct)c, codeptr);
		o->call.construct = (uint32_t)c;
		o->call.begun = true;
		return;
	}
	open_region(t, (enum construct)c, codeptr);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	struct vt_tls *t = self(VT_OPENMP_ALL);
	uint32_t lock = lock_of(wait_id);
	if (lock == LOCKS)
		return;
	/* Only the holder counts, so the count is the order of this acquisition. */
	uint32_t order = ++omp.locks[lock].order;
	struct omp_thread *o = me();
	if (o && o->n_held < HELD) {
		o->held[o->n_held].lock = lock;
		o->held[o->n_held].order = order;
	}
	if (o)
		o->n_held++;
	if (!t)
		return;
	bool test = kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock;
	if (test)
		open_region(t, kind == ompt_mutex_test_lock ? C_TEST_LOCK : C_TEST_NEST_LOCK,
			    codeptr);
	else if ((kind == ompt_mutex_lock || kind == ompt_mutex_nest_lock) && o &&
		 !open_call(t, o, kind == ompt_mutex_lock ? C_SET_LOCK : C_SET_NEST_LOCK))
		open_region(t, kind == ompt_mutex_lock ? C_SET_LOCK : C_SET_NEST_LOCK, codeptr);
	vt_threads_put(t, lock, VT_REC_THREAD_ACQUIRE_LOCK, order, OTF2_PARADIGM_OPENMP, 0);
	/* A lock call ends when it holds the lock; a construct's region lasts until release. */
	if (test)
		close_region(t, kind == ompt_mutex_test_lock ? C_TEST_LOCK : C_TEST_NEST_LOCK);
	else if (kind == ompt_mutex_lock)
		close_region(t, C_SET_LOCK);
	else if (kind == ompt_mutex_nest_lock)
		close_region(t, C_SET_NEST_LOCK);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	struct vt_tls *t = self(VT_OPENMP_ALL);
	uint32_t lock = lock_of(wait_id), order = 0;
	struct omp_thread *o = me();
	/* The innermost acquisition of this lock the thread holds (locks may be released in
	 * any order). */
	uint32_t kept = !o ? 0 : o->n_held < HELD ? o->n_held : HELD;
	for (uint32_t i = kept; lock < LOCKS && i-- > 0;) {
		if (o->held[i].lock != lock)
			continue;
		order = o->held[i].order;
		memmove(&o->held[i], &o->held[i + 1], (kept - i - 1) * sizeof(o->held[0]));
		o->n_held--;
		break;
	}
	bool call = kind == ompt_mutex_lock || kind == ompt_mutex_test_lock ||
		    kind == ompt_mutex_nest_lock || kind == ompt_mutex_test_nest_lock;
	bool nest = kind == ompt_mutex_nest_lock || kind == ompt_mutex_test_nest_lock;
	if (!t)
		return;
	if (call)
		open_region(t, nest ? C_UNSET_NEST_LOCK : C_UNSET_LOCK, codeptr);
	if (lock < LOCKS && order)
		vt_threads_put(t, lock, VT_REC_THREAD_RELEASE_LOCK, order, OTF2_PARADIGM_OPENMP, 0);
	if (call)
		close_region(t, nest ? C_UNSET_NEST_LOCK : C_UNSET_LOCK);
	else if (acquire_construct(kind) >= 0)
		close_region(t, (enum construct)acquire_construct(kind));
}

/*
 * A nest lock its thread holds already: libomp reports the inner levels with this callback
 * alone (no acquired, no released), and they change nothing of who holds the lock, so they
 * are no OTF2 acquisition or release. Their calls are still regions: a set's (or a test's,
 * which libomp reports as a set) from its begin, an unset's here.
 */
static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
			 const void *codeptr)
{
	struct vt_tls *t = self(VT_OPENMP_ALL);
	struct omp_thread *o = me();
	(void)wait_id;
	if (!t || !o)
		return;
	enum construct c = endpoint == ompt_scope_end ? C_UNSET_NEST_LOCK : C_SET_NEST_LOCK;
	if (endpoint != ompt_scope_begin || !open_call(t, o, c))
		open_region(t, c, codeptr);
	close_region(t, c);
}

/* ---- explicit tasks ---- */

/*
 * An explicit task is (team, creating thread's number in it, generation): its task data
 * holds them with its region, so that no task needs memory of vt's own. Bits: 63 a recorded
 * explicit task, 61..50 the team (its index), 49..40 the creating thread, 39..20 the
 * generation (the creator's count, from 1, wrapping after 2^20 - 1), 19..0 the task's
 * region. An implicit task's data is 1 (on_implicit_task); it is (team, the thread's
 * number, 0).
 *
 * A task's region is entered each time a thread switches to it and left each time the task
 * completes or is suspended, with the regions it opened since: an untied task that resumes
 * on another thread goes on there in a region of its own, and each location's regions stay
 * nested (a suspended task's constructs end where it was suspended).
 */
#define TASK_EXPLICIT (1ull << 63)

static uint64_t task_pack(uint32_t team, uint32_t k, uint32_t gen, uint32_t region)
{
	return TASK_EXPLICIT | (uint64_t)((team - VT_TEAMS_LOCAL_BASE) & 0xFFF) << 50 |
	       (uint64_t)(k & 0x3FF) << 40 | (uint64_t)(gen & 0xFFFFF) << 20 | (region & 0xFFFFF);
}

static void task_put(struct vt_tls *t, uint64_t v, uint32_t kind)
{
	vt_threads_put(t, VT_TEAMS_LOCAL_BASE + (uint32_t)(v >> 50 & 0xFFF), kind, 0,
		       (uint32_t)(v >> 40 & 0x3FF), (uint32_t)(v >> 20 & 0xFFFFF));
}

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task,
			   int flags, int has_dependences, const void *codeptr)
{
	new_task->value = 0;
	if (!(flags & ompt_task_explicit))
		return;
	struct vt_tls *t = self(VT_OPENMP_ALL);
	struct itask *it = itask_now();
	if (!t || !it || !it->recorded || (it->team - VT_TEAMS_LOCAL_BASE) > 0xFFF || it->k > 0x3FF)
		return;
	struct omp_thread *o = me();
	if (!o)
		return;
	uint32_t gen = ++o->tasks_made & 0xFFFFF;
	if (!gen)
		gen = ++o->tasks_made & 0xFFFFF; /* 0 is the implicit task's */
	uint32_t body = region_of(flags & ompt_task_untied ? C_TASK_UNTIED : C_TASK, codeptr);
	new_task->value = task_pack(it->team, it->k, gen, body);
	open_region(t, C_TASK_CREATE, codeptr);
	task_put(t, new_task->value, VT_REC_THREAD_TASK_CREATE);
	close_region(t, C_TASK_CREATE);
}

/* The thread leaves the explicit task it runs: the regions opened since it switched to it. */
static void leave_task(struct vt_tls *t, struct omp_thread *o)
{
	for (; o->n_open > o->task_base; o->n_open--)
		if (o->n_open <= OPEN_DEPTH)
			vt_thread_leave(t, o->open[o->n_open - 1].region);
	o->task = 0;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	struct vt_tls *t = self(VT_OPENMP_ALL);
	struct omp_thread *o = me();
	uint64_t p = prior ? prior->value : 0, n = next ? next->value : 0;
	if (!t || !o)
		return;
	if ((p & TASK_EXPLICIT) && p == o->task) {
		leave_task(t, o);
		if (status == ompt_task_complete || status == ompt_task_cancel ||
		    status == ompt_task_late_fulfill)
			task_put(t, p, VT_REC_THREAD_TASK_COMPLETE);
	}
	if (n & TASK_EXPLICIT) {
		task_put(t, n, VT_REC_THREAD_TASK_SWITCH);
		o->task = n;
		o->task_base = o->n_open;
		bool untied = vt_region_at(n & 0xFFFFF)->role == OTF2_REGION_ROLE_TASK_UNTIED;
		open_region_id(t, untied ? C_TASK_UNTIED : C_TASK, (uint32_t)(n & 0xFFFFF));
	} else if (n == 1 && (p & TASK_EXPLICIT)) {
		/* back to the thread's implicit task */
		struct itask *it = itask_now();
		if (it && it->recorded)
			vt_threads_put(t, it->team, VT_REC_THREAD_TASK_SWITCH, 0, it->k, 0);
	}
}

/* ---- threads ---- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread)
{
	/* The thread's location from its start, in the order the runtime starts them. */
	struct vt_tls *t = self(VT_OPENMP_REGIONS);
	struct omp_thread *o = me();
	if (!t || !t->loc || !o || type != ompt_thread_worker || o->pprev)
		return;
	o->loc = t->loc;
	pthread_mutex_lock(&omp.workers_lock);
	o->next = omp.workers;
	if (o->next)
		o->next->pprev = &o->next;
	o->pprev = &omp.workers;
	omp.workers = o;
	pthread_mutex_unlock(&omp.workers_lock);
}

static void on_thread_end(ompt_data_t *thread)
{
	struct omp_thread *o = me();
	if (!o || !o->pprev)
		return;
	pthread_mutex_lock(&omp.workers_lock);
	*o->pprev = o->next;
	if (o->next)
		o->next->pprev = o->pprev;
	o->pprev = NULL;
	pthread_mutex_unlock(&omp.workers_lock);
}

/* ---- the tool ---- */

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	/* VT_OPENMP=off never gets here once vt has started (ompt_start_tool); before, every
	 * callback is registered and asks the mode when it runs. */
	int m = omp.mode < 0 ? VT_OPENMP_ALL : omp.mode;
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	set(ompt_callback_masked, (ompt_callback_t)on_masked);
	if (m >= VT_OPENMP_ALL) {
		set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
		set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
		set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
		set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
		set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
		set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	}
	return 1;
}

static void finalize(ompt_data_t *tool)
{
}

/* The name the OpenMP runtime looks up (OpenMP 5.x, 4.5 of its specification). */
__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version);

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	/* vt starts here if it has not yet (the runtime initialised from a constructor that
	 * ran before libvt's first event): its configuration decides. */
	(void)vt_thread_self();
	vt_omp_tool_started(); /* this runtime has OMPT (threads/vt_omp_runtime.c) */
	int s = vt_core_state();
	if (s == VT_STATE_ON)
		omp.mode = vt_cfg.openmp;
	else if (s != VT_STATE_NEW && s != VT_STATE_INITIALISING)
		omp.mode = VT_OPENMP_OFF;
	if (omp.mode == VT_OPENMP_OFF)
		return NULL;
	omp.result = (ompt_start_tool_result_t){initialize, finalize, {0}};
	return &omp.result;
}

/*
 * The end of the run: a worker whose team has joined but whose end libomp has not reported
 * (it reports it with the worker's next work, and there is none) did nothing since the
 * join: its location closes at that time, its barrier and team ending there.
 */
static void stop(void)
{
	__atomic_store_n(&omp.stopped, true, __ATOMIC_RELAXED);
	pthread_mutex_lock(&omp.workers_lock);
	for (struct omp_thread *o = omp.workers; o; o = o->next) {
		uint32_t n = __atomic_load_n(&o->n_tasks, __ATOMIC_RELAXED);
		const struct itask *it = n && n <= FORK_DEPTH ? &o->tasks[n - 1] : NULL;
		uint64_t ts = it && it->recorded ? end_ts(it) : UINT64_MAX;
		if (ts != UINT64_MAX)
			vt_thread_end_at(o->loc, ts);
	}
	pthread_mutex_unlock(&omp.workers_lock);
}

const struct vt_subsystem vt_ompt_subsystem = {
    .name = "openmp",
    .stop = stop,
};
