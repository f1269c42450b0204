/* SPDX-License-Identifier: BSD-3-Clause */
/* The critical path and the delay costs of waits (vt-profile --critical-path), without reading. */
#ifndef VT_PROF_CRITPATH_H
#define VT_PROF_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "vtr.h"

/*
 * One location as the walk needs it: its call path over time (from time[i] on it runs
 * path[i], until time[i + 1] or last; 0: outside every region), its first and last event,
 * and its synchronisation points (its sends, the ends of its receives, collectives and
 * waits), all in ascending order.
 */
struct vt_prof_cp_line {
	const uint64_t *time;
	const uint32_t *path;
	size_t n;
	uint64_t first, last;
	const uint64_t *sync;
	size_t nsync;
};

/* A wait: loc waited in path from begin to end, until delayer's event at end (the late
 * sender's send, the last member of a collective to enter) let it go on. pattern: the
 * caller's (enum vt_prof_wait). */
struct vt_prof_cp_wait {
	uint32_t loc, path, delayer, pattern;
	uint64_t begin, end;
};

/* The critical path: from the end of the location that ends last (the lowest index of a
 * tie) backwards, each time through the latest wait of the current location that ends at or
 * before the current time, to its delayer at that wait's end; what the location ran in
 * between goes to on_path (its location, call path and time), the waits themselves not. Each
 * wait is followed at most once (*followed: how many were). Sorts waits by location and
 * end. Returns the path's length:
 * the last end minus the first event of the location it ends at. */
uint64_t vt_prof_critical_path(const struct vt_prof_cp_line *lines, size_t nlines,
			       struct vt_prof_cp_wait *waits, size_t nwaits, size_t *followed,
			       void (*on_path)(void *user, uint32_t loc, uint32_t path,
					       uint64_t time),
			       void *user);

/* The same walk told as spans: on_span gets each location's stretch on the path, [from, to),
 * in the walk's order (vt_prof_critical_path hands each span's time per call path on). */
/* The walk's order of waits, a qsort comparison: by location, end, begin. */
int vt_prof_cp_wait_cmp(const void *a, const void *b);

uint64_t vt_prof_critical_walk(const struct vt_prof_cp_line *lines, size_t nlines,
			       struct vt_prof_cp_wait *waits, size_t nwaits, size_t *followed,
			       void (*on_span)(void *user, uint32_t loc, uint64_t from,
					       uint64_t to),
			       void *user);

/* The time of [a, b) on line l in each call path, one call per piece in time order (before
 * the line's first segment: path 0). */
void vt_prof_cp_spent(const struct vt_prof_cp_line *l, uint64_t a, uint64_t b,
		      void (*piece)(void *user, uint32_t path, uint64_t time), void *user);

/* The latest synchronisation point of line l before t, else its first event (at most t). */
uint64_t vt_prof_cp_sync_before(const struct vt_prof_cp_line *l, uint64_t t);

/* The member of a collective whose event let the waiters of pattern go: the last to enter
 * (Barrier, N×N), the root (Late Broadcast), the first other to enter (Early Reduce);
 * VTR_NONE for none. */
uint32_t vt_prof_cp_delayer(int pattern, uint32_t root, uint32_t n,
			    const struct vtr_coll_member *members);

/*
 * The delay cost of one wait w, handed to on_cost per call path of the delayer (the costs
 * sum to the wait's length, end - begin). The delayer's interval runs from its latest
 * synchronisation point before w->end (else its first event) to w->end, the waiter's from
 * its latest before w->begin to w->begin. Per call path, the delayer's excess: its time in
 * that path in its interval less the waiter's in the same path in its own, where positive.
 * The wait is divided over the paths in proportion to their excess (rounded down; the rest
 * to the first of the largest). Without excess, in proportion to the delayer's time in its
 * interval; without that, all to the delayer's path at w->end. scratch: room for 3 * (the
 * most segments of a line + 1) entries.
 */
struct vt_prof_cp_spent {
	uint32_t path;
	uint64_t time;
};
void vt_prof_delay_cost(const struct vt_prof_cp_line *lines, const struct vt_prof_cp_wait *w,
			struct vt_prof_cp_spent *scratch,
			void (*on_cost)(void *user, const struct vt_prof_cp_wait *w, uint32_t path,
					uint64_t cost),
			void *user);

/* vt_prof_delay_cost in two halves, for a waiter and a delayer read by different processes:
 * a line's tally, its time per call path from its latest synchronisation point before t to
 * t, in the order of the paths' ids, into out (room: l->n + 1); the number of paths. Then
 * the cost of w from the delayer's line d and the waiter's tally (its at w->begin); scratch:
 * room for 2 * (d->n + 1). */
size_t vt_prof_cp_tally(const struct vt_prof_cp_line *l, uint64_t t, struct vt_prof_cp_spent *out);
void vt_prof_delay_cost_of(const struct vt_prof_cp_line *d, const struct vt_prof_cp_wait *w,
			   const struct vt_prof_cp_spent *waiter, size_t nwaiter,
			   struct vt_prof_cp_spent *scratch,
			   void (*on_cost)(void *user, const struct vt_prof_cp_wait *w,
					   uint32_t path, uint64_t cost),
			   void *user);

#endif
