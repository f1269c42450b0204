/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --waits split over processes (tools/vt-profile/waits_split.c): numbering, pairing. */
/*
 * The owner's part on records made here, with the sums collected by this test in place of
 * waits.c's: the call paths numbered in the order of first occurrence over every process
 * (ties: the location), the k-th send paired with the k-th receive of a key whatever process
 * made them, Wrong Order replayed in time order, an Isend never completed, a lone receive, a
 * collective one member never ended; the same records in exchanges: an end after the
 * watermark kept for the next one, a blocking send's Leave in an update after it.
 */
#include "unit.h"
#include "waits.h"
#include "waits_split.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

/* The sums resolve makes: this test's, not waits.c's. */
static struct {
	struct vt_prof_wcell cells[64];
	size_t n;
	uint64_t problems;
} sink;

void vt_prof_waits_add(struct waits *w, uint32_t pattern, uint32_t path, uint32_t loc,
		       uint32_t comm, uint64_t time, uint64_t count)
{
	(void)w;
	if (time && sink.n < 64)
		sink.cells[sink.n++] =
		    (struct vt_prof_wcell){pattern, path, loc, comm, time, count};
}

uint64_t *vt_prof_waits_problems(struct waits *w)
{
	(void)w;
	return &sink.problems;
}

FILE *vt_prof_waits_warn(const struct waits *w)
{
	(void)w;
	return stderr;
}

static uint64_t sum_of(uint32_t pattern, uint32_t loc, uint32_t path)
{
	uint64_t t = 0;
	for (size_t i = 0; i < sink.n; i++)
		if (sink.cells[i].pattern == pattern && sink.cells[i].loc == loc &&
		    sink.cells[i].path == path)
			t += sink.cells[i].time;
	return t;
}

/* Three ranks, one location each, on MPI_COMM_WORLD (comm 0). */
static struct vtr_location locs[3];
static uint32_t world[3] = {0, 1, 2};
static struct vtr_comm comms[1];
static struct vtr_trace trace;

static void setup(void)
{
	for (uint32_t i = 0; i < 3; i++)
		locs[i] =
		    (struct vtr_location){.id = i, .index = i, .name = "Master thread", .rank = i};
	comms[0] = (struct vtr_comm){
	    .defined = true, .name = "MPI_COMM_WORLD", .size = 3, .rank_of_member = world};
	trace = (struct vtr_trace){.locations = locs, .nlocations = 3, .comms = comms, .ncomms = 1};
}

static void numbering(void)
{
	/* Of 2 processes, process 0 has ranks 0 and 1, process 1 rank 2. Process 0 met main at
	 * 3 (rank 1) and main > foo at 4 (rank 0); process 1 main at 3 too, main > bar at 4 and
	 * main > foo at 9 (rank 2). At equal times the lower location comes first: the order
	 * is main, main > foo, main > bar. */
	const struct vt_prof_wpath p0[] = {{3, 0, 1, 0, 10, 0}, {4, 1, 0, 1, 11, 0}};
	const struct vt_prof_wpath p1[] = {
	    {3, 0, 2, 0, 10, 0}, {4, 1, 2, 1, 12, 0}, {9, 2, 2, 1, 11, 0}};
	const struct vt_prof_wpath *all[] = {p0, p1};
	size_t count[] = {2, 3};
	struct vt_prof_wsplit *sp = vt_prof_wsplit_new(&trace, 1, 2);
	CHECK(!vt_prof_wsplit_share(sp)[0] && !vt_prof_wsplit_share(sp)[1] &&
	      vt_prof_wsplit_share(sp)[2]);
	struct vt_prof_paths g = {0};
	uint32_t *map;
	vt_prof_wsplit_globalize(sp, all, count, 2, &g, &map);
	CHECK(g.n == 3);
	CHECK(g.nodes[0].region == 10 && g.nodes[0].parent == 0);
	CHECK(g.nodes[1].region == 11 && g.nodes[1].parent == 1);
	CHECK(g.nodes[2].region == 12 && g.nodes[2].parent == 1);
	/* Process 1's own numbers: main 1, main > bar 2, main > foo 3. */
	CHECK(map[0] == 0 && map[1] == 1 && map[2] == 3 && map[3] == 2);
	free(map);
	vt_prof_paths_free(&g);
	vt_prof_wsplit_free(sp);
}

static struct vt_prof_wmsg send(uint64_t call, uint64_t time, uint32_t from, uint32_t to,
				uint32_t tag, uint64_t seq, uint32_t flags)
{
	return (struct vt_prof_wmsg){.time = time,
				     .call = call,
				     .seq = seq,
				     .order = time,
				     .receiver = to,
				     .sender = from,
				     .tag = tag,
				     .loc = from,
				     .path = 2,
				     .flags = WP_SEND | flags};
}

static struct vt_prof_wmsg recv(uint64_t call, uint64_t time, uint32_t from, uint32_t to,
				uint32_t tag, uint64_t seq)
{
	return (struct vt_prof_wmsg){.time = time,
				     .call = call,
				     .other = call,
				     .seq = seq,
				     .order = time,
				     .receiver = to,
				     .sender = from,
				     .tag = tag,
				     .loc = to,
				     .path = 1};
}

