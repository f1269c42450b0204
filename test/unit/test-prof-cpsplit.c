/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --critical-path split over processes (tools/vt-profile/cpath_split.c), no MPI. */
/*
 * Two processes simulated in one: process 0 reads ranks 0 and 1, process 1 rank 2 (the
 * split of waits_split.c). A chain of two Late Senders (rank 0 in main 0..10, produces
 * 10..31 and sends to rank 1, which produces 0..11, waits in MPI_Recv from 11, relays 32..42
 * and sends to rank 2, which waits from 1, receives at 44 and posts 44..50) is fed through the
 * split reading's callbacks and the owners' matching (vt_prof_wsplit_resolve); the rounds
 * move the items between the two as waits_mpi.c does, with windows of 1 and of 1000 items.
 * The sums must be libvtprof's serial walk and delay costs on the whole lines, and the
 * values worked out by hand.
 */
#include "cpath_split.h"
#include "critpath.h"
#include "unit.h"
#include "waits.h"
#include "waits_split.h"

#include <stdlib.h>
#include <string.h>

/* waits.c's side, not linked here: its sums and callbacks do nothing. */
void vt_prof_waits_add(struct waits *w, uint32_t pattern, uint32_t path, uint32_t loc,
		       uint32_t comm, uint64_t time, uint64_t count)
{
	(void)w, (void)pattern, (void)path, (void)loc, (void)comm, (void)time, (void)count;
}

static uint64_t problems;

uint64_t *vt_prof_waits_problems(struct waits *w)
{
	(void)w;
	return &problems;
}

FILE *vt_prof_waits_warn(const struct waits *w)
{
	(void)w;
	return stderr;
}

static void no_enter(void *u, const struct vtr_location *l, uint64_t t, uint32_t r)
{
	(void)u, (void)l, (void)t, (void)r;
}

static void no_leave(void *u, const struct vtr_location *l, uint64_t t, uint32_t r, uint64_t e)
{
	(void)u, (void)l, (void)t, (void)r, (void)e;
}

static void no_record(void *u, const struct vtr_location *l, const struct vtr_record *r)
{
	(void)u, (void)l, (void)r;
}

static const struct vtr_callbacks none = {
    .enter = no_enter, .leave = no_leave, .record = no_record};

const struct vtr_callbacks *vt_prof_waits_callbacks(void)
{
	return &none;
}

/* Three ranks, one location each, on MPI_COMM_WORLD (comm 0). */
static struct vtr_location locs[3];
static uint32_t world[3] = {0, 1, 2};
static struct vtr_comm comms[1];
static struct vtr_trace trace;

/* Regions: 1 main, 2 produce, 3 MPI_Recv, 4 MPI_Send, 5 relay, 6 post. The global call
 * paths: 1 main, 2 main > produce, 3 main > MPI_Recv, 4 main > MPI_Send, 5 main > relay,
 * 6 main > post; process 0 numbers its paths so, process 1 main, MPI_Recv, post. */
enum { MAIN = 1, PRODUCE, RECV, SEND, RELAY, POST };

struct ev {
	uint32_t loc;
	char what; /* e: Enter, l: Leave, s: a send record */
	uint64_t time;
	uint32_t region;
};

static void feed(struct vt_prof_cpsplit *cs, const struct ev *e, size_t n)
{
	const struct vtr_callbacks *cb = vt_prof_cpsplit_callbacks();
	for (size_t i = 0; i < n; i++) {
		const struct vtr_location *l = &locs[e[i].loc];
		cb->event(cs, l, VTR_EV_Enter, e[i].time);
		if (e[i].what == 'e') {
			cb->enter(cs, l, e[i].time, e[i].region);
		} else if (e[i].what == 'l') {
			cb->leave(cs, l, e[i].time, e[i].region, 0);
		} else {
			struct vtr_record r = {.kind = VTR_EV_MpiSend, .time = e[i].time};
			cb->record(cs, l, &r);
		}
	}
}

static struct vt_prof_wmsg end(uint32_t loc, uint64_t call, uint64_t time, uint32_t path,
			       uint32_t to, bool send)
{
	return (struct vt_prof_wmsg){.time = time,
				     .call = call,
				     .other = call,
				     .order = time,
				     .sender = send ? loc : loc - 1,
				     .receiver = to,
				     .loc = loc,
				     .path = path,
				     .flags = send ? WP_SEND : 0};
}

/* The items of every process's make, to the processes dest says, taken there; until none. */
typedef struct vt_prof_cpitem *(*make_fn)(struct vt_prof_cpsplit *, size_t, size_t *, uint32_t **);
typedef void (*take_fn)(struct vt_prof_cpsplit *, const struct vt_prof_cpitem *, size_t);

