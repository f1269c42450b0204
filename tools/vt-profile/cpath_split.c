/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --critical-path split over processes: lines, waits, tallies, walk, no MPI. */
/* The rounds and what each process holds: cpath_split.h. */
#include "cpath_split.h"
#include "critpath.h"
#include "paths.h"
#include "waits.h"
#include "waits_split.h"

#include <stdlib.h>
#include <string.h>

/* One location as this process reads it: the open regions' paths, the line (from time[i] on,
 * path[i]), its synchronisation points, first and last event. */
struct line {
	uint32_t *stack;
	size_t depth, cap;
	uint64_t *time;
	uint32_t *path;
	size_t n, capn;
	uint64_t *sync;
	size_t nsync, capsync;
	uint64_t first, last;
	size_t most; /* after globalize: the most pieces of an interval between its sync points */
	bool seen;
};

struct vt_prof_cpsplit {
	const struct vtr_trace *t;
	struct vt_prof_wsplit *sp;
	struct waits *w;
	struct vt_prof_paths paths; /* numbered as waits.c numbers its own: the same Enters */
	struct line *lines;
	struct vt_prof_cp_line *view; /* lines as libvtprof takes them (after globalize) */
	struct vt_prof_cpitem *found; /* the owners' finds, for the waiters' processes */
	size_t nfound, capfound;
	struct vt_prof_cp_wait *waits; /* of this process's locations */
	size_t nwaits, capwaits;
	struct vt_prof_cp_sum *sums; /* delay costs and the path's pieces, one per key */
	size_t nsums, capsums;
	uint32_t *tab; /* sums[tab[slot] - 1] by key; 0: a free slot */
	size_t ntab;
	struct vt_prof_cpitem *out; /* items being made for a round */
	size_t nout, capout;
	uint32_t *dest;
	size_t found_at, tally_at, summary_at, span_at; /* where each step's rounds left off */
	struct vt_prof_cp_spent *scratch; /* for tallies and costs: the largest interval's */
	size_t capscratch;
	/* Process 0's walk: every location's ends, every wait, then the spans to go out. */
	struct vt_prof_cp_line *all;
	struct vt_prof_cp_wait *allw;
	size_t nallw, capallw;
	struct vt_prof_cpitem *spans;
	uint32_t *span_dest;
	size_t nspans;
};

/* Room for one more of size bytes in *p (n in use, *cap allocated). */
static void *room(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	return vtr_xrealloc(p, *cap, size);
}

static void push_u64(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	*a = room(*a, *n, cap, sizeof(**a));
	(*a)[(*n)++] = v;
}

static void found_add(struct vt_prof_cpsplit *cs, struct vt_prof_cpitem x)
{
	cs->found = room(cs->found, cs->nfound, &cs->capfound, sizeof(*cs->found));
	cs->found[cs->nfound++] = x;
}

static void out_add(struct vt_prof_cpsplit *cs, struct vt_prof_cpitem x, uint32_t dest)
{
	size_t cap = cs->capout;
	cs->out = room(cs->out, cs->nout, &cs->capout, sizeof(*cs->out));
	if (cap != cs->capout)
		cs->dest = vtr_xrealloc(cs->dest, cs->capout, sizeof(*cs->dest));
	cs->dest[cs->nout] = dest;
	cs->out[cs->nout++] = x;
}

static struct vt_prof_cpitem *out_take(struct vt_prof_cpsplit *cs, size_t *n, uint32_t **dest)
{
	struct vt_prof_cpitem *x = cs->out ? cs->out : vtr_xcalloc(1, sizeof(*x));
	*n = cs->nout;
	*dest = cs->dest ? cs->dest : vtr_xcalloc(1, sizeof(**dest));
	cs->out = NULL;
	cs->dest = NULL;
	cs->nout = cs->capout = 0;
	return x;
}

static size_t sum_slot(const struct vt_prof_cp_sum *s, size_t ntab)
{
	uint64_t a = (uint64_t)s->loc << 32 | s->path,
		 b = (uint64_t)s->pattern << 32 | s->wait_path;
	return (size_t)vt_prof_mix(a ^ vt_prof_mix(b)) & (ntab - 1);
}

