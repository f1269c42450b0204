/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report: what the reading gathers (collect.c) and how the page is written (html.c). */
#ifndef VT_REPORT_VT_REPORT_H
#define VT_REPORT_VT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ctree.h"
#include "io.h"
#include "profile.h"
#include "threads.h"

/* The slowest I/O operations listed; the files and (file, process) rows of the most time in
 * I/O shown (the totals count all). */
#define VT_REPORT_IO_SLOWEST 10
#define VT_REPORT_IO_FILES   200
#define VT_REPORT_IO_ROWS    1000

/* Aggregated timeline: bins per location and depth, depths beyond this share the last. */
#define VT_REPORT_MAX_DEPTH 32

struct vt_report_options {
	uint64_t budget; /* slices kept one by one; beyond, levels of detail */
	uint64_t max_messages, max_marks;
	const char *title;
	uint32_t flame_ppm; /* frames under this many millionths of the samples are folded */
};

/* The thread model's items on the page: [type, location, t0, t1, arg] (ns). */
enum {
	VT_REPORT_TH_TEAM,	    /* a thread's membership of a team; arg: the team's comm */
	VT_REPORT_TH_LOCK,	    /* a lock held; arg: the lock */
	VT_REPORT_TH_FORK,	    /* arg: threads requested */
	VT_REPORT_TH_JOIN,	    /* */
	VT_REPORT_TH_TASK_CREATE,   /* arg: the task's generation number */
	VT_REPORT_TH_TASK_COMPLETE, /* arg: the task's generation number */
	VT_REPORT_TH_CREATE,	    /* a pthread created; arg: its sequence number */
	VT_REPORT_TH_WAIT,	    /* a pthread waited for; arg: its sequence number */
	VT_REPORT_TH_FORK_FLOW,	    /* location: the forking thread, t1 on arg: a member's begin */
	VT_REPORT_TH_LOCK_FLOW,	    /* location: the releasing thread, t1 on arg: the acquirer */
};

/* One short-slice bin of the aggregated timeline. */
struct vt_report_bin {
	uint32_t region; /* the region with the most time seen here (VTR_NONE: empty) */
	uint32_t count;
	uint64_t best, busy; /* ns: the region's time, all slices' time */
};

struct vt_report_series {
	uint32_t loc, member; /* location index, metric member */
	struct vt_report_point {
		uint32_t n;
		uint64_t t; /* ns, of the last value */
		double last, min, max;
	} * bins;
};

struct vt_report_pair {
	uint32_t from, to;
	uint64_t count, bytes;
};

struct vt_report {
	const struct vt_report_options *opt;
	struct vt_prof_trace *prof; /* the flat profile (vt-profile's read.c) and the layer */
	struct vtr_trace *t;
	bool aggregated;
	uint64_t tmin, tmax;	       /* ns after the clock offset, over all events */
	uint64_t ticks_min, ticks_max; /* the same in ticks while reading: converted once */
	bool any;
	/* temporary files of JSON array members, each led by "," */
	FILE *slices, *messages, *marks, *threads;
	uint64_t nslices, nmessages, nmarks, messages_left_out, marks_left_out;
	uint64_t nthreads, threads_left_out; /* thread-model items (spans, marks, flows) */
	uint64_t events;
	/* aggregated mode */
	uint32_t nbins;
	uint64_t bin_ns;	    /* width of a bin, and the shortest slice kept one by one */
	struct vt_report_bin *bins; /* [loc][depth][bin], allocated per location on use */
	struct vt_report_bin **bins_of;
	/* per location: the open stack (region, enter ns) */
	struct vt_report_stack {
		struct {
			uint32_t region;
			uint64_t enter;
		} * f;
		size_t depth, cap;
		uint32_t maxdepth;
	} * stacks;
	struct vt_prof_ctree *ctree; /* the call paths, built in the same pass */
	struct vt_prof_threads *thr; /* the thread model, built in the same pass */
	struct vt_prof_io *io;	     /* I/O per file and process, built in the same pass */
	/* per location: the thread model's open team spans and held locks (ns, lock) */
	struct vt_report_open {
		struct {
			uint64_t t, key, key2;
		} * o;
		size_t n, cap;
	} * teams, *locks;
	/* thread-model flows waiting for their end: each lock's last release (ns, lock and
	 * paradigm, location), the forks not yet joined (ns, location, process) */
	struct vt_report_open releases, forks_open;
	/* counters */
	struct vt_report_series *series;
	size_t nseries, cap_series;
	uint32_t *series_slots; /* hash of (location, member) -> index + 1 */
	size_t series_cap_slots;
	uint32_t series_bins;
	uint64_t series_bin_ns;
	/* MPI */
	struct vt_report_pair *pairs;
	size_t npairs, cap_pairs;
	uint32_t *pair_slots; /* hash of (from, to) -> index + 1 */
	size_t pair_cap_slots;
	uint64_t size_hist[65];
	struct vt_report_coll {
		uint64_t instances, time, sent, received;
	} colls[VTR_COLL_OPS + 1];
	uint64_t problems;
	/* Samples per calling context of each location, kept where few locations have
	 * samples (NULL otherwise, and for locations without): the flame graph's selector. */
	uint64_t **loc_samples;
	/* vt-profile's --waits and --critical-path JSON of the trace (waits.c); NULL: not run */
	char *waits, *critpath;
};

/* Reads the trace (opened in r->prof->layer) in time order. 0, or -1 with err. */
int vt_report_collect(struct vt_report *r, char *err, size_t errlen);
void vt_report_free(struct vt_report *r);

/* The Wait states and Critical path sections' data: vt-profile's reports, run on a trace
 * with a communicator (r->waits, r->critpath). 0, or -1 with err. */
int vt_report_waits(struct vt_report *r, char *err, size_t errlen);

/* The whole page. 0, or -1 with err (a temporary file that cannot be read back). */
int vt_report_html(struct vt_report *r, FILE *out, char *err, size_t errlen);

/* Flame graph: locations with samples up to which each gets its own graph, their contexts up
 * to which they are counted per location, and the default smallest share of the samples (in
 * millionths) a frame needs to be drawn on its own (smaller ones are folded into "(other)"). */
#define VT_REPORT_FLAME_LOCATIONS 16
#define VT_REPORT_FLAME_CONTEXTS  (1u << 18)
#define VT_REPORT_FLAME_PPM	  1000

/* The samples per context (counts, indexed like t->callctxs; all: every sample, those without
 * a context included) as a JSON array of frames, call paths of functions, those under ppm
 * millionths of all folded (flame.c). */
void vt_report_flame(FILE *out, const struct vtr_trace *t, const uint64_t *counts, uint64_t all,
		     uint32_t ppm);

/* The page's script and style sheet (assets.c, made from report.js and report.css). */
extern const char vt_report_js[], vt_report_css[];

#endif
