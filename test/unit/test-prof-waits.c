/* SPDX-License-Identifier: BSD-3-Clause */
/* libvtprof's wait-state arithmetic (tools/lib/profile/waits.c) at its edges, pattern by pattern.
 */
/*
 * What the e2e test's trace does not reach: equal times (no wait), a wait cut at the waiting
 * call's own end, an eager send that returned before its receive was posted, an Irecv posted
 * early but waited for late, a root out of range, operations without a pattern, one member.
 */
#include "unit.h"
#include "waits.h"

#include <otf2/otf2.h>

static void messages(void)
{
	uint64_t ls, lr;
	/* The receive entered at 10, the send at 25: 15 lost; the send returned at 26. */
	struct vt_prof_wait_msg m = {.send_begin = 25,
				     .send_end = 26,
				     .send_blocking = true,
				     .recv_posted = 10,
				     .recv_begin = 10,
				     .recv_end = 30};
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 15 && lr == 0);
	/* Equal Enters: nobody waits. */
	m = (struct vt_prof_wait_msg){.send_begin = 10,
				      .send_end = 12,
				      .send_blocking = true,
				      .recv_posted = 10,
				      .recv_begin = 10,
				      .recv_end = 12};
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 0 && lr == 0);
	/* A send begun after the receive had ended (damaged clocks): the receive's length. */
	m = (struct vt_prof_wait_msg){.send_begin = 50,
				      .send_end = 51,
				      .send_blocking = true,
				      .recv_posted = 10,
				      .recv_begin = 10,
				      .recv_end = 20};
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 10 && lr == 0);
	/* An Irecv posted at 5, its MPI_Wait entered at 40, the send at 30: no Late Sender. */
	m = (struct vt_prof_wait_msg){.send_begin = 30,
				      .send_end = 31,
				      .send_blocking = true,
				      .recv_posted = 5,
				      .recv_begin = 40,
				      .recv_end = 41};
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 0 && lr == 0);
	/* ... its Wait entered at 20 instead: 10 lost in the Wait. */
	m.recv_begin = 20;
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 10 && lr == 0);
	/* A synchronous send from 3 to 15, the receive posted at 13: 10 lost by the sender. */
	m = (struct vt_prof_wait_msg){.send_begin = 3,
				      .send_end = 15,
				      .send_blocking = true,
				      .recv_posted = 13,
				      .recv_begin = 13,
				      .recv_end = 16};
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 0 && lr == 10);
	/* An eager send that returned at 4, before the receive was posted: no wait. */
	m.send_end = 4;
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(ls == 0 && lr == 0);
	/* Returned exactly when the receive was posted: still no wait (it did not wait for it). */
	m.send_end = 13;
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(lr == 0);
	/* An Isend never counts as Late Receiver: its wait is in the call that completes it. */
	m.send_end = 15;
	m.send_blocking = false;
	vt_prof_wait_message(&m, &ls, &lr);
	CHECK(lr == 0);
}

static void wrong_order(void)
{
	/* Another message to the receiver, sent at 5, still to be received: all 7 of it. */
	CHECK(vt_prof_wait_wrong_order(7, 20, 5) == 7);
	/* The other one sent later, at the same time, or none at all: not Wrong Order. */
	CHECK(vt_prof_wait_wrong_order(7, 20, 25) == 0);
	CHECK(vt_prof_wait_wrong_order(7, 20, 20) == 0);
	CHECK(vt_prof_wait_wrong_order(7, 20, UINT64_MAX) == 0);
	/* No Late Sender, no Wrong Order. */
	CHECK(vt_prof_wait_wrong_order(0, 20, 5) == 0);
	CHECK(vt_prof_wait_is_part(VT_WAIT_WRONG_ORDER) &&
	      !vt_prof_wait_is_part(VT_WAIT_LATE_SENDER));
}

static void collectives(void)
{
	uint64_t w[4];
	struct vtr_coll_member c[4] = {{.begin = 10, .end = 40},
				       {.begin = 30, .end = 40},
				       {.begin = 20, .end = 25},
				       {.begin = 35, .end = 40}};
	/* Barrier: each until the last Enter (35), at most to its own end (member 2: 25). */
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_BARRIER, VTR_NONE, 4, c, w) ==
	      VT_WAIT_BARRIER);
	CHECK(w[0] == 25 && w[1] == 5 && w[2] == 5 && w[3] == 0);
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_ALLTOALLV, VTR_NONE, 4, c, w) ==
	      VT_WAIT_NXN);
	CHECK(w[0] == 25 && w[1] == 5 && w[2] == 5 && w[3] == 0);
	/* Broadcast from member 1 (entered at 30): the others that entered before it. */
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_BCAST, 1, 4, c, w) == VT_WAIT_LATE_BCAST);
	CHECK(w[0] == 20 && w[1] == 0 && w[2] == 5 && w[3] == 0);
	/* Reduce to member 0 (at 10): it waits until the first other Enter (20). */
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_GATHERV, 0, 4, c, w) ==
	      VT_WAIT_EARLY_REDUCE);
	CHECK(w[0] == 10 && w[1] == 0 && w[2] == 0 && w[3] == 0);
	/* Reduce to member 3, the last to enter: no Early Reduce. */
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_REDUCE, 3, 4, c, w) ==
	      VT_WAIT_EARLY_REDUCE);
	CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0);
	/* A root out of range, an operation without a pattern: nothing. */
	w[0] = 99;
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_BCAST, 4, 4, c, w) == VT_WAIT_PATTERNS);
	CHECK(w[0] == 0);
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_SCAN, VTR_NONE, 4, c, w) ==
	      VT_WAIT_PATTERNS);
	CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0);
	/* One member: nobody to wait for, a reduce's root included. */
	CHECK(vt_prof_wait_collective(OTF2_COLLECTIVE_OP_REDUCE, 0, 1, c, w) ==
	      VT_WAIT_EARLY_REDUCE);
	CHECK(w[0] == 0);
	CHECK(vt_prof_wait_of_op(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK) == VT_WAIT_NXN);
	CHECK(vt_prof_wait_of_op(OTF2_COLLECTIVE_OP_SCATTERV) == VT_WAIT_LATE_BCAST);
	CHECK(vt_prof_wait_of_op(OTF2_COLLECTIVE_OP_EXSCAN) == VT_WAIT_PATTERNS);
}

int main(void)
{
	messages();
	wrong_order();
	collectives();
	return unit_done();
}
