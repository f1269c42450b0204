/* SPDX-License-Identifier: BSD-3-Clause */
/* The wait-state patterns (vt-profile --waits): their names and each one's arithmetic. */
#ifndef VT_PROF_WAITS_H
#define VT_PROF_WAITS_H

#include <stdbool.h>
#include <stdint.h>

#include "vtr.h"

/* The patterns, in the order reports list them (docs/vt-profile.md defines each). */
enum vt_prof_wait {
	VT_WAIT_LATE_SENDER,   /* a blocking receive (or its wait) entered before its send */
	VT_WAIT_WRONG_ORDER,   /* part of Late Sender: another message was sent earlier */
	VT_WAIT_LATE_RECEIVER, /* a blocking send that completed only after its receive started */
	VT_WAIT_BARRIER,       /* MPI_Barrier: until the last member enters */
	VT_WAIT_NXN,	       /* n-to-n collectives: until the last member enters */
	VT_WAIT_LATE_BCAST,    /* 1-to-n collectives: the others until the root enters */
	VT_WAIT_EARLY_REDUCE,  /* n-to-1 collectives: the root until the first other enters */
	VT_WAIT_OMP_BARRIER,   /* OpenMP barriers: each thread until the team's last enters */
	VT_WAIT_PATTERNS
};

/* "Late Sender", ...; keys for JSON and CSV: "late_sender", ... */
extern const char *const vt_prof_wait_names[VT_WAIT_PATTERNS];
extern const char *const vt_prof_wait_keys[VT_WAIT_PATTERNS];

/* The ends of a matched message as the patterns need them (ticks). */
struct vt_prof_wait_msg {
	uint64_t send_begin, send_end; /* the send call's Enter; its Leave (an Isend: its
					* completion) */
	bool send_blocking;	       /* MPI_Send or MPI_Ssend, not an Isend */
	uint64_t recv_posted;	       /* the receive call's Enter, or an Irecv's request */
	uint64_t recv_begin, recv_end; /* the call that completed the receive: its Enter (MPI_Recv,
					* MPI_Wait...), the receive event */
};

/* The receiver's Late Sender and the sender's Late Receiver time (either may be 0). */
void vt_prof_wait_message(const struct vt_prof_wait_msg *m, uint64_t *late_sender,
			  uint64_t *late_receiver);

/* Late Sender, Wrong Order: the Late Sender time of a message whose send began at
 * send_begin, when another message to the same receiver whose send began at earliest_other
 * (UINT64_MAX: none) was still to be received: all of it if that one was sent earlier, else 0. */
uint64_t vt_prof_wait_wrong_order(uint64_t late_sender, uint64_t send_begin,
				  uint64_t earliest_other);

/* Whether a pattern's time is part of another's (Wrong Order of Late Sender's): the total of
 * all patterns leaves it out. */
bool vt_prof_wait_is_part(enum vt_prof_wait w);

/* The pattern of a collective operation (OTF2_CollectiveOp), or VT_WAIT_PATTERNS for one
 * without (scans, the non-blocking ones, handles). */
enum vt_prof_wait vt_prof_wait_of_op(uint32_t op);

/* Each member's waiting time in a collective of n members whose begins and ends are given
 * (wait[i] for members[i]); root: the root's index among them (1-to-n, n-to-1). The pattern
 * of op, VT_WAIT_PATTERNS (wait all 0) for an operation without one or a root out of range.
 * An OpenMP barrier's threads: as VT_WAIT_BARRIER (op OTF2_COLLECTIVE_OP_BARRIER). */
enum vt_prof_wait vt_prof_wait_collective(uint32_t op, uint32_t root, uint32_t n,
					  const struct vtr_coll_member *members, uint64_t *wait);

#endif
