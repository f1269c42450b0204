/* SPDX-License-Identifier: BSD-3-Clause */
/* The flat profile read from the trace layer's events (tools/lib/vtr.h), location by location. */
#include "profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vt_prof_problem_names[] = {
    [VT_PROF_LEAVE_MISMATCH] = "leave-mismatch",     [VT_PROF_LEAVE_UNMATCHED] = "leave-unmatched",
    [VT_PROF_OPEN_AT_END] = "open-at-end",	     [VT_PROF_TIME_DECREASE] = "time-decrease",
    [VT_PROF_UNDEFINED_REGION] = "undefined-region", [VT_PROF_SUPPRESSED] = "suppressed",
};

/* The activation stack mirrors the layer's: a frame per Enter, popped by every leave (the
 * layer's repairs of unbalanced stacks too). */
struct frame {
	uint64_t child; /* inclusive time of the activations directly inside this one */
};

/*
 * Locations are read one after the other, so per-region results of the current location live
 * in tables indexed by region id that are cleared (only where touched) before the next one.
 * That keeps the cost per event O(1) and the memory O(regions + sum of regions per location).
 */
struct reader {
	struct vt_prof_trace *tr;
	struct vt_prof_location *loc;
	size_t loc_index;
	struct frame *stack;
	size_t depth, stack_cap;
	uint64_t *calls, *incl, *excl;
	uint32_t *active;  /* open activations per region: only the outermost adds to incl */
	uint32_t *touched; /* regions entered on this location, each once */
	size_t ntouched;
};

static void store_problem(struct vt_prof_trace *tr, struct vt_prof_problem p)
{
	if (tr->nproblems == tr->problems_cap) {
		tr->problems_cap = tr->problems_cap ? 2 * tr->problems_cap : 16;
		tr->problems = vtr_xrealloc(tr->problems, tr->problems_cap, sizeof(*tr->problems));
	}
	tr->problems[tr->nproblems++] = p;
}

static void on_sample(void *user, const struct vtr_location *l, uint64_t time, uint32_t ctx)
{
	struct reader *rd = user;
	(void)l;
	(void)time;
	rd->loc->samples++;
	rd->tr->total_samples++;
	if (ctx != VTR_NONE)
		rd->tr->ctx_samples[ctx]++;
}

static void on_begin(void *user, const struct vtr_location *l)
{
	struct reader *rd = user;
	rd->loc_index = l->index;
	rd->loc = &rd->tr->locations[l->index];
}

static void on_event(void *user, const struct vtr_location *l, enum vtr_event kind, uint64_t time)
{
	struct reader *rd = user;
	struct vt_prof_location *loc = rd->loc;
	rd->tr->events[kind]++;
	loc->events++;
	loc->enters += kind == VTR_EV_Enter;
	loc->leaves += kind == VTR_EV_Leave;
	if (!loc->any_event) {
		loc->any_event = true;
		loc->first = loc->last = time;
	} else {
		if (time < loc->first)
			loc->first = time;
		if (time > loc->last)
			loc->last = time;
	}
}

static void on_enter(void *user, const struct vtr_location *l, uint64_t time, uint32_t region)
{
	struct reader *rd = user;
	if (rd->depth == rd->stack_cap) {
		rd->stack_cap = rd->stack_cap ? 2 * rd->stack_cap : 64;
		rd->stack = vtr_xrealloc(rd->stack, rd->stack_cap, sizeof(*rd->stack));
	}
	rd->stack[rd->depth++] = (struct frame){0};
	if (rd->calls[region]++ == 0)
		rd->touched[rd->ntouched++] = region;
	rd->active[region]++;
}

static void on_leave(void *user, const struct vtr_location *l, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct reader *rd = user;
	struct frame f = rd->stack[--rd->depth];
	/* A decreasing timestamp is reported as a problem; here it only must not wrap around. */
	uint64_t dur = time > enter ? time - enter : 0;
	rd->excl[region] += dur > f.child ? dur - f.child : 0;
	if (--rd->active[region] == 0)
		rd->incl[region] += dur;
	if (rd->depth)
		rd->stack[rd->depth - 1].child += dur;
}

static void on_flush(void *user, const struct vtr_location *l, uint64_t time, uint64_t stop)
{
	struct reader *rd = user;
	if (stop > time)
		rd->loc->flush_ticks += stop - time;
}

static const enum vt_prof_problem_kind kind_of[] = {
    [VTR_LEAVE_MISMATCH] = VT_PROF_LEAVE_MISMATCH,
    [VTR_LEAVE_UNMATCHED] = VT_PROF_LEAVE_UNMATCHED,
    [VTR_OPEN_AT_END] = VT_PROF_OPEN_AT_END,
    [VTR_TIME_DECREASE] = VT_PROF_TIME_DECREASE,
    [VTR_UNDEFINED_REGION] = VT_PROF_UNDEFINED_REGION,
};

