/* SPDX-License-Identifier: BSD-3-Clause */
/* libvtprof's critical-path walk and delay costs (tools/lib/profile/critpath.c) on small lines. */
/*
 * Paths here: 1 main, 2 main > solve, 3 main > MPI_Allreduce (or a second computation), 4
 * main > MPI_Recv. Each case worked out by hand in its comment. Then the halves vt-profile-mpi
 * uses (a waiter's tally and the delayer's cost from it, the walk as spans) against the whole
 * on the chain and on random lines.
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

/* A chain of two Late Senders, used by chain() and halves(): rank 0 works to 30 and sends to
 * rank 1, which waits in its receive from 0 to 30, works to 40 (path 3) and sends to rank 2,
 * which waits from 0 to 40 and ends at 50. */
static const uint64_t chain_t0[] = {0, 0, 30, 31}, chain_t1[] = {0, 0, 30, 40, 41},
		      chain_t2[] = {0, 0, 40, 50};
static const uint32_t chain_p0[] = {1, 2, 1, 0}, chain_p1[] = {1, 4, 3, 1, 0},
		      chain_p2[] = {1, 4, 1, 0};
static const uint64_t chain_s1[] = {30}, chain_s2[] = {40};
static const struct vt_prof_cp_line chain_lines[3] = {{chain_t0, chain_p0, 4, 0, 31, NULL, 0},
						      {chain_t1, chain_p1, 5, 0, 41, chain_s1, 1},
						      {chain_t2, chain_p2, 4, 0, 50, chain_s2, 1}};
/* The walk may reorder its waits: each case copies these. */
static const struct vt_prof_cp_wait chain_waits[2] = {
    {.loc = 1, .path = 4, .delayer = 0, .begin = 0, .end = 30},
    {.loc = 2, .path = 4, .delayer = 1, .begin = 0, .end = 40}};

/* The path: rank 2 40..50, rank 1 30..40, rank 0 0..30. Rank 2's wait of 40 is all rank 1's
 * excess (path 3 from 30 to 40; rank 2 computed nothing since 0). */
