/* SPDX-License-Identifier: BSD-3-Clause */
/* libvtprof's critical-path walk and delay costs (tools/lib/profile/critpath.c) on small lines. */
/*
 * Paths here: 1 main, 2 main > solve, 3 main > MPI_Allreduce (or a second computation), 4
 * main > MPI_Recv. Each case worked out by hand in its comment.
 */
#include "critpath.h"
#include "unit.h"

#include <string.h>

#define MAXROWS 32
struct got {
	uint32_t loc[MAXROWS], path[MAXROWS];
	uint64_t time[MAXROWS];
	size_t n;
};

/* Sums per (location, path). */
static void put(struct got *g, uint32_t loc, uint32_t path, uint64_t time)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->loc[i] == loc && g->path[i] == path) {
			g->time[i] += time;
			return;
		}
	if (g->n < MAXROWS) {
		g->loc[g->n] = loc;
		g->path[g->n] = path;
		g->time[g->n++] = time;
	}
}

static uint64_t get(const struct got *g, uint32_t loc, uint32_t path)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->loc[i] == loc && g->path[i] == path)
			return g->time[i];
	return 0;
}

static uint64_t total(const struct got *g)
{
	uint64_t t = 0;
	for (size_t i = 0; i < g->n; i++)
		t += g->time[i];
	return t;
}

static void on_path(void *user, uint32_t loc, uint32_t path, uint64_t time)
{
	put(user, loc, path, time);
}

static void on_cost(void *user, const struct vt_prof_cp_wait *w, uint32_t path, uint64_t cost)
{
	put(user, w->delayer, path, cost);
}

static struct vt_prof_cp_spent scratch[64];

/* Three ranks; rank 1 computes 10 longer in solve before the Allreduce ranks 0 and 2 wait
 * in from 10 to 20. The path: rank 0's Allreduce after 20 and main to 22, rank 1's solve
 * 0..20; each wait's cost, 10, to rank 1's solve. */
static void allreduce(void)
{
	static const uint64_t t02[] = {0, 0, 10, 10, 21, 22}, t1[] = {0, 0, 20, 20, 21, 22};
	static const uint32_t p[] = {1, 2, 1, 3, 1, 0};
	static const uint64_t s02[] = {20, 21}, s1[] = {21};
	struct vt_prof_cp_line l[3] = {
	    {t02, p, 6, 0, 22, s02, 2}, {t1, p, 6, 0, 22, s1, 1}, {t02, p, 6, 0, 22, s02, 2}};
	struct vt_prof_cp_wait w[2] = {{.loc = 2, .path = 3, .delayer = 1, .begin = 10, .end = 20},
				       {.loc = 0, .path = 3, .delayer = 1, .begin = 10, .end = 20}};
	struct got cost = {0};
	for (int i = 0; i < 2; i++)
		vt_prof_delay_cost(l, &w[i], scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 1, 2) == 20);
	struct got g = {0};
	size_t followed = 0;
	CHECK(vt_prof_critical_path(l, 3, w, 2, &followed, on_path, &g) == 22);
	CHECK(followed == 1 && total(&g) == 22);
	CHECK(get(&g, 0, 3) == 1 && get(&g, 0, 1) == 1 && get(&g, 1, 2) == 20);
	CHECK(w[0].loc == 0 && w[1].loc == 2); /* sorted by location */
}

/* A chain of two Late Senders: rank 0 works to 30 and sends to rank 1, which waits in its
 * receive from 0 to 30, works to 40 (path 3) and sends to rank 2, which waits from 0 to 40
 * and ends at 50. The path: rank 2 40..50, rank 1 30..40, rank 0 0..30. Rank 2's wait of
 * 40 is all rank 1's excess (path 3 from 30 to 40; rank 2 computed nothing since 0). */
