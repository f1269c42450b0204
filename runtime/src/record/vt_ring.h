/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode (VT_MODE=ring): the last buffer halves of a location kept, and its open frames. */
#ifndef VT_RING_H
#define VT_RING_H

#include "record/vt_rec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A location's ring: its buffer's two halves and as many more as VT_RING_SIZE holds, and one,
 * used in turn. A full half stays in the window (nothing is encoded during the run), and when
 * the window is full its oldest half leaves it: its Enter and Leave records are replayed (by
 * the writer thread, before the half is filled again) into a stack of the frames open before
 * the window, so that at write time the window starts with those
 * frames (VT_REC_ENTER_BEFORE) and a MeasurementOnOff(on). Every function is called with the
 * location's lock held.
 */
struct vt_ring;

/* A ring over the buffer's two halves of half records each, with as many more of the same
 * size as VT_RING_SIZE holds (at least one) and one more for the half that left last; NULL
 * (one line said) when memory ran out. */
struct vt_ring *vt_ring_new(struct vt_rec *half0, struct vt_rec *half1, size_t half);

/* The half being filled is full up to pos: it joins the window; returns the half to fill
 * next. When the window was full, its oldest half leaves it: [*from, *to) (else NULL), which
 * must be replayed (vt_ring_replay) before the next rotation, whose half it is. */
struct vt_rec *vt_ring_rotate(struct vt_ring *g, struct vt_rec *pos, const struct vt_rec **from,
			      const struct vt_rec **to);

/* The Enters and Leaves of a half that left the window, into the frames open at its start.
 * in_handler: from a signal handler, which must not allocate (a deeper stack than allocated
 * is then counted, not kept). */
void vt_ring_replay(struct vt_ring *g, const struct vt_rec *from, const struct vt_rec *to,
		    bool in_handler);

/* Hands the window to encode in order: the frames open at its start and the marker, the full
 * halves oldest first, then the current one up to upto (NULL: none of it). */
void vt_ring_write(struct vt_ring *g, struct vt_rec *upto, void *arg,
		   void (*encode)(void *arg, const struct vt_rec *from, const struct vt_rec *to));

/* A job's snapshot (lifecycle/vt_snapshot.c): every ring written from now on holds the
 * window [t0, t1] only (local ticks): the records before t0 join the frames open at its
 * start, which t0 is, those after t1 are left out. */
void vt_ring_cut(uint64_t t0, uint64_t t1);

/* The time of the first record the window holds when records left it (0: none left, the
 * ring holds the location's whole record); upto: where the current half ends. */
uint64_t vt_ring_window_start(const struct vt_ring *g, const struct vt_rec *upto);

/* What a job's snapshot matches across ranks: a message's end or a collective's end on a
 * communicator (local id); peer and tag for messages. */
enum vt_ring_msg_kind { VT_RING_SEND, VT_RING_RECV, VT_RING_COLL };
struct vt_ring_msg {
	uint32_t kind, comm, peer, tag;
};

/* A table of channels, each with four counts of its user's (zero when added). */
struct vt_msg_chan {
	struct vt_ring_msg key;
	uint64_t v[4];
	bool used;
};
struct vt_msg_tab {
	struct vt_msg_chan *t; /* n slots, a power of two, at most half used */
	size_t n, used;
	bool lost; /* a channel could not be added */
};
void vt_msg_tab_init(struct vt_msg_tab *tab);
void vt_msg_tab_free(struct vt_msg_tab *tab);
/* m's channel in tab, added if new (may_grow: the table may allocate; not in a signal
 * handler); NULL when it could not be added (tab->lost is set). */
struct vt_msg_chan *vt_msg_tab_get(struct vt_msg_tab *tab, const struct vt_ring_msg *m,
				   bool may_grow);

/* The messages and collective ends of the records that left the ring, counted per channel
 * as they left: fn for each; false when some could not be counted (no memory in a signal
 * handler's replay). */
bool vt_ring_left_msgs(const struct vt_ring *g,
		       void (*fn)(void *arg, const struct vt_ring_msg *m, uint64_t n), void *arg);

/* Every message and collective end the ring holds, up to upto in the current half, oldest
 * first, with where it falls in the job's window (vt_ring_cut): -1 before it, 0 in it, 1
 * after it. fn may mark a head in the window VT_REC_CUT. */
void vt_ring_each_msg(struct vt_ring *g, struct vt_rec *upto,
		      void (*fn)(void *arg, const struct vt_ring_msg *m, int where,
				 struct vt_rec *head),
		      void *arg);

/* Bytes of the halves that left the ring (0: the window is the whole run so far). */
uint64_t vt_ring_lost_bytes(const struct vt_ring *g);

/* Gives back the ring's own memory (not the buffer's two halves). */
void vt_ring_free(struct vt_ring *g);

#endif
