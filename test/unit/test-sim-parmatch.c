/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim-mpi's records and pairing: fields survive packing, ends pair as libvttrace pairs them. */
#include <stdlib.h>
#include <string.h>

#include "parmatch.h"
#include "unit.h"

const char *const vts_prog = "test-sim-parmatch";

/*
 * Four locations: 0 and 1 are two threads of rank 0, 2 is rank 1, 3 is rank 2. Communicator
 * 0 is the world (ranks 0, 1, 2), 1 holds ranks 2 and 0 in that order (so rank 0 is member
 * 1), 2 is a communicator of rank 1 alone.
 */
static uint32_t world[] = {0, 1, 2}, pair[] = {2, 0}, self[] = {1};
static struct vtr_location locs[] = {{.index = 0, .rank = 0},
				     {.index = 1, .rank = 0},
				     {.index = 2, .rank = 1},
				     {.index = 3, .rank = 2}};
static struct vtr_comm comms[] = {{.defined = true, .size = 3, .rank_of_member = world},
				  {.defined = true, .size = 2, .rank_of_member = pair},
				  {.defined = true, .size = 1, .rank_of_member = self}};

/* What the replay's callback saw, per delivered record: the record and the match slot's value
 * when it came; the callback then stores a token of its own for the next end. */
struct seen {
	struct vtr_record r;
	uintptr_t had; /* 0: NULL, the first end */
	bool matched;
	uint32_t loc;
};
static struct seen got[128];
static size_t ngot;

static void record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	(void)user;
	struct seen *s = &got[ngot];
	*s = (struct seen){.r = *r, .matched = r->match != NULL, .loc = (uint32_t)loc->index};
	if (r->match) {
		s->had = (uintptr_t)*r->match;
		if (!*r->match)
			*r->match = (void *)(uintptr_t)(ngot + 1); /* this end's token */
	}
	ngot++;
}

static struct vtr_trace trace = {.locations = locs, .nlocations = 4, .comms = comms, .ncomms = 3};

/* Packs r (of location loc), unpacks it through the pairing: the number of slots. */
static uint32_t through(struct vts_pmatch *mt, uint32_t loc, struct vtr_record r)
{
	struct vts_prec slots[1 + VTS_EXT_SLOTS];
	memset(slots, 0xa5, sizeof(slots)); /* no field read that packing did not write */
	uint32_t n = vts_pack(slots, &locs[loc], &r);
	if (n) {
		CHECK(slots[0].nslots == n);
		const struct vtr_callbacks cb = {.record = record};
		vts_pmatch_deliver(mt, &trace, &cb, NULL, slots);
	}
	return n;
}

static struct vtr_record msg(enum vtr_event kind, uint64_t t, uint32_t comm, uint32_t peer,
			     uint32_t tag)
{
	return (struct vtr_record){.kind = kind,
				   .time = t,
				   .comm = comm,
				   .peer = peer,
				   .tag = tag,
				   .bytes = 1000 + t,
				   .request = 7 * t,
				   .member = VTR_NONE};
}

static struct vtr_record coll(uint64_t t, uint32_t comm)
{
	return (struct vtr_record){.kind = VTR_EV_MpiCollectiveEnd,
				   .time = t,
				   .comm = comm,
				   .op = 4,
				   .root = 1,
				   .sent = 10 * t,
				   .received = 20 * t,
				   .member = VTR_NONE};
}

