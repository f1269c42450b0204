/* SPDX-License-Identifier: BSD-3-Clause */
/* The thread model (OpenMP, pthreads): per thread its time in constructs, tasks and locks. */
#ifndef VT_PROF_THREADS_H
#define VT_PROF_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vtr.h"

/*
 * Everything here is keyed on the regions' roles and paradigms (OTF2_REGION_ROLE_*,
 * OTF2_PARADIGM_*) and on the thread-model events, never on names: a parallel region is one
 * of role PARALLEL, a barrier one of role BARRIER or IMPLICIT_BARRIER, and so on. Times are
 * ticks; an activation inside another of the same kind counts once (the outermost).
 */
struct vt_prof_thr_loc {
	uint64_t parallel;  /* in parallel regions */
	uint64_t barrier;   /* in barriers (explicit and implicit) */
	uint64_t task;	    /* executing explicit tasks (role TASK, TASK_UNTIED) */
	uint64_t taskwait;  /* in taskwait regions */
	uint64_t critical;  /* in critical regions (role CRITICAL), waiting included */
	uint64_t lock_held; /* between ThreadAcquireLock and ThreadReleaseLock of a lock */
	uint64_t pthread;   /* in regions of paradigm PTHREAD (create, join, mutexes...) */
	uint64_t forks, teams, tasks_created, task_switches, tasks_completed, locks;
	uint64_t threads_created, threads_waited;
	bool any; /* a thread-model event or one of the regions above */
};

/* One construct (a parallel or barrier region) on one location. time: inclusive; wait: for
 * a parallel region, its time in barriers directly inside (not in nested parallel regions). */
struct vt_prof_thr_cell {
	uint64_t calls, time, wait;
};

enum vt_prof_construct { VT_PROF_PARALLEL, VT_PROF_BARRIER };

struct vt_prof_threads {
	const struct vtr_trace *t;
	size_t nlocations;
	struct vt_prof_thr_loc *locs; /* per location */
	/* The parallel and barrier regions, in region id order; cells[c * nlocations + loc]. */
	uint32_t *constructs;
	enum vt_prof_construct *construct_kind;
	size_t nconstructs;
	struct vt_prof_thr_cell *cells;
	bool any;   /* anything of the thread model in the trace */
	void *priv; /* the stacks and open locks while reading */
};

/* The spread of one construct over the locations that entered it. */
struct vt_prof_spread {
	size_t locations;
	uint64_t min, max, sum;	    /* ticks */
	size_t min_loc, max_loc;    /* location indexes */
	double mean, ratio, excess; /* sum / locations; max / mean (1: even); max - mean */
};

/* vals[i] of the locations with calls[i] > 0 (calls NULL: all). */
struct vt_prof_spread vt_prof_spread_of(const uint64_t *vals, const uint64_t *calls, size_t n);

/* The model built from the events another reading hands over (merged or location by
 * location; a stack per location). */
struct vt_prof_threads *vt_prof_threads_new(const struct vtr_trace *t);
void vt_prof_threads_enter(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t time,
			   uint32_t region);
void vt_prof_threads_leave(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t time,
			   uint32_t region, uint64_t enter);
void vt_prof_threads_event(struct vt_prof_threads *m, const struct vtr_location *l,
			   const struct vtr_thread_event *e);
/* After the last event: locks still held count until their location's last event. */
void vt_prof_threads_end(struct vt_prof_threads *m, const struct vtr_location *l, uint64_t last);

/* The model in a pass of its own over t, location by location. NULL, with a one-line reason
 * in err, when the events cannot be read. */
struct vt_prof_threads *vt_prof_threads_read(struct vtr_trace *t, char *err, size_t errlen);

/* A construct's per-location values into vals, its calls into calls (both nlocations long):
 * wait false: a parallel region's work (time - wait), a barrier's time; wait true: a parallel
 * region's time in barriers, a barrier's time. */
void vt_prof_threads_values(const struct vt_prof_threads *m, size_t c, bool wait, uint64_t *vals,
			    uint64_t *calls);

void vt_prof_threads_free(struct vt_prof_threads *m);

#endif