/* Counts a problem of the current location and keeps its details while under the limit. */
static void on_problem(void *user, const struct vtr_location *l, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct reader *rd = user;
	if (kind > VTR_UNDEFINED_REGION)
		return; /* messages and collectives: not read location by location */
	rd->tr->total_problems++;
	if (++rd->loc->problems > VT_PROF_PROBLEMS_PER_LOCATION)
		return;
	store_problem(rd->tr, (struct vt_prof_problem){
				  .location = rd->loc_index,
				  .kind = kind_of[kind],
				  .has_time = has_time,
				  .time = time,
				  .region = region == VTR_NONE ? VT_PROF_NO_REGION : region,
				  .message = vtr_xstrdup(message),
			      });
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Moves the location's results out of the tables (the layer closed what was still open). */
static void on_end(void *user, const struct vtr_location *l, uint64_t last)
{
	struct reader *rd = user;
	struct vt_prof_trace *tr = rd->tr;
	struct vt_prof_location *loc = rd->loc;

	if (loc->problems > VT_PROF_PROBLEMS_PER_LOCATION) {
		/* Not itself a problem, so not counted: it says how many were left out. */
		char buf[96];
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " more problem(s) on this location not listed",
			 loc->problems - VT_PROF_PROBLEMS_PER_LOCATION);
		store_problem(tr, (struct vt_prof_problem){
				      .location = rd->loc_index,
				      .kind = VT_PROF_SUPPRESSED,
				      .region = VT_PROF_NO_REGION,
				      .message = vtr_xstrdup(buf),
				  });
	}

	qsort(rd->touched, rd->ntouched, sizeof(*rd->touched), cmp_u32);
	loc->nregions = rd->ntouched;
	loc->regions = vtr_xrealloc(NULL, rd->ntouched, sizeof(*loc->regions));
	for (size_t i = 0; i < rd->ntouched; i++) {
		uint32_t r = rd->touched[i];
		loc->regions[i] = (struct vt_prof_loc_region){
		    .region = r,
		    .calls = rd->calls[r],
		    .incl = rd->incl[r],
		    .excl = rd->excl[r],
		};
		tr->regions[r].calls += rd->calls[r];
		tr->regions[r].incl += rd->incl[r];
		tr->regions[r].excl += rd->excl[r];
		rd->calls[r] = rd->incl[r] = rd->excl[r] = 0;
	}
	rd->ntouched = 0;

	if (loc->any_event) {
		if (!tr->any_event || loc->first < tr->first)
			tr->first = loc->first;
		if (!tr->any_event || loc->last > tr->last)
			tr->last = loc->last;
		tr->any_event = true;
	}
	tr->total_events += loc->events;
}

/* The definitions vt-profile reports on, copied from the layer's. */
static void copy_defs(struct vt_prof_trace *tr, const struct vtr_trace *t)
{
	tr->timer_resolution = t->resolution;
	tr->have_clock = t->have_clock;
	tr->nregions = t->nregions;
	tr->regions = vtr_xcalloc(t->nregions + 1, sizeof(*tr->regions));
	for (size_t i = 0; i < t->nregions; i++) {
		struct vt_prof_region *r = &tr->regions[i];
		r->defined = t->regions[i].defined;
		r->fallback_name = vtr_xstrdup(t->regions[i].name);
		r->name = r->fallback_name;
		r->file = t->regions[i].file;
		r->line = t->regions[i].line;
	}
	tr->nlocations = t->nlocations;
	tr->locations = vtr_xcalloc(t->nlocations + 1, sizeof(*tr->locations));
	for (size_t i = 0; i < t->nlocations; i++) {
		struct vt_prof_location *l = &tr->locations[i];
		l->id = t->locations[i].id;
		l->group = t->locations[i].group;
		l->name = t->locations[i].name;
		l->group_name = t->locations[i].group_name;
	}
}

int vt_prof_read(struct vt_prof_trace *tr, char *err, size_t errlen)
{
	struct vtr_trace *t = vtr_xcalloc(1, sizeof(*t));
	tr->layer = t;
	if (vtr_open(t, tr->path) < 0) {
		snprintf(err, errlen, "%s", t->err);
		return -1;
	}
	copy_defs(tr, t);
	size_t nr = tr->nregions;
	struct reader rd = {
	    .tr = tr,
	    .calls = vtr_xcalloc(nr + 1, sizeof(uint64_t)),
	    .incl = vtr_xcalloc(nr + 1, sizeof(uint64_t)),
	    .excl = vtr_xcalloc(nr + 1, sizeof(uint64_t)),
	    .active = vtr_xcalloc(nr + 1, sizeof(uint32_t)),
	    .touched = vtr_xcalloc(nr + 1, sizeof(uint32_t)),
	};
	const struct vtr_callbacks cb = {
	    .location_begin = on_begin,
	    .location_end = on_end,
	    .event = on_event,
	    .enter = on_enter,
	    .leave = on_leave,
	    .flush = on_flush,
	    .problem = on_problem,
	    .sample = on_sample,
	};
	tr->ctx_samples = vtr_xcalloc(t->ncallctxs + 1, sizeof(uint64_t));
	int rc = vtr_read_locations(t, &cb, &rd);
	if (rc < 0)
		snprintf(err, errlen, "%s", t->err);
	free(rd.stack);
	free(rd.calls);
	free(rd.incl);
	free(rd.excl);
	free(rd.active);
	free(rd.touched);
	return rc;
}

void vt_prof_free(struct vt_prof_trace *tr)
{
	for (size_t i = 0; i < tr->nregions; i++)
		free(tr->regions[i].fallback_name);
	free(tr->regions);
	for (size_t i = 0; i < tr->nlocations; i++)
		free(tr->locations[i].regions);
	free(tr->locations);
	for (size_t i = 0; i < tr->nproblems; i++)
		free(tr->problems[i].message);
	free(tr->problems);
	free(tr->ctx_samples);
	if (tr->layer) {
		vtr_close(tr->layer);
		free(tr->layer);
	}
}