static void owner(void)
{
	struct vt_prof_wsplit *sp = vt_prof_wsplit_new(&trace, 0, 1);
	/* Rank 1 sends tag 5 at 70 and tag 6 at 75 to rank 0, which receives tag 6 in a call
	 * from 71 to 76: a Late Sender of 4, all of it Wrong Order (tag 5 was in flight, sent
	 * earlier); then tag 5 from 77 (no wait). Rank 2's Isend to rank 0 (tag 9) is received
	 * but never completed: a problem, no wait; rank 0's receive of tag 8 has no send. The
	 * records come in any order, the second tag-5 send of rank 1 is k = 1 and its receive
	 * too: a Late Sender of 100 - 90. */
	struct vt_prof_wmsg m[] = {
	    recv(77, 78, 1, 0, 5, 0),
	    send(75, 75, 1, 0, 6, 0, 0),
	    recv(90, 101, 1, 0, 5, 1),
	    send(70, 70, 1, 0, 5, 0, 0),
	    recv(71, 76, 1, 0, 6, 0),
	    send(100, 100, 1, 0, 5, 1, 0),
	    send(30, 30, 2, 0, 9, 0, WP_NONBLOCKING),
	    recv(31, 32, 2, 0, 9, 0),
	    recv(200, 201, 2, 0, 8, 0),
	};
	/* A barrier (k = 0) entered at 20, 20, 25; k = 1 ended by two of three. */
	struct vt_prof_wcoll c[] = {
	    {0, 25, 26, 1, 0, 0, 0, 2, OTF2_COLLECTIVE_OP_BARRIER, 0, 2, 3},
	    {0, 20, 26, 1, 0, 0, 0, 0, OTF2_COLLECTIVE_OP_BARRIER, 0, 0, 3},
	    {1, 40, 41, 2, 0, 0, 0, 0, OTF2_COLLECTIVE_OP_BARRIER, 0, 0, 3},
	    {0, 20, 26, 1, 0, 0, 0, 1, OTF2_COLLECTIVE_OP_BARRIER, 0, 1, 3},
	    {1, 40, 41, 2, 0, 0, 0, 1, OTF2_COLLECTIVE_OP_BARRIER, 0, 1, 3},
	};
	memset(&sink, 0, sizeof(sink));
	vt_prof_wsplit_resolve(sp, NULL, m, sizeof(m) / sizeof(m[0]), c, sizeof(c) / sizeof(c[0]));
	CHECK(sum_of(VT_WAIT_LATE_SENDER, 0, 1) == 4 + 10);
	CHECK(sum_of(VT_WAIT_WRONG_ORDER, 0, 1) == 4);
	CHECK(sum_of(VT_WAIT_LATE_RECEIVER, 1, 2) == 0);
	CHECK(sum_of(VT_WAIT_BARRIER, 0, 3) == 5 && sum_of(VT_WAIT_BARRIER, 1, 3) == 5 &&
	      sum_of(VT_WAIT_BARRIER, 2, 3) == 0);
	CHECK(sink.problems == 3);
	vt_prof_wsplit_free(sp);
}

/* Rank 1's blocking send to rank 0 (tag 7) at 70 in a call from 70 left at 95; rank 0 receives
 * in a call from 85 to 96: a Late Receiver of 15 on rank 1; and rank 2's send (tag 3) at 80
 * that rank 0 receives at 82 (call 81), while tag 7 is in flight: its Wrong Order part is
 * not counted (no Late Sender). At once, then in two exchanges. */
static uint64_t late_receiver(bool exchanges)
{
	struct vt_prof_wsplit *sp = vt_prof_wsplit_new(&trace, 0, 1);
	struct vt_prof_wmsg s7 = send(70, 70, 1, 0, 7, 0, 0), r7 = recv(85, 96, 1, 0, 7, 0);
	struct vt_prof_wmsg s3 = send(80, 80, 2, 0, 3, 0, 0), r3 = recv(81, 82, 2, 0, 3, 0);
	memset(&sink, 0, sizeof(sink));
	if (!exchanges) {
		s7.flags |= WP_LEAVE_KNOWN;
		s7.other = 95;
		struct vt_prof_wmsg m[] = {s7, r7, s3, r3};
		vt_prof_wsplit_resolve(sp, NULL, m, 4, NULL, 0);
	} else {
		/* First exchange: every process has read up to 83; tag 7's receive waits. */
		s7.flags |= WP_AWAIT;
		struct vt_prof_wmsg m1[] = {r7, r3, s7, s3};
		vt_prof_wsplit_ingest(sp, NULL, m1, 4, NULL, 0, 83);
		CHECK(sink.n == 0);
		CHECK(vt_prof_wsplit_peak(sp) == 4);
		/* Second: the Leave of the send, the rest. */
		struct vt_prof_wmsg u = s7;
		u.flags = (u.flags & ~(uint32_t)WP_AWAIT) | WP_UPDATE | WP_LEAVE_KNOWN;
		u.other = 95;
		vt_prof_wsplit_ingest(sp, NULL, &u, 1, NULL, 0, UINT64_MAX);
		vt_prof_wsplit_finish(sp, NULL);
	}
	CHECK(sink.problems == 0);
	CHECK(sum_of(VT_WAIT_LATE_SENDER, 0, 1) == 0 && sum_of(VT_WAIT_WRONG_ORDER, 0, 1) == 0);
	vt_prof_wsplit_free(sp);
	return sum_of(VT_WAIT_LATE_RECEIVER, 1, 2);
}

int main(void)
{
	setup();
	numbering();
	owner();
	CHECK(late_receiver(false) == 15);
	CHECK(late_receiver(true) == 15);
	return unit_done();
}