static void chain(void)
{
	const struct vt_prof_cp_line *l = chain_lines;
	struct vt_prof_cp_wait w[2];
	memcpy(w, chain_waits, sizeof(w));
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

/* The spans of a walk, in order. */
struct spans {
	uint32_t loc[MAXROWS];
	uint64_t from[MAXROWS], to[MAXROWS];
	size_t n;
};

static void on_span(void *user, uint32_t loc, uint64_t from, uint64_t to)
{
	struct spans *s = user;
	if (s->n < MAXROWS) {
		s->loc[s->n] = loc;
		s->from[s->n] = from;
		s->to[s->n++] = to;
	}
}

/* The chain again: rank 1's tally at 40 is its relay since the receive at 30 (path 3, 10);
 * rank 2's at 0 is empty (its first event); the cost from the tally is the whole's. The walk
 * as spans: rank 2 40..50, rank 1 30..40, rank 0 0..30. */
static void halves(void)
{
	const struct vt_prof_cp_line *l = chain_lines;
	struct vt_prof_cp_spent tally[8];
	CHECK(vt_prof_cp_tally(&l[1], 40, tally) == 1 && tally[0].path == 3 && tally[0].time == 10);
	CHECK(vt_prof_cp_tally(&l[2], 0, tally) == 0);
	struct vt_prof_cp_wait w[2];
	memcpy(w, chain_waits, sizeof(w));
	struct got cost = {0};
	size_t n = vt_prof_cp_tally(&l[2], w[1].begin, tally);
	vt_prof_delay_cost_of(&l[1], &w[1], tally, n, scratch, on_cost, &cost);
	CHECK(cost.n == 1 && get(&cost, 1, 3) == 40);
	struct spans sp = {0};
	size_t followed = 0;
	CHECK(vt_prof_critical_walk(l, 3, w, 2, &followed, on_span, &sp) == 50);
	CHECK(followed == 2 && sp.n == 3);
	CHECK(sp.loc[0] == 2 && sp.from[0] == 40 && sp.to[0] == 50);
	CHECK(sp.loc[1] == 1 && sp.from[1] == 30 && sp.to[1] == 40);
	CHECK(sp.loc[2] == 0 && sp.from[2] == 0 && sp.to[2] == 30);
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

static bool same_got(const struct got *a, const struct got *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (get(b, a->loc[i], a->path[i]) != a->time[i])
			return false;
	return true;
}

/* The path of line l at tick x, counted tick by tick: the last segment begun, else 0. */
static uint32_t path_at(const struct vt_prof_cp_line *l, uint64_t x)
{
	uint32_t p = 0;
	for (size_t i = 0; i < l->n && l->time[i] <= x; i++)
		p = l->path[i];
	return p;
}

struct naive {
	const struct vt_prof_cp_line *lines;
	struct got *g;
};

/* A span's time per path, tick by tick. */
static void on_span_ticks(void *user, uint32_t loc, uint64_t from, uint64_t to)
{
	struct naive *n = user;
	for (uint64_t x = from; x < to; x++)
		put(n->g, loc, path_at(&n->lines[loc], x), 1);
}

/* Random lines of 4 locations (up to 12 segments of paths 0..4, synchronisation points
 * among their times) and waits between them, against sums tick by tick: a tally is the
 * time per path from the latest synchronisation point before t (else the first event) to
 * t, in the order of the paths; the walk's spans summed per path are the critical path's
 * sums. */
static void random_lines(void)
{
	int bad_tally = 0, bad_path = 0, followed_some = 0;
	for (int round = 0; round < 500; round++) {
		uint64_t t[4][12], s[4][6];
		uint32_t p[4][12];
		struct vt_prof_cp_line l[4];
		for (int i = 0; i < 4; i++) {
			size_t n = 1 + rnd(12), ns = rnd(6);
			uint64_t at = rnd(5);
			for (size_t k = 0; k < n; k++) {
				t[i][k] = at;
				p[i][k] = (uint32_t)rnd(5);
				at += rnd(6);
			}
			for (size_t k = 0; k < ns; k++)
				s[i][k] = (k ? s[i][k - 1] : t[i][0]) + rnd(8);
			l[i] =
			    (struct vt_prof_cp_line){t[i], p[i], n, t[i][0], at + rnd(3), s[i], ns};
		}
		for (int i = 0; i < 4; i++) {
			uint64_t at = rnd(60), from = l[i].first;
			for (size_t k = 0; k < l[i].nsync && l[i].sync[k] < at; k++)
				from = l[i].sync[k] > from ? l[i].sync[k] : from;
			from = from > at ? at : from;
			struct got want = {0};
			for (uint64_t x = from; x < at; x++)
				put(&want, 0, path_at(&l[i], x), 1);
			struct vt_prof_cp_spent tally[16];
			size_t n = vt_prof_cp_tally(&l[i], at, tally);
			bool ok = n == want.n;
			for (size_t k = 0; k < n && ok; k++)
				ok = get(&want, 0, tally[k].path) == tally[k].time &&
				     (!k || tally[k - 1].path < tally[k].path);
			bad_tally += !ok;
		}
		struct vt_prof_cp_wait w[6], w2[6];
		for (int k = 0; k < 6; k++) {
			uint32_t a = (uint32_t)rnd(4), b = (uint32_t)((a + 1 + rnd(3)) % 4);
			uint64_t begin = rnd(40);
			w[k] = (struct vt_prof_cp_wait){a,     (uint32_t)rnd(5),   b, 0,
							begin, begin + 1 + rnd(20)};
		}
		memcpy(w2, w, sizeof(w));
		struct got whole = {0}, ticks = {0};
		size_t f1 = 0, f2 = 0;
		uint64_t len1 = vt_prof_critical_path(l, 4, w, 6, &f1, on_path, &whole);
		struct naive nv = {l, &ticks};
		uint64_t len2 = vt_prof_critical_walk(l, 4, w2, 6, &f2, on_span_ticks, &nv);
		followed_some += f1 > 0;
		if (len1 != len2 || f1 != f2 || !same_got(&whole, &ticks))
			bad_path++;
	}
	CHECK(bad_tally == 0);
	CHECK(bad_path == 0);
	CHECK(followed_some > 100); /* the walks went through waits */
}

int main(void)
{
	allreduce();
	chain();
	division();
	halves();
	random_lines();
	return unit_done();
}
