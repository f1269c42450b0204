/* SPDX-License-Identifier: BSD-3-Clause */
/* The state of one reading, shared by the readers (vtr_read.c) and the matching (vtr_match.c). */
#ifndef VTR_READER_H
#define VTR_READER_H

#include "vtr_priv.h"

struct frame {
	uint32_t region;
	uint64_t enter;
};

/* A location's call stack and open collectives, as read. */
struct loc_state {
	const struct vtr_location *loc;
	uint64_t prev, events, last;
	bool any;
	struct frame *stack;
	size_t depth, cap;
	uint64_t *coll_begin; /* CollectiveBegin times not yet ended */
	size_t ncoll, capcoll;
};

struct vtr_match; /* what waits for its other end: vtr_match.c */

struct reader {
	struct vtr_trace *tr;
	const struct vtr_callbacks *cb;
	void *user;
	bool merged;		  /* all locations in time order */
	bool matching;		  /* merged, and messages and collectives matched */
	struct loc_state *states; /* merged: one per location; else the current one */
	struct loc_state one;
	/* merged: the state of the last location looked up (runs of one location's events are
	 * the common case), NULL for none yet */
	struct loc_state *last_state;
	uint64_t last_id;
	struct vtr_match *match; /* merged */
	/* The record of every kind the matching does not see (most events), handed over
	 * without building one per event: only kind, time, region and mode ever change in it,
	 * the other fields stay as they start (0, member VTR_NONE). */
	struct vtr_record simple;
	struct vtr_stats stats; /* of this reading: vtr_last_stats() once it ends */
	/* The definitions count the events of the locations (some count is not 0): a location
	 * that delivers more than its count is damaged (libotf2 3.0 reads a truncated event
	 * file over and over), and the reading stops there (damaged, tr->err says where). */
	bool bounded, damaged;
	/* The event count (stats.events) at which the progress looks at the clock next,
	 * UINT64_MAX when it is off (vtr_progress.c). */
	uint64_t progress_at;
};

/* A reading's progress on stderr (vtr_progress.c): begin before the first event, tick when
 * stats.events reaches progress_at, vtr_progress_clear at the end. */
void vtr_progress_begin(struct reader *rd);
void vtr_progress_tick(struct reader *rd);

/* A problem callback with a formatted message; s may be NULL. */
__attribute__((format(printf, 7, 8))) void vtr_problem(struct reader *rd, struct loc_state *s,
						       enum vtr_problem kind, bool has_time,
						       uint64_t time, uint32_t region,
						       const char *fmt, ...);

/* The record callback, if the tool has one. */
static inline void vtr_emit(struct reader *rd, struct loc_state *s, struct vtr_record *r)
{
	if (rd->cb->record)
		rd->cb->record(rd->user, s->loc, r);
}

/*
 * Merged order: every end of a message or collective as read. Each hands r (the event's
 * fields filled in) to the record callback with its match once known, before what it
 * completes is handed over. Location by location they only hand r over (and, at a
 * CollectiveEnd, end the location's open collective).
 */
void vtr_match_send(struct reader *rd, struct loc_state *s, struct vtr_record *r);
void vtr_match_recv(struct reader *rd, struct loc_state *s, struct vtr_record *r);
void vtr_match_isend_complete(struct reader *rd, struct loc_state *s, struct vtr_record *r);
void vtr_match_irecv_request(struct reader *rd, struct loc_state *s, struct vtr_record *r);
void vtr_match_coll_end(struct reader *rd, struct loc_state *s, struct vtr_record *r);
/* After the last event: what never found its other end, as problems. */
void vtr_match_unmatched(struct reader *rd);
void vtr_match_free(struct reader *rd);

#endif
