/* SPDX-License-Identifier: BSD-3-Clause */
/* The flat profile of a trace (vt-profile, vt-report, vt-score): regions, locations, problems. */
#ifndef VT_PROF_PROFILE_H
#define VT_PROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vtr.h"

/* Event kinds: the trace layer's (tools/lib/vtr.h). */
#define VT_PROF_EV_COUNT    VTR_EV_COUNT
#define vt_prof_event_names vtr_event_names

/* Detailed problems kept per location; the rest are only counted (one summary problem). */
#define VT_PROF_PROBLEMS_PER_LOCATION 16

enum vt_prof_problem_kind {
	VT_PROF_LEAVE_MISMATCH,	  /* Leave of a region that is not the innermost open one */
	VT_PROF_LEAVE_UNMATCHED,  /* Leave while no region is open */
	VT_PROF_OPEN_AT_END,	  /* regions still open after the location's last event */
	VT_PROF_TIME_DECREASE,	  /* timestamp smaller than the previous event's */
	VT_PROF_UNDEFINED_REGION, /* Enter/Leave of a region id without definition */
	VT_PROF_SUPPRESSED,	  /* summary of problems beyond the per-location limit */
};

extern const char *const vt_prof_problem_names[];

struct vt_prof_problem {
	size_t location; /* index into vt_prof_trace.locations */
	enum vt_prof_problem_kind kind;
	bool has_time;
	uint64_t time;	 /* ticks, when has_time */
	uint32_t region; /* region id, or VT_PROF_NO_REGION */
	char *message;	 /* without the location: the report adds it */
};

#define VT_PROF_NO_REGION UINT32_MAX

struct vt_prof_region {
	bool defined;
	uint32_t line;
	const char *name, *file; /* resolved after the global definitions; file may be "" */
	char *fallback_name;	 /* "<region N>" where the definition gives no name */
	uint64_t calls;		 /* Enter events */
	uint64_t incl, excl;	 /* ticks; incl counts outermost activations only */
};

/* One region's results on one location. */
struct vt_prof_loc_region {
	uint32_t region;
	uint64_t calls, incl, excl;
};

struct vt_prof_location {
	uint64_t id;
	uint32_t group;
	const char *name, *group_name;
	uint64_t events, enters, leaves;
	uint64_t flush_ticks; /* time spent in BufferFlush (stop - start) */
	bool any_event;
	uint64_t first, last;		    /* smallest and largest timestamp seen */
	struct vt_prof_loc_region *regions; /* sorted by region id, only regions entered here */
	size_t nregions;
	uint64_t problems; /* all problems, including unlisted ones */
	uint64_t samples;  /* calling-context samples */
};

struct vt_prof_trace {
	const char *path;
	uint64_t timer_resolution; /* ticks per second */
	bool have_clock;

	struct vt_prof_region *regions; /* indexed by region id */
	size_t nregions;
	struct vt_prof_location *locations; /* in definition order */
	size_t nlocations;

	uint64_t events[VT_PROF_EV_COUNT];
	uint64_t total_events;
	bool any_event;
	uint64_t first, last;

	struct vt_prof_problem *problems;
	size_t nproblems, problems_cap;
	uint64_t total_problems;

	struct vtr_trace *layer; /* the trace layer's view, whose names the above point into */
	/* Calling-context samples: per context of the layer (layer->callctxs), those taken
	 * there; their total; per location in its struct. */
	uint64_t *ctx_samples;
	uint64_t total_samples;
};

/*
 * Reads the archive at tr->path (the .otf2 anchor file) into tr. Returns 0, or -1 with a short
 * reason (no file name) in err, for an archive that cannot be opened or read.
 */
int vt_prof_read(struct vt_prof_trace *tr, char *err, size_t errlen);

void vt_prof_free(struct vt_prof_trace *tr);

#endif
