/* SPDX-License-Identifier: BSD-3-Clause */
/* libvtprof's thread model (tools/lib/profile/threads.c), fed event by event: nesting, locks,
 * spreads. */
/*
 * The cases a small trace does not reach: a parallel region nested in another (its time
 * counted once per thread, a barrier's waiting going to the innermost parallel region only),
 * a barrier nested in a barrier, a recursive lock (held from the inner acquisition), a lock
 * still held at the location's end, locks of two paradigms with one number, the spread over
 * the threads that entered a construct only, and regions told apart by role, not name.
 */
#include "threads.h"
#include "unit.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

enum { OUTER, INNER, BAR, IBAR, TASK, WORK, PTH, N_REGIONS };

static struct vtr_region regions[N_REGIONS] = {
    [OUTER] = {true, "!$omp parallel @a.c:1", "", 1, OTF2_PARADIGM_OPENMP,
	       OTF2_REGION_ROLE_PARALLEL},
    [INNER] = {true, "!$omp parallel @a.c:2", "", 2, OTF2_PARADIGM_OPENMP,
	       OTF2_REGION_ROLE_PARALLEL},
    [BAR] = {true, "!$omp barrier @a.c:3", "", 3, OTF2_PARADIGM_OPENMP, OTF2_REGION_ROLE_BARRIER},
    [IBAR] = {true, "!$omp implicit barrier @a.c:4", "", 4, OTF2_PARADIGM_OPENMP,
	      OTF2_REGION_ROLE_IMPLICIT_BARRIER},
    /* a task named like a barrier: the role decides */
    [TASK] = {true, "!$omp barrier @a.c:5", "", 5, OTF2_PARADIGM_OPENMP, OTF2_REGION_ROLE_TASK},
    [WORK] = {true, "work", "", 6, OTF2_PARADIGM_USER, OTF2_REGION_ROLE_FUNCTION},
    [PTH] = {true, "pthread_mutex_lock", "", 0, OTF2_PARADIGM_PTHREAD, OTF2_REGION_ROLE_FUNCTION},
};

static struct vtr_location locs[3] = {{.id = 0, .index = 0, .name = "a"},
				      {.id = 1, .index = 1, .name = "b"},
				      {.id = 2, .index = 2, .name = "c"}};

/* A stack per location, as the trace layer's: leave gets the enter time. */
static uint64_t enters[3][16];
static size_t depth[3];

static void in(struct vt_prof_threads *m, int l, uint64_t t, uint32_t r)
{
	enters[l][depth[l]++] = t;
	vt_prof_threads_enter(m, &locs[l], t, r);
}

static void out(struct vt_prof_threads *m, int l, uint64_t t, uint32_t r)
{
	vt_prof_threads_leave(m, &locs[l], t, r, enters[l][--depth[l]]);
}

static void ev(struct vt_prof_threads *m, int l, enum vtr_event kind, uint64_t t, uint32_t paradigm,
	       uint32_t lock)
{
	struct vtr_thread_event e = {.kind = kind,
				     .time = t,
				     .paradigm = paradigm,
				     .comm = VTR_NONE,
				     .threads = VTR_NONE,
				     .lock = lock,
				     .order = VTR_NONE,
				     .creator = VTR_NONE,
				     .generation = VTR_NONE};
	vt_prof_threads_event(m, &locs[l], &e);
}

static size_t construct_of(const struct vt_prof_threads *m, uint32_t region)
{
	for (size_t c = 0; c < m->nconstructs; c++)
		if (m->constructs[c] == region)
			return c;
	return SIZE_MAX;
}