static bool same_key(const struct vt_prof_cp_sum *a, const struct vt_prof_cp_sum *b)
{
	return a->loc == b->loc && a->path == b->path && a->pattern == b->pattern &&
	       a->wait_path == b->wait_path;
}

/* The table at twice its size (or first made), every sum in again. */
static void sums_rehash(struct vt_prof_cpsplit *cs)
{
	free(cs->tab);
	cs->ntab = cs->ntab ? 2 * cs->ntab : 1024;
	cs->tab = vtr_xcalloc(cs->ntab, sizeof(*cs->tab));
	for (size_t i = 0; i < cs->nsums; i++) {
		size_t k = sum_slot(&cs->sums[i], cs->ntab);
		while (cs->tab[k])
			k = (k + 1) & (cs->ntab - 1);
		cs->tab[k] = (uint32_t)i + 1;
	}
}

/* s added to the sum of its key (each addition counts 1): the keys are few beside the
 * additions (a piece of the path, a share of a wait), so a table, not a list to sort. */
static void sum_add(struct vt_prof_cpsplit *cs, struct vt_prof_cp_sum s)
{
	if (!cs->ntab)
		sums_rehash(cs);
	size_t k = sum_slot(&s, cs->ntab);
	for (; cs->tab[k]; k = (k + 1) & (cs->ntab - 1)) {
		struct vt_prof_cp_sum *x = &cs->sums[cs->tab[k] - 1];
		if (same_key(x, &s)) {
			x->time += s.time;
			x->count += s.count;
			return;
		}
	}
	cs->sums = room(cs->sums, cs->nsums, &cs->capsums, sizeof(*cs->sums));
	cs->sums[cs->nsums++] = s;
	cs->tab[k] = (uint32_t)cs->nsums;
	if (2 * cs->nsums > cs->ntab)
		sums_rehash(cs);
}

static const struct vt_prof_wsplit_cp hooks;

struct vt_prof_cpsplit *vt_prof_cpsplit_new(const struct vtr_trace *t, struct vt_prof_wsplit *sp,
					    struct waits *w)
{
	struct vt_prof_cpsplit *cs = vtr_xcalloc(1, sizeof(*cs));
	cs->t = t;
	cs->sp = sp;
	cs->w = w;
	cs->lines = vtr_xcalloc(t->nlocations + 1, sizeof(*cs->lines));
	vt_prof_wsplit_on_cp(sp, &hooks, cs);
	return cs;
}

void vt_prof_cpsplit_free(struct vt_prof_cpsplit *cs)
{
	for (size_t i = 0; i < cs->t->nlocations; i++) {
		struct line *l = &cs->lines[i];
		free(l->stack);
		free(l->time);
		free(l->path);
		free(l->sync);
	}
	free(cs->lines);
	free(cs->view);
	vt_prof_paths_free(&cs->paths);
	free(cs->found);
	free(cs->waits);
	free(cs->sums);
	free(cs->tab);
	free(cs->out);
	free(cs->dest);
	free(cs->scratch);
	free(cs->all);
	free(cs->allw);
	free(cs->spans);
	free(cs->span_dest);
	free(cs);
}

/* ---- the reading: the lines here, the rest waits.c's ---- */

static uint32_t path_now(const struct line *l)
{
	return l->depth ? l->stack[l->depth - 1] : 0;
}

static void line_add(struct line *l, uint64_t time)
{
	size_t cap = l->capn;
	l->time = room(l->time, l->n, &l->capn, sizeof(*l->time));
	if (cap != l->capn)
		l->path = vtr_xrealloc(l->path, l->capn, sizeof(*l->path));
	l->time[l->n] = time;
	l->path[l->n++] = path_now(l);
}

static void on_event(void *user, const struct vtr_location *loc, enum vtr_event kind, uint64_t time)
{
	struct vt_prof_cpsplit *cs = user;
	struct line *l = &cs->lines[loc->index];
	(void)kind;
	if (!l->seen) {
		l->seen = true;
		l->first = time;
	}
	l->last = time;
}

