/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --waits split over processes: the records that travel, without MPI itself. */
/*
 * vt-profile-mpi --waits on N processes (docs/dev/tools-lib.md): each reads the locations of
 * its ranks (waits.c, in split mode), keeps its call paths with their first occurrence and
 * turns every end of a message or collective into a record; the records travel to the
 * process that owns the message (its receiver's rank) or the collective instance; that one
 * matches and computes them as the serial reading would (waits_split.c); the sums and the
 * call paths end at process 0, which prints them. waits_mpi.c moves the bytes.
 *
 * The records travel in exchanges while the processes read: the next one when a process has
 * read a window of records or reached a time they agreed on (the bound). The owner replays
 * the ends before the least time any process has read up to (the watermark) in time order,
 * the others at a later exchange. What a process holds is what it read since the last
 * exchange, what it owns and still waits for (a message's other end, a collective's last
 * member, a send's Leave or completion, ends after the watermark), not the trace.
 */
#ifndef VT_PROFILE_WAITS_SPLIT_H
#define VT_PROFILE_WAITS_SPLIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "paths.h"
#include "profile.h"
#include "report.h"
#include "vtr.h"

/* One sum of --waits: a pattern's time and instances at a call path, location (index),
 * communicator. */
struct vt_prof_wcell {
	uint32_t pattern, path, loc, comm;
	uint64_t time, count;
};

/* The first occurrence of a local call path (its smallest time, location index, place in
 * that location's events) and its node, for the numbering of the serial reading. */
struct vt_prof_wpath {
	uint64_t time, seq;
	uint32_t loc, parent, region, pad;
};

/* One end of a message: a send or a receive, as the serial reading would see it. */
/* WP_AWAIT: a send whose call's Leave or Isend's completion is still to come; WP_UPDATE: that
 * Leave or completion, after the send went out (the send's fields, other or complete set). */
enum {
	WP_NONBLOCKING = 1,
	WP_LEAVE_KNOWN = 2,
	WP_COMPLETED = 4,
	WP_SEND = 8,
	WP_AWAIT = 16,
	WP_UPDATE = 32
};
struct vt_prof_wmsg {
	uint64_t time;		    /* the event */
	uint64_t call;		    /* its MPI call's Enter (the event's time outside one) */
	uint64_t other;		    /* send: its call's Leave (WP_LEAVE_KNOWN), receive: posted */
	uint64_t complete;	    /* an Isend's completion (WP_COMPLETED) */
	uint64_t bytes, seq, order; /* seq: k-th of its key; order: in its location */
	uint32_t comm, sender, receiver, tag; /* ranks in comm */
	uint32_t loc, path, flags, pad;
};

/* One member's end of a collective: the k-th of that member on comm; sent, received: its
 * bytes (--mpi). */
struct vt_prof_wcoll {
	uint64_t k, begin, end, order, sent, received;
	uint32_t comm, member, op, root, loc, path;
};

struct vt_prof_wsplit;
struct waits;

/* The records a process reads between two exchanges (--window's default). */
#define VT_PROF_WINDOW 32768

/* The split state of process me of n for trace t (its share: locations of its ranks). */
struct vt_prof_wsplit *vt_prof_wsplit_new(const struct vtr_trace *t, uint32_t me, uint32_t n);
void vt_prof_wsplit_free(struct vt_prof_wsplit *sp);
/* Its share of the locations (vtr_trace.only). */
const bool *vt_prof_wsplit_share(const struct vt_prof_wsplit *sp);

/* The process that reads location loc. */
uint32_t vt_prof_wsplit_loc_owner(const struct vt_prof_wsplit *sp, uint32_t loc);

/* vt-profile-mpi --critical-path (cpath_split.c) and --mpi (mpi.c): the owner's messages with both
 * ends (the receive's Late Sender time) and collectives every member ended (members by rank in the
 * communicator, the paths of their ends, its operation and root, the pattern and its waits), as
 * they are computed. */
struct vt_prof_wsplit_cp {
	void (*message)(void *user, const struct vt_prof_wmsg *s, const struct vt_prof_wmsg *r,
			uint64_t late_sender);
	void (*collective)(void *user, const struct vtr_coll_member *mem, const uint32_t *paths,
			   uint32_t n, uint32_t op, uint32_t root, int pattern,
			   const uint64_t *wait);
};
void vt_prof_wsplit_on_cp(struct vt_prof_wsplit *sp, const struct vt_prof_wsplit_cp *cp,
			  void *user);

/* From waits.c's reading: a call path entered (path_new: first seen here); an end of a
 * message or collective (returns the send's handle for vt_prof_wsplit_send_left when it is a
 * blocking send in its call, else 0); a blocking send's call left. */
void vt_prof_wsplit_enter(struct vt_prof_wsplit *sp, const struct vt_prof_paths *paths,
			  uint32_t path, bool path_new, const struct vtr_location *loc,
			  uint64_t time, uint64_t order);
uint64_t vt_prof_wsplit_record(struct vt_prof_wsplit *sp, const struct vtr_location *loc,
			       const struct vtr_record *r, uint32_t path, bool in_call,
			       uint64_t call, uint64_t top_enter, uint64_t order);
