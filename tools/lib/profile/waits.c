/* SPDX-License-Identifier: BSD-3-Clause */
/* The wait-state patterns' arithmetic on matched messages and collectives, without reading. */
#include "waits.h"

#include <otf2/otf2.h>

const char *const vt_prof_wait_names[VT_WAIT_PATTERNS] = {
    "Late Sender", "Late Sender, Wrong Order", "Late Receiver", "Wait at Barrier",
    "Wait at NxN", "Late Broadcast",	       "Early Reduce",	"OpenMP barrier wait",
};
const char *const vt_prof_wait_keys[VT_WAIT_PATTERNS] = {
    "late_sender", "wrong_order",    "late_receiver", "wait_barrier",
    "wait_nxn",	   "late_broadcast", "early_reduce",  "omp_barrier",
};

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void vt_prof_wait_message(const struct vt_prof_wait_msg *m, uint64_t *late_sender,
			  uint64_t *late_receiver)
{
	/* The receiving call waits from its Enter until the send starts, at most to its end. */
	*late_sender =
	    m->send_begin > m->recv_begin ? min64(m->send_begin, m->recv_end) - m->recv_begin : 0;
	/* A blocking send waits for its receive to be posted only if it completed after that
	 * (a synchronous or rendezvous transfer); an eager one returned before. */
	*late_receiver =
	    m->send_blocking && m->recv_posted > m->send_begin && m->send_end > m->recv_posted
		? m->recv_posted - m->send_begin
		: 0;
}

uint64_t vt_prof_wait_wrong_order(uint64_t late_sender, uint64_t send_begin,
				  uint64_t earliest_other)
{
	return earliest_other < send_begin ? late_sender : 0;
}

bool vt_prof_wait_is_part(enum vt_prof_wait w)
{
	return w == VT_WAIT_WRONG_ORDER;
}

enum vt_prof_wait vt_prof_wait_of_op(uint32_t op)
{
	switch (op) {
	case OTF2_COLLECTIVE_OP_BARRIER:
		return VT_WAIT_BARRIER;
	case OTF2_COLLECTIVE_OP_ALLGATHER:
	case OTF2_COLLECTIVE_OP_ALLGATHERV:
	case OTF2_COLLECTIVE_OP_ALLTOALL:
	case OTF2_COLLECTIVE_OP_ALLTOALLV:
	case OTF2_COLLECTIVE_OP_ALLTOALLW:
	case OTF2_COLLECTIVE_OP_ALLREDUCE:
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
		return VT_WAIT_NXN;
	case OTF2_COLLECTIVE_OP_BCAST:
	case OTF2_COLLECTIVE_OP_SCATTER:
	case OTF2_COLLECTIVE_OP_SCATTERV:
		return VT_WAIT_LATE_BCAST;
	case OTF2_COLLECTIVE_OP_REDUCE:
	case OTF2_COLLECTIVE_OP_GATHER:
	case OTF2_COLLECTIVE_OP_GATHERV:
		return VT_WAIT_EARLY_REDUCE;
	default:
		return VT_WAIT_PATTERNS;
	}
}

enum vt_prof_wait vt_prof_wait_collective(uint32_t op, uint32_t root, uint32_t n,
					  const struct vtr_coll_member *members, uint64_t *wait)
{
	enum vt_prof_wait w = vt_prof_wait_of_op(op);
	for (uint32_t i = 0; i < n; i++)
		wait[i] = 0;
	if (!n || ((w == VT_WAIT_LATE_BCAST || w == VT_WAIT_EARLY_REDUCE) && root >= n))
		return VT_WAIT_PATTERNS;
	uint64_t last = 0, first_other = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++) {
		if (members[i].begin > last)
			last = members[i].begin;
		if (i != root && members[i].begin < first_other)
			first_other = members[i].begin;
	}
	switch (w) {
	case VT_WAIT_BARRIER:
	case VT_WAIT_NXN:
		/* Every member until the last one enters, at most until its own end. */
		for (uint32_t i = 0; i < n; i++)
			if (last > members[i].begin)
				wait[i] = min64(last, members[i].end) - members[i].begin;
		break;
	case VT_WAIT_LATE_BCAST:
		/* The others until the root enters: no data can arrive before. */
		for (uint32_t i = 0; i < n; i++)
			if (i != root && members[root].begin > members[i].begin)
				wait[i] =
				    min64(members[root].begin, members[i].end) - members[i].begin;
		break;
	case VT_WAIT_EARLY_REDUCE:
		/* The root until the first other member enters: none has sent before. */
		if (n > 1 && first_other > members[root].begin)
			wait[root] = min64(first_other, members[root].end) - members[root].begin;
		break;
	default:
		break;
	}
	return w;
}