static void on_location_end(void *user, const struct vtr_location *loc, uint64_t last)
{
	struct vt_prof_cpsplit *cs = user;
	struct line *l = &cs->lines[loc->index];
	if (last > l->last)
		l->last = last;
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct vt_prof_cpsplit *cs = user;
	struct line *l = &cs->lines[loc->index];
	l->stack = room(l->stack, l->depth, &l->cap, sizeof(*l->stack));
	l->stack[l->depth] = vt_prof_path_of(&cs->paths, path_now(l), region);
	l->depth++;
	line_add(l, time);
	vt_prof_waits_callbacks()->enter(cs->w, loc, time, region);
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct vt_prof_cpsplit *cs = user;
	struct line *l = &cs->lines[loc->index];
	vt_prof_waits_callbacks()->leave(cs->w, loc, time, region, enter);
	if (l->depth)
		l->depth--;
	line_add(l, time);
}

/* A send is a synchronisation point of its location (as in the serial reading). */
static void on_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct vt_prof_cpsplit *cs = user;
	struct line *l = &cs->lines[loc->index];
	if (r->kind == VTR_EV_MpiSend || r->kind == VTR_EV_MpiIsend)
		push_u64(&l->sync, &l->nsync, &l->capsync, r->time);
	vt_prof_waits_callbacks()->record(cs->w, loc, r);
}

static void on_thread(void *user, const struct vtr_location *loc, const struct vtr_thread_event *e)
{
	struct vt_prof_cpsplit *cs = user;
	vt_prof_waits_callbacks()->thread(cs->w, loc, e);
}

static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct vt_prof_cpsplit *cs = user;
	vt_prof_waits_callbacks()->problem(cs->w, loc, kind, has_time, time, region, message);
}

/* The owners' matches: the receive's end and its Late Sender wait; every member's end and
 * its wait (as the serial reading: a wait that takes no time, or that the waiter caused
 * itself, is none). */
static void found_wait(struct vt_prof_cpsplit *cs, struct vt_prof_cpitem x)
{
	if (x.end > x.begin && x.loc != x.delayer)
		found_add(cs, x);
}

static void cp_message(void *user, const struct vt_prof_wmsg *s, const struct vt_prof_wmsg *r,
		       uint64_t late_sender)
{
	struct vt_prof_cpsplit *cs = user;
	found_add(cs, (struct vt_prof_cpitem){.end = r->time, .loc = r->loc, .kind = CP_SYNC});
	found_wait(cs, (struct vt_prof_cpitem){.begin = r->call,
					       .end = r->call + late_sender,
					       .loc = r->loc,
					       .path = r->path,
					       .delayer = s->loc,
					       .pattern = VT_WAIT_LATE_SENDER,
					       .kind = CP_WAIT});
}

static void cp_collective(void *user, const struct vtr_coll_member *mem, const uint32_t *paths,
			  uint32_t n, uint32_t op, uint32_t root, int pattern, const uint64_t *wait)
{
	struct vt_prof_cpsplit *cs = user;
	(void)op;
	uint32_t by = vt_prof_cp_delayer(pattern, root, n, mem);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t loc = (uint32_t)mem[i].location->index;
		found_add(cs,
			  (struct vt_prof_cpitem){.end = mem[i].end, .loc = loc, .kind = CP_SYNC});
		if (pattern != VT_WAIT_PATTERNS && by < n)
			found_wait(cs, (struct vt_prof_cpitem){
					   .begin = mem[i].begin,
					   .end = mem[i].begin + wait[i],
					   .loc = loc,
					   .path = paths[i],
					   .delayer = (uint32_t)mem[by].location->index,
					   .pattern = (uint32_t)pattern,
					   .kind = CP_WAIT});
	}
}

static const struct vt_prof_wsplit_cp hooks = {cp_message, cp_collective};

static const struct vtr_callbacks reading = {
    .event = on_event,
    .location_end = on_location_end,
    .enter = on_enter,
    .leave = on_leave,
    .record = on_record,
    .thread = on_thread,
    .problem = on_problem,
};

const struct vtr_callbacks *vt_prof_cpsplit_callbacks(void)
{
	return &reading;
}

int vt_prof_cpsplit_read(struct vt_prof_cpsplit *cs)
{
	return vtr_read_merged((struct vtr_trace *)cs->t, &reading, cs) < 0 ? -1 : 0;
}

/* ---- 1. the finds to the waiters' processes ---- */