void vt_prof_wsplit_send_left(struct vt_prof_wsplit *sp, uint64_t handle, uint64_t time);

/* The exchanges' rhythm: waits.c ticks at every event before it is read; when its time reaches
 * the bound or window records are to go out, round is called with that time (every process
 * calls it as often: it exchanges, and sets the next bound). After the reading, round is
 * called with UINT64_MAX until the bound is UINT64_MAX. peak: the most records this process
 * held at once. */
void vt_prof_wsplit_on_round(struct vt_prof_wsplit *sp, void (*round)(void *user, uint64_t now),
			     void *user, size_t window);
void vt_prof_wsplit_tick(struct vt_prof_wsplit *sp, uint64_t time);
uint64_t vt_prof_wsplit_bound(const struct vt_prof_wsplit *sp);
void vt_prof_wsplit_set_bound(struct vt_prof_wsplit *sp, uint64_t bound);
size_t vt_prof_wsplit_peak(const struct vt_prof_wsplit *sp);

/* What travels, for waits_mpi.c: the local paths (index: local number - 1); the records per
 * destination process (dest[i]: the process of sends[i] ...), path numbers those of the
 * process that read the record's location. */
const struct vt_prof_wpath *vt_prof_wsplit_paths(const struct vt_prof_wsplit *sp, size_t *n);
/* The records since the last exchange, taken: the caller frees them (once packed). */
struct vt_prof_wmsg *vt_prof_wsplit_take_msgs(struct vt_prof_wsplit *sp, size_t *n);
struct vt_prof_wcoll *vt_prof_wsplit_take_colls(struct vt_prof_wsplit *sp, size_t *n);
uint32_t vt_prof_wsplit_msg_dest(const struct vt_prof_wsplit *sp, const struct vt_prof_wmsg *m);
uint32_t vt_prof_wsplit_coll_dest(const struct vt_prof_wsplit *sp, const struct vt_prof_wcoll *c);

/* Every process's paths (all[i] for process i, count[i] of them): the global numbering, in
 * the order of first occurrence, into global; map: this process's local number -> global
 * (map[0] = 0). global_path: the global number of a path numbered by the process that read
 * location loc (what the owners' sums hold). */
void vt_prof_wsplit_globalize(struct vt_prof_wsplit *sp, const struct vt_prof_wpath *const *all,
			      const size_t *count, uint32_t nprocs, struct vt_prof_paths *global,
			      uint32_t **map);
uint32_t vt_prof_wsplit_global_path(const struct vt_prof_wsplit *sp, uint32_t loc, uint32_t path);

/* The owner's part: the records that came to this process in one exchange, matched and
 * computed into w's sums as far as they can be (ingest; watermark: every process has sent
 * every end before it, the ends after it wait for the next exchange); at the end, what is
 * left: unmatched ends, collectives not ended by every member (problems, warnings on warn;
 * finish). resolve: both, for records that are all there are. */
void vt_prof_wsplit_ingest(struct vt_prof_wsplit *sp, struct waits *w, const struct vt_prof_wmsg *m,
			   size_t nm, const struct vt_prof_wcoll *c, size_t nc, uint64_t watermark);
void vt_prof_wsplit_finish(struct vt_prof_wsplit *sp, struct waits *w);
void vt_prof_wsplit_resolve(struct vt_prof_wsplit *sp, struct waits *w, struct vt_prof_wmsg *m,
			    size_t nm, struct vt_prof_wcoll *c, size_t nc);

/* waits.c's side, for the split reading. */
struct waits *vt_prof_waits_new(const struct vtr_trace *t, FILE *warn, struct vt_prof_wsplit *sp);
int vt_prof_waits_read(struct waits *w);
/* Its reading's callbacks (user: w), for a reading that does more (cpath_split.c). */
const struct vtr_callbacks *vt_prof_waits_callbacks(void);
void vt_prof_waits_add(struct waits *w, uint32_t pattern, uint32_t path, uint32_t loc,
		       uint32_t comm, uint64_t time, uint64_t count);
const struct vt_prof_wcell *vt_prof_waits_cells(const struct waits *w, size_t *n);
/* The sums' paths renumbered (vt_prof_wsplit_global_path), the paths then global's (taken). */
void vt_prof_waits_renumber(struct waits *w, const struct vt_prof_wsplit *sp,
			    struct vt_prof_paths *global);
uint64_t *vt_prof_waits_problems(struct waits *w);
const struct vt_prof_paths *vt_prof_waits_paths(const struct waits *w);
uint64_t vt_prof_waits_stack_problems(const struct waits *w);
FILE *vt_prof_waits_warn(const struct waits *w);
void vt_prof_waits_print(struct waits *w, const struct vt_prof_trace *tr,
			 const struct vt_prof_options *opt, FILE *out);
void vt_prof_waits_free(struct waits *w);

/* vt-profile-mpi: the parallel --waits, --critical-path or --mpi (waits_mpi.c), every process; the
 * exit status. */
int vt_prof_waits_mpi(const char *path, const struct vt_prof_options *opt);

#endif
