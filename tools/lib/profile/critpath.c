/* SPDX-License-Identifier: BSD-3-Clause */
/* The critical path's backward walk and the delay costs of waits, on arrays alone. */
#include "critpath.h"

#include <stdbool.h>
#include <stdlib.h>

#include "vtr.h"
#include "waits.h"

/* The index of the segment that runs at time a: the last i with time[i] <= a, or n (none:
 * before the first, outside every region). */
static size_t segment_at(const struct vt_prof_cp_line *l, uint64_t a)
{
	size_t lo = 0, hi = l->n; /* the first with time > a is in [lo, hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->time[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : l->n;
}

void vt_prof_cp_spent(const struct vt_prof_cp_line *l, uint64_t a, uint64_t b,
		      void (*piece)(void *user, uint32_t path, uint64_t time), void *user)
{
	if (b <= a)
		return;
	size_t i = segment_at(l, a);
	if (i == l->n) { /* before the first segment: outside every region */
		uint64_t to = l->n && l->time[0] < b ? l->time[0] : b;
		piece(user, 0, to - a);
		if (to == b)
			return;
		a = to;
		i = 0;
	}
	for (; i < l->n && a < b; i++) {
		uint64_t to = i + 1 < l->n && l->time[i + 1] < b ? l->time[i + 1] : b;
		if (to > a)
			piece(user, l->path[i], to - a);
		a = to;
	}
}

int vt_prof_cp_wait_cmp(const void *pa, const void *pb)
{
	const struct vt_prof_cp_wait *a = pa, *b = pb;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->begin > b->begin) - (a->begin < b->begin);
}

uint64_t vt_prof_critical_walk(const struct vt_prof_cp_line *lines, size_t nlines,
			       struct vt_prof_cp_wait *waits, size_t nwaits, size_t *followed,
			       void (*on_span)(void *user, uint32_t loc, uint64_t from,
					       uint64_t to),
			       void *user)
{
	*followed = 0;
	if (!nlines)
		return 0;
	/* Sorted already when a caller gathered them in order (vt-profile-mpi's process 0). */
	size_t k = 1;
	while (k < nwaits && vt_prof_cp_wait_cmp(&waits[k - 1], &waits[k]) <= 0)
		k++;
	if (k < nwaits)
		qsort(waits, nwaits, sizeof(*waits), vt_prof_cp_wait_cmp);
	/* Per location its waits [lo, cursor): those not yet passed by the walk. */
	size_t *lo = vtr_xcalloc(nlines, sizeof(*lo)),
	       *cursor = vtr_xcalloc(nlines, sizeof(*cursor));
	for (size_t i = nwaits; i-- > 0;)
		if (waits[i].loc < nlines) {
			lo[waits[i].loc] = i;
			if (!cursor[waits[i].loc])
				cursor[waits[i].loc] = i + 1;
		}
	uint32_t loc = 0;
	for (uint32_t i = 1; i < nlines; i++)
		if (lines[i].last > lines[loc].last)
			loc = i;
	uint64_t t = lines[loc].last, end = t;
	for (;;) {
		const struct vt_prof_cp_line *l = &lines[loc];
		if (t > l->last)
			t = l->last;
		/* The latest wait not passed that ends at or before t. */
		size_t j = cursor[loc];
		while (j > lo[loc] && waits[j - 1].end > t)
			j--;
		if (j == lo[loc] || waits[j - 1].delayer >= nlines) {
			uint64_t from = l->first < t ? l->first : t;
			on_span(user, loc, from, t);
			free(lo);
			free(cursor);
			return end - from;
		}
		const struct vt_prof_cp_wait *w = &waits[j - 1];
		cursor[loc] = j - 1;
		++*followed;
		on_span(user, loc, w->end, t);
		t = w->end;
		loc = w->delayer;
	}
}

struct walk {
	const struct vt_prof_cp_line *lines;
	void (*on_path)(void *user, uint32_t loc, uint32_t path, uint64_t time);
	void *user;
	uint32_t loc;
};

static void walk_piece(void *user, uint32_t path, uint64_t time)
{
	struct walk *k = user;
	k->on_path(k->user, k->loc, path, time);
}

static void walk_span(void *user, uint32_t loc, uint64_t from, uint64_t to)
{
	struct walk *k = user;
	k->loc = loc;
	vt_prof_cp_spent(&k->lines[loc], from, to, walk_piece, k);
}

uint64_t vt_prof_critical_path(const struct vt_prof_cp_line *lines, size_t nlines,
			       struct vt_prof_cp_wait *waits, size_t nwaits, size_t *followed,
			       void (*on_path)(void *user, uint32_t loc, uint32_t path,
					       uint64_t time),
			       void *user)
{
	struct walk k = {lines, on_path, user, 0};
	return vt_prof_critical_walk(lines, nlines, waits, nwaits, followed, walk_span, &k);
}