static int rounds(struct vt_prof_cpsplit **cs, size_t window, make_fn make0, make_fn make1,
		  take_fn take0, take_fn take1)
{
	int n_rounds = 0;
	for (;;) {
		struct vt_prof_cpitem *in[2];
		size_t nin[2] = {0, 0}, any = 0;
		in[0] = calloc(4096, sizeof(**in));
		in[1] = calloc(4096, sizeof(**in));
		for (int q = 0; q < 2; q++) {
			size_t n;
			uint32_t *dest;
			struct vt_prof_cpitem *x = (q ? make1 : make0)(cs[q], window, &n, &dest);
			for (size_t i = 0; i < n && dest[i] < 2 && nin[dest[i]] < 4096; i++)
				in[dest[i]][nin[dest[i]]++] = x[i];
			any += n;
			free(x);
			free(dest);
		}
		for (int q = 0; q < 2; q++) {
			if (q ? take1 : take0)
				(q ? take1 : take0)(cs[q], in[q], nin[q]);
			free(in[q]);
		}
		n_rounds++;
		if (!any)
			return n_rounds;
	}
}

static struct vt_prof_cpitem *no_make(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
				      uint32_t **dest)
{
	(void)cs, (void)max;
	*n = 0;
	*dest = calloc(1, sizeof(**dest));
	return calloc(1, sizeof(struct vt_prof_cpitem));
}

/* Sums per (location, path, pattern, waiting path). */
struct sums {
	struct vt_prof_cp_sum s[64];
	size_t n;
};

static void put(struct sums *g, struct vt_prof_cp_sum x)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->s[i].loc == x.loc && g->s[i].path == x.path &&
		    g->s[i].pattern == x.pattern && g->s[i].wait_path == x.wait_path) {
			g->s[i].time += x.time;
			g->s[i].count += x.count;
			return;
		}
	if (g->n < 64)
		g->s[g->n++] = x;
}

static void on_path(void *user, uint32_t loc, uint32_t path, uint64_t time)
{
	if (time)
		put(user, (struct vt_prof_cp_sum){loc, path, VT_WAIT_PATTERNS, 0, time, 1});
}

static void on_cost(void *user, const struct vt_prof_cp_wait *w, uint32_t path, uint64_t cost)
{
	put(user, (struct vt_prof_cp_sum){w->delayer, path, w->pattern, w->path, cost, 1});
}

/* The serial reference: libvtprof on the whole lines in the global numbering. */
static void serial(struct sums *g, uint64_t *length, size_t *followed)
{
	static const uint64_t t0[] = {0, 10, 31, 31, 32, 40},
			      t1[] = {0, 0, 11, 11, 32, 32, 42, 42, 43, 45},
			      t2[] = {0, 1, 44, 44, 50, 50};
	static const uint32_t p0[] = {MAIN, 2, MAIN, 4, MAIN, 0},
			      p1[] = {MAIN, 2, MAIN, 3, MAIN, 5, MAIN, 4, MAIN, 0},
			      p2[] = {MAIN, 3, MAIN, 6, MAIN, 0};
	static const uint64_t s0[] = {31}, s1[] = {31, 32, 42}, s2[] = {42, 44};
	struct vt_prof_cp_line l[3] = {
	    {t0, p0, 6, 0, 40, s0, 1}, {t1, p1, 8, 0, 45, s1, 3}, {t2, p2, 6, 0, 50, s2, 2}};
	struct vt_prof_cp_wait w[2] = {{1, 3, 0, VT_WAIT_LATE_SENDER, 11, 31},
				       {2, 3, 1, VT_WAIT_LATE_SENDER, 1, 42}};
	struct vt_prof_cp_spent scratch[64];
	for (int i = 0; i < 2; i++)
		vt_prof_delay_cost(l, &w[i], scratch, on_cost, g);
	*length = vt_prof_critical_path(l, 3, w, 2, followed, on_path, g);
}

