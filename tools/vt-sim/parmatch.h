/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim-mpi's records, process 0's pairing of their ends and the shares, without MPI. */
#ifndef VTS_PARMATCH_H
#define VTS_PARMATCH_H

#include "vts.h"

/* One event as it travels, in slots of 24 bytes: its first with the time, location, kind
 * and arg (an Enter's or Leave's region, MeasurementOnOff's mode); a message end, request or
 * collective end takes two more (struct vts_pext: a collective end has its op in tag, its root
 * in peer, sent in bytes), so that Enters and Leaves, most events, cost 24 bytes. */
struct vts_prec {
	uint64_t time;
	uint32_t loc, kind, arg, nslots;
};
struct vts_pext {
	uint64_t request, bytes, received;
	uint32_t comm, tag, peer, pad;
};
#define VTS_EXT_SLOTS 2
_Static_assert(sizeof(struct vts_prec) == 24 && sizeof(struct vts_pext) <= VTS_EXT_SLOTS * 24,
	       "a record's slots");

/* The record of event r of loc into slots (room for 1 + VTS_EXT_SLOTS): the slots it took,
 * 0 for an event the replay leaves out (VTR_EV_Unknown). */
uint32_t vts_pack(struct vts_prec *slots, const struct vtr_location *loc,
		  const struct vtr_record *r);

/* A table by three words: open addressing, a key taken out leaves a tombstone. */
struct vts_ent {
	uint64_t a, b, c;
	void *slot;
	uint64_t n;
	uint8_t state; /* 0 free, 1 used, 2 taken out */
};
struct vts_table {
	struct vts_ent *e;
	size_t used, cap; /* used: used and taken out */
};
/* The entry of key (a, b, c); made (slot NULL, n 0) if make, else NULL when there is none. */
struct vts_ent *vts_table_find(struct vts_table *t, uint64_t a, uint64_t b, uint64_t c, bool make);

/* Process 0's pairing: the ends as libvttrace's matching pairs them in merged order (the k-th
 * send of a key, communicator, sender and receiver rank in it and tag, with its k-th receive;
 * the k-th end of each member of a communicator's collective), by counting ends per key. */
struct vts_pmatch {
	struct vts_table p2p;  /* (comm tag, sender receiver, 0|1): ends seen; (.., 2 + k): open */
	struct vts_table coll; /* (comm, member, 0): ends seen; (comm, ~0, 1 + k): open */
	struct vts_table member;
	struct vtr_record simple; /* Enter's and Leave's */
	uint64_t key[3];	  /* of the message or collective being delivered */
};

void vts_pmatch_init(struct vts_pmatch *mt);
/* One record (its slots) to cb->record, in merged order, with the match vtr_read_merged would
 * give it: a slot shared by its message's or collective's ends, NULL at the first. */
void vts_pmatch_deliver(struct vts_pmatch *mt, const struct vtr_trace *tr,
			const struct vtr_callbacks *cb, void *user, const struct vts_prec *p);
void vts_pmatch_free(struct vts_pmatch *mt);

/* The distributed replay's share (dist.c): the process of each location of tr among nprocs,
 * whole ranks each (a location without a rank alone), in rank order, about as many events
 * each; nlocations entries, to free. */
uint32_t *vts_dist_owners(const struct vtr_trace *tr, uint32_t nprocs);

#endif