struct vt_prof_cpitem *vt_prof_cpsplit_found(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					     uint32_t **dest)
{
	for (; cs->found_at < cs->nfound && cs->nout < max; cs->found_at++)
		out_add(cs, cs->found[cs->found_at],
			vt_prof_wsplit_loc_owner(cs->sp, cs->found[cs->found_at].loc));
	if (cs->found_at == cs->nfound && cs->found) {
		free(cs->found);
		cs->found = NULL;
		cs->nfound = cs->capfound = 0;
	}
	return out_take(cs, n, dest);
}

void vt_prof_cpsplit_take_found(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x,
				size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (x[i].loc >= cs->t->nlocations)
			continue;
		struct line *l = &cs->lines[x[i].loc];
		push_u64(&l->sync, &l->nsync, &l->capsync, x[i].end);
		if (x[i].kind != CP_WAIT)
			continue;
		cs->waits = room(cs->waits, cs->nwaits, &cs->capwaits, sizeof(*cs->waits));
		cs->waits[cs->nwaits++] = (struct vt_prof_cp_wait){
		    x[i].loc, x[i].path, x[i].delayer, x[i].pattern, x[i].begin, x[i].end};
	}
}

/* The most segments of line l that begin between two of its neighbouring boundaries (its
 * start, each synchronisation point, its end; both ends counted) plus 2: at least the pieces
 * of any tally on l (vt_prof_cp_tally's interval runs from its latest synchronisation point
 * before t to t, so it lies between two neighbours). One pass, the points sorted. */
static size_t most_pieces(const struct line *l)
{
	/* A damaged line whose time runs backwards (the reading warned): any piece of it. */
	for (size_t i = 1; i < l->n; i++)
		if (l->time[i] < l->time[i - 1])
			return l->n + 2;
	size_t most = 0, lo = 0;
	for (size_t k = 0; k <= l->nsync; k++) {
		uint64_t upper = k < l->nsync ? l->sync[k] : UINT64_MAX;
		size_t hi = lo;
		while (hi < l->n && l->time[hi] <= upper)
			hi++;
		if (hi - lo > most)
			most = hi - lo;
		/* The next interval begins at upper: segments at upper belong to both. */
		lo = hi;
		while (lo > 0 && l->time[lo - 1] >= upper)
			lo--;
	}
	return most + 2;
}

void vt_prof_cpsplit_globalize(struct vt_prof_cpsplit *cs, const uint32_t *map)
{
	const struct vtr_trace *t = cs->t;
	cs->view = vtr_xcalloc(t->nlocations + 1, sizeof(*cs->view));
	for (size_t i = 0; i < t->nlocations; i++) {
		struct line *l = &cs->lines[i];
		for (size_t k = 0; k < l->n; k++)
			l->path[k] = map[l->path[k]];
		vtr_sort_u64(l->sync, l->nsync);
		l->most = most_pieces(l);
		cs->view[i] = (struct vt_prof_cp_line){l->time, l->path, l->n,	  l->first,
						       l->last, l->sync, l->nsync};
	}
	for (size_t i = 0; i < cs->nwaits; i++)
		cs->waits[i].path = map[cs->waits[i].path];
	/* In the walk's order here, each process its own: process 0 then only puts each
	 * location's run in place (vt_prof_cpsplit_walk), and the tallies and costs go along
	 * each line in time, not to and fro. */
	qsort(cs->waits, cs->nwaits, sizeof(*cs->waits), vt_prof_cp_wait_cmp);
}

/* ---- 2. the delay costs ---- */

/* Room for n entries of scratch (kept: the rounds ask again). */
static struct vt_prof_cp_spent *scratch_for(struct vt_prof_cpsplit *cs, size_t n)
{
	if (n > cs->capscratch) {
		free(cs->scratch);
		cs->capscratch = n > 2 * cs->capscratch ? n : 2 * cs->capscratch;
		cs->scratch = vtr_xcalloc(cs->capscratch, sizeof(*cs->scratch));
	}
	return cs->scratch;
}