static void chain(void)
{
	static const uint64_t t0[] = {0, 0, 30, 31}, t1[] = {0, 0, 30, 40, 41},
			      t2[] = {0, 0, 40, 50};
	static const uint32_t p0[] = {1, 2, 1, 0}, p1[] = {1, 4, 3, 1, 0}, p2[] = {1, 4, 1, 0};
	static const uint64_t s1[] = {30}, s2[] = {40};
	struct vt_prof_cp_line l[3] = {
	    {t0, p0, 4, 0, 31, NULL, 0}, {t1, p1, 5, 0, 41, s1, 1}, {t2, p2, 4, 0, 50, s2, 1}};
	struct vt_prof_cp_wait w[2] = {{.loc = 1, .path = 4, .delayer = 0, .begin = 0, .end = 30},
				       {.loc = 2, .path = 4, .delayer = 1, .begin = 0, .end = 40}};
	struct got cost = {0};
	vt_prof_delay_cost(l, &w[0], scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 0, 2) == 30);
	memset(&cost, 0, sizeof(cost));
	vt_prof_delay_cost(l, &w[1], scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 1, 3) == 40);
	struct got g = {0};
	size_t followed = 0;
	CHECK(vt_prof_critical_path(l, 3, w, 2, &followed, on_path, &g) == 50);
	CHECK(followed == 2 && total(&g) == 50 && g.n == 3);
	CHECK(get(&g, 2, 1) == 10 && get(&g, 1, 3) == 10 && get(&g, 0, 2) == 30 &&
	      get(&g, 0, 1) == 0);
}

/* The division: an excess of 1 in path 2 and 2 in path 3 over a wait of 10: 3 and 6, the
 * rest (1) to the larger. A delayer that computed no more than the waiter (it began
 * later): the wait in proportion to its own time. A delayer of no time: its path at the
 * wait's end. */
static void division(void)
{
	/* Waiter: outside every region until 10 (its interval 0..3: path 0). Delayer: from 10
	 * path 2 to 11, path 3 to 13; its interval 10..13. */
	static const uint64_t tw[] = {10}, td[] = {10, 11, 13};
	static const uint32_t pw[] = {1}, pd[] = {2, 3, 1};
	struct vt_prof_cp_line m[2] = {{tw, pw, 1, 0, 30, NULL, 0}, {td, pd, 3, 10, 30, NULL, 0}};
	struct vt_prof_cp_wait x = {.loc = 0, .delayer = 1, .begin = 3, .end = 13};
	struct got cost = {0};
	vt_prof_delay_cost(m, &x, scratch, on_cost, &cost);
	CHECK(cost.n == 2 && get(&cost, 1, 2) == 3 && get(&cost, 1, 3) == 7);
	/* No excess: the waiter ran path 2 from 0 to 5, the delayer from 10 to 15. */
	static const uint64_t tw3[] = {0, 5}, td3[] = {10, 15};
	static const uint32_t pw3[] = {2, 1}, pd3[] = {2, 3};
	struct vt_prof_cp_line n[2] = {{tw3, pw3, 2, 0, 30, NULL, 0},
				       {td3, pd3, 2, 10, 30, NULL, 0}};
	struct vt_prof_cp_wait y = {.loc = 0, .delayer = 1, .begin = 5, .end = 15};
	memset(&cost, 0, sizeof(cost));
	vt_prof_delay_cost(n, &y, scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 1, 2) == 10);
	/* A delayer whose first event is the wait's end: no interval, its path there (3). */
	n[1].time = td3 + 1;
	n[1].path = pd3 + 1;
	n[1].n = 1;
	n[1].first = 15;
	memset(&cost, 0, sizeof(cost));
	vt_prof_delay_cost(n, &y, scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 1, 3) == 10);
	/* A wait of no time costs nothing. */
	y.end = y.begin;
	memset(&cost, 0, sizeof(cost));
	vt_prof_delay_cost(n, &y, scratch, on_cost, &cost);
	CHECK(cost.n == 0);
}

int main(void)
{
	allreduce();
	chain();
	division();
	return unit_done();
}