int main(void)
{
	struct vtr_trace t = {
	    .regions = regions, .nregions = N_REGIONS, .locations = locs, .nlocations = 3};
	struct vt_prof_threads *m = vt_prof_threads_new(&t);
	CHECK(m->nconstructs == 4); /* OUTER, INNER, BAR, IBAR; not TASK, WORK, PTH */
	CHECK(construct_of(m, TASK) == SIZE_MAX);
	CHECK(m->construct_kind[construct_of(m, BAR)] == VT_PROF_BARRIER);
	CHECK(m->construct_kind[construct_of(m, INNER)] == VT_PROF_PARALLEL);

	/* Location a: OUTER 0..100 { BAR 10..20 { IBAR 12..18 }, INNER 30..80 { IBAR 40..50,
	 * TASK 50..60 }, IBAR 90..100 }. */
	in(m, 0, 0, OUTER);
	in(m, 0, 10, BAR);
	in(m, 0, 12, IBAR);
	out(m, 0, 18, IBAR);
	out(m, 0, 20, BAR);
	in(m, 0, 30, INNER);
	in(m, 0, 40, IBAR);
	out(m, 0, 50, IBAR);
	in(m, 0, 50, TASK);
	out(m, 0, 60, TASK);
	out(m, 0, 80, INNER);
	in(m, 0, 90, IBAR);
	out(m, 0, 100, IBAR);
	out(m, 0, 100, OUTER);
	/* Location b: OUTER 0..100 { IBAR 5..100 }; a recursive OpenMP lock 7 (acquired 10 and
	 * 20, released 30 and 40), a pthread lock 7 acquired at 50 and never released; its last
	 * event at 120. PTH 45..50. */
	in(m, 1, 0, OUTER);
	in(m, 1, 5, IBAR);
	ev(m, 1, VTR_EV_ThreadAcquireLock, 10, OTF2_PARADIGM_OPENMP, 7);
	ev(m, 1, VTR_EV_ThreadAcquireLock, 20, OTF2_PARADIGM_OPENMP, 7);
	ev(m, 1, VTR_EV_ThreadReleaseLock, 30, OTF2_PARADIGM_OPENMP, 7);
	ev(m, 1, VTR_EV_ThreadReleaseLock, 40, OTF2_PARADIGM_OPENMP, 7);
	in(m, 1, 45, PTH);
	ev(m, 1, VTR_EV_ThreadAcquireLock, 50, OTF2_PARADIGM_PTHREAD, 7);
	out(m, 1, 50, PTH);
	out(m, 1, 100, IBAR);
	out(m, 1, 100, OUTER);
	vt_prof_threads_end(m, &locs[1], 120);
	/* Location c: nothing of the thread model but the ThreadBegin and ThreadEnd vt writes on
	 * every thread. */
	ev(m, 2, VTR_EV_ThreadBegin, 0, OTF2_PARADIGM_PTHREAD, VTR_NONE);
	in(m, 2, 0, WORK);
	out(m, 2, 10, WORK);
	ev(m, 2, VTR_EV_ThreadEnd, 10, OTF2_PARADIGM_PTHREAD, VTR_NONE);

	const struct vt_prof_thr_loc *a = &m->locs[0], *b = &m->locs[1], *c = &m->locs[2];
	CHECK(a->parallel == 100);	   /* INNER inside OUTER counts once */
	CHECK(a->barrier == 10 + 10 + 10); /* IBAR inside BAR counts once */
	CHECK(a->task == 10);
	CHECK(b->parallel == 100 && b->barrier == 95);
	/* recursive lock: 20..30 and 10..40; the pthread lock until the last event: 50..120 */
	CHECK(b->lock_held == 10 + 30 + 70);
	CHECK(b->locks == 3);
	CHECK(b->pthread == 5);
	CHECK(!c->any && a->any && b->any && m->any);

	uint64_t vals[3], calls[3];
	size_t co = construct_of(m, OUTER), ci = construct_of(m, INNER);
	size_t cb = construct_of(m, BAR), cib = construct_of(m, IBAR);
	/* OUTER's wait on a: BAR (10, its inner IBAR not again) + IBAR 90..100; not INNER's */
	vt_prof_threads_values(m, co, true, vals, calls);
	CHECK(vals[0] == 20 && vals[1] == 95 && calls[0] == 1 && calls[1] == 1 && calls[2] == 0);
	vt_prof_threads_values(m, co, false, vals, calls);
	CHECK(vals[0] == 80 && vals[1] == 5);
	vt_prof_threads_values(m, ci, true, vals, calls);
	CHECK(vals[0] == 10 && calls[0] == 1 && calls[1] == 0);
	vt_prof_threads_values(m, cb, false, vals, calls);
	CHECK(vals[0] == 10 && calls[0] == 1);
	/* IBAR on a: three activations (6, 10, 10) = 26; on b: 95 */
	vt_prof_threads_values(m, cib, false, vals, calls);
	CHECK(calls[0] == 3 && vals[0] == 26 && calls[1] == 1 && vals[1] == 95);

	/* The spread over the locations that entered it: c (no calls) left out. */
	struct vt_prof_spread s = vt_prof_spread_of(vals, calls, 3);
	CHECK(s.locations == 2 && s.max == 95 && s.min == 26 && s.max_loc == 1 && s.min_loc == 0);
	CHECK(s.sum == 121 && s.mean == 60.5 && s.excess == 34.5);
	CHECK(s.ratio > 1.5702 && s.ratio < 1.5703);
	const uint64_t zeros[2] = {0, 0};
	s = vt_prof_spread_of(zeros, NULL, 2);
	CHECK(s.locations == 2 && s.ratio == 1.0 && s.excess == 0);
	s = vt_prof_spread_of(zeros, zeros, 2);
	CHECK(s.locations == 0);
	vt_prof_threads_free(m);
	return unit_done();
}