struct vt_prof_cpitem *vt_prof_cpsplit_tallies(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					       uint32_t **dest)
{
	for (; cs->tally_at < cs->nwaits && cs->nout < max; cs->tally_at++) {
		const struct vt_prof_cp_wait *w = &cs->waits[cs->tally_at];
		uint32_t to = vt_prof_wsplit_loc_owner(cs->sp, w->delayer);
		const struct vt_prof_cp_line *l = &cs->view[w->loc];
		struct vt_prof_cp_spent *tally = scratch_for(cs, cs->lines[w->loc].most);
		size_t k = vt_prof_cp_tally(l, w->begin, tally);
		out_add(cs,
			(struct vt_prof_cpitem){w->begin, w->end, w->loc, w->path, w->delayer,
						w->pattern, CP_TALLY, (uint32_t)k},
			to);
		for (size_t j = 0; j < k; j++)
			out_add(cs,
				(struct vt_prof_cpitem){.begin = tally[j].time,
							.path = tally[j].path,
							.kind = CP_PIECE},
				to);
	}
	return out_take(cs, n, dest);
}

static void on_cost(void *user, const struct vt_prof_cp_wait *w, uint32_t path, uint64_t cost)
{
	sum_add(user, (struct vt_prof_cp_sum){w->delayer, path, w->pattern, w->path, cost, 1});
}

void vt_prof_cpsplit_costs(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n)
{
	struct vt_prof_cp_spent *tally = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		if (x[i].kind != CP_TALLY || x[i].n > n - i - 1 ||
		    x[i].delayer >= cs->t->nlocations)
			continue;
		const struct vt_prof_cpitem *h = &x[i];
		if (h->n + 1 > cap) {
			cap = h->n + 1;
			tally = vtr_xrealloc(tally, cap, sizeof(*tally));
		}
		for (size_t k = 0; k < h->n; k++)
			tally[k] = (struct vt_prof_cp_spent){h[k + 1].path, h[k + 1].begin};
		struct vt_prof_cp_wait w = {h->loc,	h->path,  h->delayer,
					    h->pattern, h->begin, h->end};
		const struct vt_prof_cp_line *d = &cs->view[h->delayer];
		struct vt_prof_cp_spent *scratch = scratch_for(cs, 2 * cs->lines[h->delayer].most);
		vt_prof_delay_cost_of(d, &w, tally, h->n, scratch, on_cost, cs);
		i += h->n;
	}
	free(tally);
}

/* ---- 3. the walk at process 0 ---- */

struct vt_prof_cpitem *vt_prof_cpsplit_summary(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					       uint32_t **dest)
{
	const struct vtr_trace *t = cs->t;
	const bool *mine = vt_prof_wsplit_share(cs->sp);
	size_t end = t->nlocations + cs->nwaits;
	for (; cs->summary_at < end && cs->nout < max; cs->summary_at++) {
		size_t i = cs->summary_at;
		if (i < t->nlocations) {
			if (mine[i] && cs->lines[i].seen)
				out_add(cs,
					(struct vt_prof_cpitem){.begin = cs->lines[i].first,
								.end = cs->lines[i].last,
								.loc = (uint32_t)i,
								.kind = CP_LINE},
					0);
			continue;
		}
		const struct vt_prof_cp_wait *w = &cs->waits[i - t->nlocations];
		out_add(cs,
			(struct vt_prof_cpitem){w->begin, w->end, w->loc, w->path, w->delayer,
						w->pattern, CP_WAIT, 0},
			0);
	}
	return out_take(cs, n, dest);
}

void vt_prof_cpsplit_take_summary(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x,
				  size_t n)
{
	const struct vtr_trace *t = cs->t;
	if (!cs->all)
		cs->all = vtr_xcalloc(t->nlocations + 1, sizeof(*cs->all));
	for (size_t i = 0; i < n; i++) {
		if (x[i].loc >= t->nlocations)
			continue;
		if (x[i].kind == CP_LINE) {
			cs->all[x[i].loc].first = x[i].begin;
			cs->all[x[i].loc].last = x[i].end;
		} else if (x[i].kind == CP_WAIT) {
			cs->allw = room(cs->allw, cs->nallw, &cs->capallw, sizeof(*cs->allw));
			cs->allw[cs->nallw++] = (struct vt_prof_cp_wait){
			    x[i].loc, x[i].path, x[i].delayer, x[i].pattern, x[i].begin, x[i].end};
		}
	}
}