uint64_t vt_prof_cp_sync_before(const struct vt_prof_cp_line *l, uint64_t t)
{
	size_t lo = 0, hi = l->nsync;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->sync[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t s = lo ? l->sync[lo - 1] : l->first;
	return s < l->first ? l->first : s > t ? t : s;
}

struct tally {
	struct vt_prof_cp_spent *e;
	size_t n;
};

static void tally_piece(void *user, uint32_t path, uint64_t time)
{
	struct tally *y = user;
	y->e[y->n++] = (struct vt_prof_cp_spent){path, time};
}

static int cmp_path(const void *pa, const void *pb)
{
	const struct vt_prof_cp_spent *a = pa, *b = pb;
	return (a->path > b->path) - (a->path < b->path);
}

/* Sums the pieces per path, in the order of the paths' ids; the number of paths. */
static size_t merge(struct vt_prof_cp_spent *e, size_t n)
{
	qsort(e, n, sizeof(*e), cmp_path);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && e[k - 1].path == e[i].path)
			e[k - 1].time += e[i].time;
		else
			e[k++] = e[i];
	}
	return k;
}

/* Divides total over the n entries in proportion to their time (sum: their sum, > 0). */
static void divide(const struct vt_prof_cp_wait *w, uint64_t total,
		   const struct vt_prof_cp_spent *e, size_t n, uint64_t sum,
		   void (*on_cost)(void *, const struct vt_prof_cp_wait *, uint32_t, uint64_t),
		   void *user)
{
	size_t big = 0;
	uint64_t given = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].time > e[big].time)
			big = i;
		given += (uint64_t)((unsigned __int128)total * e[i].time / sum);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t c = (uint64_t)((unsigned __int128)total * e[i].time / sum);
		if (i == big)
			c += total - given;
		if (c)
			on_cost(user, w, e[i].path, c);
	}
}

size_t vt_prof_cp_tally(const struct vt_prof_cp_line *l, uint64_t t, struct vt_prof_cp_spent *out)
{
	struct tally T = {out, 0};
	vt_prof_cp_spent(l, vt_prof_cp_sync_before(l, t), t, tally_piece, &T);
	return merge(T.e, T.n);
}

void vt_prof_delay_cost_of(const struct vt_prof_cp_line *d, const struct vt_prof_cp_wait *w,
			   const struct vt_prof_cp_spent *waiter, size_t nl,
			   struct vt_prof_cp_spent *scratch,
			   void (*on_cost)(void *user, const struct vt_prof_cp_wait *w,
					   uint32_t path, uint64_t cost),
			   void *user)
{
	uint64_t total = w->end - w->begin;
	if (w->end <= w->begin)
		return;
	const struct vt_prof_cp_spent *L = waiter;
	struct vt_prof_cp_spent *D = scratch;
	size_t nd = vt_prof_cp_tally(d, w->end, D);
	/* The delayer's excess per path: both sorted by path. */
	uint64_t sum_time = 0, sum_excess = 0;
	struct vt_prof_cp_spent *x = scratch + nd;
	size_t nx = 0, j = 0;
	for (size_t i = 0; i < nd; i++) {
		sum_time += D[i].time;
		while (j < nl && L[j].path < D[i].path)
			j++;
		uint64_t mine = j < nl && L[j].path == D[i].path ? L[j].time : 0;
		if (D[i].time > mine) {
			uint64_t ex = D[i].time - mine;
			x[nx++] = (struct vt_prof_cp_spent){D[i].path, ex};
			sum_excess += ex;
		}
	}
	if (sum_excess) {
		divide(w, total, x, nx, sum_excess, on_cost, user);
	} else if (sum_time) {
		divide(w, total, D, nd, sum_time, on_cost, user);
	} else {
		size_t i = segment_at(d, w->end);
		on_cost(user, w, i < d->n ? d->path[i] : 0, total);
	}
}

void vt_prof_delay_cost(const struct vt_prof_cp_line *lines, const struct vt_prof_cp_wait *w,
			struct vt_prof_cp_spent *scratch,
			void (*on_cost)(void *user, const struct vt_prof_cp_wait *w, uint32_t path,
					uint64_t cost),
			void *user)
{
	if (w->end <= w->begin)
		return;
	size_t nl = vt_prof_cp_tally(&lines[w->loc], w->begin, scratch);
	vt_prof_delay_cost_of(&lines[w->delayer], w, scratch, nl, scratch + nl, on_cost, user);
}

uint32_t vt_prof_cp_delayer(int pattern, uint32_t root, uint32_t n,
			    const struct vtr_coll_member *members)
{
	uint32_t by = VTR_NONE;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t b = members[i].begin;
		if (pattern == VT_WAIT_LATE_BCAST)
			by = root;
		else if (pattern == VT_WAIT_EARLY_REDUCE)
			by = i != root && (by == VTR_NONE || b < members[by].begin) ? i : by;
		else if (by == VTR_NONE || b > members[by].begin)
			by = i;
	}
	return by;
}
