/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report: what the reading gathers (collect.c) and how the page is written (html.c). */
#ifndef VT_REPORT_VT_REPORT_H
#define VT_REPORT_VT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "report.h" /* vt-profile's: the call paths */

/* Aggregated timeline: bins per location and depth, depths beyond this share the last. */
#define VT_REPORT_MAX_DEPTH 32

struct vt_report_options {
	uint64_t budget; /* slices kept one by one; beyond, levels of detail */
	uint64_t max_messages, max_marks;
	const char *title;
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
	FILE *slices, *messages, *marks;
	uint64_t nslices, nmessages, nmarks, messages_left_out, marks_left_out;
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
};

/* Reads the trace (opened in r->prof->layer) in time order. 0, or -1 with err. */
int vt_report_collect(struct vt_report *r, char *err, size_t errlen);
void vt_report_free(struct vt_report *r);

/* The whole page. 0, or -1 with err (a temporary file that cannot be read back). */
int vt_report_html(struct vt_report *r, FILE *out, char *err, size_t errlen);

/* The page's script and style sheet (assets.c, made from report.js and report.css). */
extern const char vt_report_js[], vt_report_css[];

#endif