static void on_span(void *user, uint32_t loc, uint64_t from, uint64_t to)
{
	struct vt_prof_cpsplit *cs = user;
	out_add(cs, (struct vt_prof_cpitem){.begin = from, .end = to, .loc = loc, .kind = CP_SPAN},
		vt_prof_wsplit_loc_owner(cs->sp, loc));
}

void vt_prof_cpsplit_walk(struct vt_prof_cpsplit *cs, uint64_t *length, size_t *followed)
{
	const struct vtr_trace *t = cs->t;
	if (!cs->all)
		cs->all = vtr_xcalloc(t->nlocations + 1, sizeof(*cs->all));
	/* Each location's waits came from one process, in the walk's order (globalize): placed
	 * by location, keeping their order, they are sorted and the walk sorts nothing. */
	size_t *at = vtr_xcalloc(t->nlocations + 1, sizeof(*at));
	for (size_t i = 0; i < cs->nallw; i++)
		at[cs->allw[i].loc + 1]++;
	for (size_t i = 0; i < t->nlocations; i++)
		at[i + 1] += at[i];
	struct vt_prof_cp_wait *w = vtr_xcalloc(cs->nallw + 1, sizeof(*w));
	for (size_t i = 0; i < cs->nallw; i++)
		w[at[cs->allw[i].loc]++] = cs->allw[i];
	free(at);
	free(cs->allw);
	*length =
	    vt_prof_critical_walk(cs->all, t->nlocations, w, cs->nallw, followed, on_span, cs);
	free(cs->all);
	free(w);
	cs->all = NULL;
	cs->allw = NULL;
	cs->nallw = cs->capallw = 0;
	cs->spans = out_take(cs, &cs->nspans, &cs->span_dest);
}

struct vt_prof_cpitem *vt_prof_cpsplit_span_out(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
						uint32_t **dest)
{
	for (; cs->span_at < cs->nspans && cs->nout < max; cs->span_at++)
		out_add(cs, cs->spans[cs->span_at], cs->span_dest[cs->span_at]);
	return out_take(cs, n, dest);
}

/* ---- 4. the path's sums ---- */

struct spans {
	struct vt_prof_cpsplit *cs;
	uint32_t loc;
};

static void on_piece(void *user, uint32_t path, uint64_t time)
{
	struct spans *s = user;
	if (time)
		sum_add(s->cs, (struct vt_prof_cp_sum){s->loc, path, VT_WAIT_PATTERNS, 0, time, 1});
}

void vt_prof_cpsplit_spans(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (x[i].kind != CP_SPAN || x[i].loc >= cs->t->nlocations)
			continue;
		struct spans s = {cs, x[i].loc};
		vt_prof_cp_spent(&cs->view[x[i].loc], x[i].begin, x[i].end, on_piece, &s);
	}
}

struct vt_prof_cp_sum *vt_prof_cpsplit_sums(struct vt_prof_cpsplit *cs, size_t *n)
{
	size_t ncosts;
	/* Sorted in place: the table no longer points right, and goes. */
	*n = cs->nsums = vt_prof_cpsplit_merge(cs->sums, cs->nsums, &ncosts);
	free(cs->tab);
	cs->tab = NULL;
	cs->ntab = 0;
	return cs->sums ? cs->sums : (cs->sums = vtr_xcalloc(1, sizeof(*cs->sums)));
}

static int cmp_sum(const void *pa, const void *pb)
{
	const struct vt_prof_cp_sum *a = pa, *b = pb;
	if (a->pattern != b->pattern)
		return a->pattern < b->pattern ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	return (a->wait_path > b->wait_path) - (a->wait_path < b->wait_path);
}

size_t vt_prof_cpsplit_merge(struct vt_prof_cp_sum *s, size_t n, size_t *ncosts)
{
	if (!n) {
		*ncosts = 0;
		return 0;
	}
	qsort(s, n, sizeof(*s), cmp_sum);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_sum(&s[k - 1], &s[i])) {
			s[k - 1].time += s[i].time;
			s[k - 1].count += s[i].count;
		} else {
			s[k++] = s[i];
		}
	}
	*ncosts = 0;
	while (*ncosts < k && s[*ncosts].pattern != VT_WAIT_PATTERNS)
		++*ncosts;
	return k;
}