int main(void)
{
	struct vts_pmatch mt;
	vts_pmatch_init(&mt);

	/* Enter, Leave, MeasurementOnOff: one slot, their fields back. */
	CHECK(through(&mt, 2, (struct vtr_record){.kind = VTR_EV_Enter, .time = 5, .region = 9}) ==
	      1);
	CHECK(through(&mt, 2,
		      (struct vtr_record){.kind = VTR_EV_MeasurementOnOff, .time = 6, .mode = 2}) ==
	      1);
	CHECK(through(&mt, 2, (struct vtr_record){.kind = VTR_EV_Leave, .time = 7, .region = 9}) ==
	      1);
	CHECK(through(&mt, 2, (struct vtr_record){.kind = VTR_EV_Unknown, .time = 8}) == 0);
	CHECK(ngot == 3);
	CHECK(got[0].r.kind == VTR_EV_Enter && got[0].r.time == 5 && got[0].r.region == 9 &&
	      got[0].loc == 2 && !got[0].matched);
	CHECK(got[1].r.kind == VTR_EV_MeasurementOnOff && got[1].r.mode == 2 && !got[1].matched);
	CHECK(got[2].r.kind == VTR_EV_Leave && got[2].r.time == 7 && got[2].r.region == 9);

	/* Two sends of one key (world, rank 0 -> rank 1, tag 3) from the two threads of rank 0,
	 * then the two receives: the k-th send with the k-th receive, whatever the thread. */
	size_t base = ngot;
	CHECK(through(&mt, 0, msg(VTR_EV_MpiSend, 10, 0, 1, 3)) == 1 + VTS_EXT_SLOTS);
	through(&mt, 1, msg(VTR_EV_MpiIsend, 11, 0, 1, 3));
	through(&mt, 2, msg(VTR_EV_MpiIrecv, 12, 0, 0, 3));
	through(&mt, 2, msg(VTR_EV_MpiRecv, 13, 0, 0, 3));
	CHECK(ngot == base + 4);
	CHECK(got[base].matched && got[base].had == 0 && got[base + 1].had == 0);
	CHECK(got[base + 2].had == base + 1); /* the first send's token */
	CHECK(got[base + 3].had == base + 2);
	CHECK(got[base + 1].r.kind == VTR_EV_MpiIsend && got[base + 1].r.comm == 0 &&
	      got[base + 1].r.peer == 1 && got[base + 1].r.tag == 3 &&
	      got[base + 1].r.bytes == 1011 && got[base + 1].r.request == 77);
	/* Receive first, on communicator 1 (rank 0 is its member 1, rank 2 member 0): rank 2
	 * receives from member 1 what rank 0 then sends to member 0. A send of another tag and
	 * one to another receiver stay open. */
	base = ngot;
	through(&mt, 3, msg(VTR_EV_MpiRecv, 20, 1, 1, 4));
	through(&mt, 0, msg(VTR_EV_MpiSend, 21, 1, 0, 5));
	through(&mt, 0, msg(VTR_EV_MpiSend, 22, 0, 2, 4));
	through(&mt, 1, msg(VTR_EV_MpiSend, 23, 1, 0, 4));
	CHECK(got[base].had == 0 && got[base + 1].had == 0 && got[base + 2].had == 0);
	CHECK(got[base + 3].had == base + 1);
	/* Requests: one slot more, the request back, no match. */
	base = ngot;
	CHECK(through(&mt, 2,
		      (struct vtr_record){.kind = VTR_EV_MpiIrecvRequest,
					  .time = 30,
					  .request = 42,
					  .member = VTR_NONE}) == 1 + VTS_EXT_SLOTS);
	CHECK(got[base].r.request == 42 && !got[base].matched);

	/* Collectives: the k-th end of each member together, the members as the ranks are in
	 * the communicator; every field back. */
	base = ngot;
	through(&mt, 3, coll(40, 0)); /* rank 2: member 2 of the world, its 1st */
	through(&mt, 3, coll(41, 0)); /* its 2nd */
	through(&mt, 2, coll(42, 0)); /* rank 1's 1st */
	through(&mt, 0, coll(43, 0)); /* rank 0's 1st: the first collective is complete */
	through(&mt, 1, coll(44, 0)); /* rank 0's 2nd (its other thread) */
	through(&mt, 2, coll(45, 0)); /* rank 1's 2nd: the second is complete */
	CHECK(got[base].had == 0 && got[base + 1].had == 0);
	CHECK(got[base + 2].had == base + 1 && got[base + 3].had == base + 1);
	CHECK(got[base + 4].had == base + 2 && got[base + 5].had == base + 2);
	CHECK(got[base].r.member == 2 && got[base + 2].r.member == 1 &&
	      got[base + 3].r.member == 0 && got[base + 4].r.member == 0);
	CHECK(got[base].r.op == 4 && got[base].r.root == 1 && got[base].r.sent == 400 &&
	      got[base].r.received == 800 && got[base].r.comm == 0);
	/* Rank 0's end on communicator 1 is member 1's; a collective of one is complete at
	 * once, each its own; a location that is no member (rank 1 on communicator 1) has none. */
	base = ngot;
	through(&mt, 0, coll(50, 1));
	through(&mt, 2, coll(51, 2));
	through(&mt, 2, coll(52, 2));
	through(&mt, 2, coll(53, 1));
	CHECK(got[base].r.member == 1 && got[base].matched && got[base].had == 0);
	CHECK(got[base + 1].r.member == 0 && got[base + 1].had == 0);
	CHECK(got[base + 2].r.member == 0 && got[base + 2].had == 0);
	CHECK(got[base + 3].r.member == VTR_NONE && !got[base + 3].matched);

	/* Many keys at once: the tables grow and keep every open end. */
	base = ngot;
	for (uint32_t tag = 0; tag < 20; tag++)
		through(&mt, 0, msg(VTR_EV_MpiSend, 100 + tag, 0, 2, 100 + tag));
	for (uint32_t tag = 20; tag-- > 0;)
		through(&mt, 3, msg(VTR_EV_MpiRecv, 200 + tag, 0, 0, 100 + tag));
	size_t wrong = 0;
	for (uint32_t i = 0; i < 20; i++)
		wrong += got[base + 20 + i].had != base + (19 - i) + 1;
	CHECK(wrong == 0);

	/* The key the distributed replay trades an end by: the same at both ends of a message,
	 * another for the next message of the same ranks and tag, none for an Enter. */
	uint64_t k1[3], k2[3], k3[3];
	through(&mt, 0, msg(VTR_EV_MpiSend, 300, 0, 2, 7));
	memcpy(k1, mt.key, sizeof(k1));
	through(&mt, 0, msg(VTR_EV_MpiSend, 301, 0, 2, 7));
	memcpy(k3, mt.key, sizeof(k3));
	through(&mt, 3, msg(VTR_EV_MpiRecv, 302, 0, 0, 7));
	memcpy(k2, mt.key, sizeof(k2));
	CHECK(!memcmp(k1, k2, sizeof(k1)) && k1[2] >= 2);
	CHECK(memcmp(k1, k3, sizeof(k1)) != 0);
	vts_pmatch_free(&mt);

	/* The shares: whole ranks (rank 1's two threads together), in rank order, by events; a
	 * location without a rank is a share of its own. */
	struct vtr_location sl[] = {
	    {.index = 0, .rank = 0, .events = 100}, {.index = 1, .rank = 1, .events = 50},
	    {.index = 2, .rank = 1, .events = 50},  {.index = 3, .rank = 2, .events = 100},
	    {.index = 4, .rank = 3, .events = 100}, {.index = 5, .rank = VTR_NONE, .events = 100}};
	struct vtr_trace st = {.locations = sl, .nlocations = 5};
	static const uint32_t two[] = {0, 0, 0, 1, 1}, four[] = {0, 1, 1, 2, 3},
			      one[] = {0, 0, 0, 0, 0}, none2[] = {0, 0, 0, 1, 1, 1};
	uint32_t *o = vts_dist_owners(&st, 2);
	CHECK(!memcmp(o, two, sizeof(two)));
	free(o);
	o = vts_dist_owners(&st, 4);
	CHECK(!memcmp(o, four, sizeof(four)));
	free(o);
	o = vts_dist_owners(&st, 1);
	CHECK(!memcmp(o, one, sizeof(one)));
	free(o);
	st.nlocations = 6;
	o = vts_dist_owners(&st, 2);
	CHECK(!memcmp(o, none2, sizeof(none2)));
	free(o);
	/* More processes than ranks: each rank whole, no owner beyond the last process. */
	o = vts_dist_owners(&st, 16);
	CHECK(o[1] == o[2]);
	for (size_t i = 0; i < 6; i++)
		CHECK(o[i] < 16 && (i == 0 || o[i] >= o[i - 1]));
	free(o);
	return unit_done();
}
