/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --critical-path split over processes: what each holds and sends, without MPI. */
/*
 * vt-profile-mpi --critical-path on N processes (docs/dev/tools-lib.md): each process reads
 * the locations of its ranks as --waits splits them (waits_split.c, whose owners match the
 * messages and collectives in windows) and keeps each location's line: its call path over
 * time, first and last event, synchronisation points. The owners hand each matched message
 * and complete collective here; they become synchronisation points and waits (with their
 * delayers), sent to the process that reads the waiting location. Then, in rounds the MPI
 * side (waits_mpi.c) moves a window (--window) of items at a time:
 *   1. found: synchronisation points and waits to the waiter's process;
 *   2. tallies: per wait, the waiter's time per call path since its last synchronisation
 *      point, to the delayer's process, which divides the wait over its own call paths
 *      (libvtprof's vt_prof_delay_cost, the waiter's line rebuilt from the tally);
 *   3. summary: per location its first and last event, and its waits, to process 0, which
 *      walks the path back over the waits alone (vt_prof_critical_walk);
 *   4. spans: the path's stretches of each location back to its process, which sums them
 *      per call path on its lines; the sums (and the costs) end at process 0, which prints.
 * Call paths are numbered as the serial reading numbers them (waits_split's globalize)
 * before 2, so ties between paths break as in the serial report.
 */
#ifndef VT_PROFILE_CPATH_SPLIT_H
#define VT_PROFILE_CPATH_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "vtr.h"

struct vt_prof_wsplit;
struct waits;

/* What travels: one fixed-size item, read by kind. */
enum {
	CP_SYNC,  /* loc's synchronisation point at end */
	CP_WAIT,  /* loc waited in path from begin to end for delayer (pattern) */
	CP_TALLY, /* a wait (as CP_WAIT) whose n CP_PIECEs follow: the waiter's time per path */
	CP_PIECE, /* path: begin ticks */
	CP_LINE,  /* loc's first (begin) and last (end) event */
	CP_SPAN	  /* loc is on the path from begin to end */
};
struct vt_prof_cpitem {
	uint64_t begin, end;
	uint32_t loc, path, delayer, pattern, kind, n;
};

struct vt_prof_cpsplit;

/* Process sp's share of t, its --waits state w (sp's owners' matches come here from now). */
struct vt_prof_cpsplit *vt_prof_cpsplit_new(const struct vtr_trace *t, struct vt_prof_wsplit *sp,
					    struct waits *w);
void vt_prof_cpsplit_free(struct vt_prof_cpsplit *cs);

/* The split reading (waits.c's, with the lines kept here). 0, or -1 (t->err). Its callbacks
 * (user: cs), each handing the event on to waits.c's after its own part. */
int vt_prof_cpsplit_read(struct vt_prof_cpsplit *cs);
const struct vtr_callbacks *vt_prof_cpsplit_callbacks(void);

/* The rounds: each step's items go out a window at a time (make: about max items, from
 * where the last call left off, a wait's tally whole; dest[i]: item i's process; none when
 * this process has no more), every process making rounds until none has more. */

/* 1. What this process's owners found, to the waiting locations' processes; there, taken. */
struct vt_prof_cpitem *vt_prof_cpsplit_found(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					     uint32_t **dest);
void vt_prof_cpsplit_take_found(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x,
				size_t n);

/* The lines' and waits' call paths in the global numbering (map: local -> global). */
void vt_prof_cpsplit_globalize(struct vt_prof_cpsplit *cs, const uint32_t *map);

/* 2. Per wait of this process's locations its tally, to the delayer's process; there, the
 * delay costs of the tallies that came. */
struct vt_prof_cpitem *vt_prof_cpsplit_tallies(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					       uint32_t **dest);
void vt_prof_cpsplit_costs(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n);

/* 3. This process's lines (CP_LINE) and waits, to process 0, which takes them and walks the
 * path: its length, the waits followed; then its spans in rounds (to their locations'
 * processes). */
struct vt_prof_cpitem *vt_prof_cpsplit_summary(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					       uint32_t **dest);
void vt_prof_cpsplit_take_summary(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x,
				  size_t n);
void vt_prof_cpsplit_walk(struct vt_prof_cpsplit *cs, uint64_t *length, size_t *followed);
struct vt_prof_cpitem *vt_prof_cpsplit_span_out(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
						uint32_t **dest);

/* 4. The spans of this process's locations summed per call path; this process's sums: the
 * delay costs, then the path's (pattern VT_WAIT_PATTERNS), each key once. */
void vt_prof_cpsplit_spans(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n);
struct vt_prof_cp_sum *vt_prof_cpsplit_sums(struct vt_prof_cpsplit *cs, size_t *n);

/* Sums from every process merged by key (counts and times added), in place: the costs first
 * (*ncosts of them), then the path's. The new count. */
size_t vt_prof_cpsplit_merge(struct vt_prof_cp_sum *s, size_t n, size_t *ncosts);

#endif