static void split(size_t window)
{
	struct vt_prof_wsplit *sp[2];
	struct vt_prof_cpsplit *cs[2];
	for (uint32_t q = 0; q < 2; q++) {
		sp[q] = vt_prof_wsplit_new(&trace, q, 2);
		cs[q] = vt_prof_cpsplit_new(&trace, sp[q], NULL);
	}
	CHECK(vt_prof_wsplit_share(sp[0])[1] && vt_prof_wsplit_share(sp[1])[2]);
	/* Process 0's locations in time order, then process 1's. */
	static const struct ev e0[] = {
	    {0, 'e', 0, MAIN},	   {1, 'e', 0, MAIN},	  {1, 'e', 0, PRODUCE},
	    {0, 'e', 10, PRODUCE}, {1, 'l', 11, PRODUCE}, {1, 'e', 11, RECV},
	    {0, 'l', 31, PRODUCE}, {0, 'e', 31, SEND},	  {0, 's', 31, 0},
	    {0, 'l', 32, SEND},	   {1, 'l', 32, RECV},	  {1, 'e', 32, RELAY},
	    {0, 'l', 40, MAIN},	   {1, 'l', 42, RELAY},	  {1, 'e', 42, SEND},
	    {1, 's', 42, 0},	   {1, 'l', 43, SEND},	  {1, 'l', 45, MAIN}};
	static const struct ev e1[] = {{2, 'e', 0, MAIN},  {2, 'e', 1, RECV},  {2, 'l', 44, RECV},
				       {2, 'e', 44, POST}, {2, 'l', 50, POST}, {2, 'l', 50, MAIN}};
	feed(cs[0], e0, sizeof(e0) / sizeof(e0[0]));
	feed(cs[1], e1, sizeof(e1) / sizeof(e1[0]));
	/* The owners: rank 1's receive is process 0's, rank 2's process 1's (their local
	 * paths: main > MPI_Send 4 and main > MPI_Recv 3 at process 0, main > MPI_Recv 2 at
	 * process 1). */
	struct vt_prof_wmsg a[] = {end(0, 31, 31, 4, 1, true), end(1, 11, 32, 3, 1, false)};
	struct vt_prof_wmsg b[] = {end(1, 42, 42, 4, 2, true), end(2, 1, 44, 2, 2, false)};
	vt_prof_wsplit_resolve(sp[0], NULL, a, 2, NULL, 0);
	vt_prof_wsplit_resolve(sp[1], NULL, b, 2, NULL, 0);
	CHECK(problems == 0);

	static const uint32_t map0[] = {0, 1, 2, 3, 4, 5}, map1[] = {0, 1, 3, 6};
	rounds(cs, window, vt_prof_cpsplit_found, vt_prof_cpsplit_found, vt_prof_cpsplit_take_found,
	       vt_prof_cpsplit_take_found);
	vt_prof_cpsplit_globalize(cs[0], map0);
	vt_prof_cpsplit_globalize(cs[1], map1);
	int r = rounds(cs, window, vt_prof_cpsplit_tallies, vt_prof_cpsplit_tallies,
		       vt_prof_cpsplit_costs, vt_prof_cpsplit_costs);
	/* Window 1: a wait's tally (a header and its pieces) goes whole, one per round. */
	CHECK(window > 1 || r >= 2);
	rounds(cs, window, vt_prof_cpsplit_summary, vt_prof_cpsplit_summary,
	       vt_prof_cpsplit_take_summary, NULL);
	uint64_t length;
	size_t followed;
	vt_prof_cpsplit_walk(cs[0], &length, &followed);
	rounds(cs, window, vt_prof_cpsplit_span_out, no_make, vt_prof_cpsplit_spans,
	       vt_prof_cpsplit_spans);

	struct vt_prof_cp_sum all[64];
	size_t n = 0, ncosts;
	for (int q = 0; q < 2; q++) {
		size_t k;
		const struct vt_prof_cp_sum *s = vt_prof_cpsplit_sums(cs[q], &k);
		for (size_t i = 0; i < k && n < 64; i++)
			all[n++] = s[i];
	}
	n = vt_prof_cpsplit_merge(all, n, &ncosts);

	struct sums want = {0};
	uint64_t want_length;
	size_t want_followed;
	serial(&want, &want_length, &want_followed);
	CHECK(length == want_length && followed == want_followed);
	CHECK(n == want.n);
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t k = 0; k < want.n; k++)
			found |= !memcmp(&all[i], &want.s[k], sizeof(all[i]));
		CHECK(found);
	}
	/* By hand: 50 through both waits. The costs first: rank 1's 20 in MPI_Recv to rank 0's
	 * excess since its start over rank 1's produce 0..11, main 10 and produce 21 - 11, 10
	 * each; rank 2's 41 all to rank 1's relay since its receive; then the path's sums. */
	CHECK(length == 50 && followed == 2 && ncosts == 3);
	CHECK(all[0].loc == 0 && all[0].path == MAIN && all[0].time == 10 &&
	      all[0].wait_path == 3 && all[0].pattern == VT_WAIT_LATE_SENDER);
	CHECK(all[1].loc == 0 && all[1].path == 2 && all[1].time == 10);
	CHECK(all[2].loc == 1 && all[2].path == 5 && all[2].time == 41 && all[2].count == 1);
	uint64_t path_total = 0;
	for (size_t i = ncosts; i < n; i++)
		path_total += all[i].time;
	CHECK(path_total == 50);
	for (int q = 0; q < 2; q++) {
		vt_prof_cpsplit_free(cs[q]);
		vt_prof_wsplit_free(sp[q]);
	}
}

int main(void)
{
	for (uint32_t i = 0; i < 3; i++)
		locs[i] =
		    (struct vtr_location){.id = i, .index = i, .name = "Master thread", .rank = i};
	comms[0] = (struct vtr_comm){
	    .defined = true, .name = "MPI_COMM_WORLD", .size = 3, .rank_of_member = world};
	trace = (struct vtr_trace){.locations = locs, .nlocations = 3, .comms = comms, .ncomms = 1};
	split(1000);
	split(1);
	split(3);
	return unit_done();
}
