/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --critical-path: the run's critical path and the delay costs of its MPI waits. */
/*
 * One merged reading (tools/lib matches messages and collectives as for --waits) keeps per
 * location its call path over time, its synchronisation points and the waits that
 * libvtprof's waits.c finds (Late Sender, Wait at Barrier and N×N, Late Broadcast, Early
 * Reduce), each with the location whose event ended it. libvtprof's critpath.c then walks
 * the critical path back from the run's end and divides each wait over its delayer's call
 * paths; the sums are per location and call path. Memory grows with the Enters and Leaves
 * (the walk goes backwards over the whole run), unlike --waits.
 */
#include "critpath.h"
#include "paths.h"
#include "report.h"
#include "vtr_out.h"
#include "waits.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct lstate {
	uint32_t *stack; /* per open region: its call path (node id) and Enter time */
	uint64_t *enter;
	size_t depth, cap;
	uint64_t *time; /* the line: from time[i] on, path[i] */
	uint32_t *path;
	size_t n, capn;
	uint64_t *sync;
	size_t nsync, capsync;
	uint64_t first, last;
	bool seen;
};

/* The ends of a message as its records give them: each call's Enter (or the event's time
 * outside an MPI region) and path. */
struct mslot {
	uint64_t send_call, recv_call;
	uint32_t recv_path;
	bool send_seen, recv_seen;
	uint32_t next_free;
};

/* A sum: a location's time on the path in a call path (wait_path 0), or a delay cost. */
struct cell {
	uint32_t loc, path, pattern, wait_path;
	uint64_t time, count;
};

struct cp {
	const struct vtr_trace *t;
	FILE *warn;
	uint64_t problems;
	struct vt_prof_paths paths;
	struct lstate *locs;
	struct mslot *ms;
	size_t nms, capms;
	uint32_t ms_free;
	struct vt_prof_coll_paths *cslots;
	struct vt_prof_cp_wait *waits;
	size_t nwaits, capwaits;
	uint64_t *wait; /* scratch per member */
	size_t nwait;
	struct cell *cells; /* the path's, then the costs' */
	size_t ncells, capcells;
	uint32_t *tab;
	size_t ntab;
};

static uint32_t path_now(const struct lstate *s)
{
	return s->depth ? s->stack[s->depth - 1] : 0;
}

/* ---- the sums ---- */

static size_t cell_slot(const struct cell *k, size_t n)
{
	uint64_t h = (uint64_t)k->loc << 32 ^ k->path;
	return (size_t)vt_prof_mix(h ^ vt_prof_mix((uint64_t)k->pattern << 32 ^ k->wait_path)) &
	       (n - 1);
}

static bool same_cell(const struct cell *a, const struct cell *b)
{
	return a->loc == b->loc && a->path == b->path && a->pattern == b->pattern &&
	       a->wait_path == b->wait_path;
}

static void cell_rehash(struct cp *c)
{
	free(c->tab);
	c->ntab = c->ntab ? 2 * c->ntab : 256;
	c->tab = vtr_xcalloc(c->ntab, sizeof(*c->tab));
	for (size_t i = 0; i < c->ncells; i++) {
		size_t s = cell_slot(&c->cells[i], c->ntab);
		while (c->tab[s])
			s = (s + 1) & (c->ntab - 1);
		c->tab[s] = (uint32_t)i + 1;
	}
}

static void add(struct cp *c, struct cell key)
{
	size_t s = cell_slot(&key, c->ntab);
	for (; c->tab[s]; s = (s + 1) & (c->ntab - 1)) {
		struct cell *x = &c->cells[c->tab[s] - 1];
		if (same_cell(x, &key)) {
			x->time += key.time;
			x->count++;
			return;
		}
	}
	if (c->ncells == c->capcells) {
		c->capcells = c->capcells ? 2 * c->capcells : 256;
		c->cells = vtr_xrealloc(c->cells, c->capcells, sizeof(*c->cells));
	}
	key.count = 1;
	c->cells[c->ncells] = key;
	c->tab[s] = (uint32_t)++c->ncells;
	if (2 * c->ncells > c->ntab)
		cell_rehash(c);
}

/* ---- the reading's callbacks ---- */

static void line_add(struct lstate *s, uint64_t time)
{
	if (s->n == s->capn) {
		s->capn = s->capn ? 2 * s->capn : 64;
		s->time = vtr_xrealloc(s->time, s->capn, sizeof(*s->time));
		s->path = vtr_xrealloc(s->path, s->capn, sizeof(*s->path));
	}
	s->time[s->n] = time;
	s->path[s->n++] = path_now(s);
}

static void sync_add(struct lstate *s, uint64_t time)
{
	if (s->nsync == s->capsync) {
		s->capsync = s->capsync ? 2 * s->capsync : 64;
		s->sync = vtr_xrealloc(s->sync, s->capsync, sizeof(*s->sync));
	}
	s->sync[s->nsync++] = time;
}

static void wait_add(struct cp *c, struct vt_prof_cp_wait w)
{
	if (w.end <= w.begin || w.loc == w.delayer)
		return;
	if (c->nwaits == c->capwaits) {
		c->capwaits = c->capwaits ? 2 * c->capwaits : 256;
		c->waits = vtr_xrealloc(c->waits, c->capwaits, sizeof(*c->waits));
	}
	c->waits[c->nwaits++] = w;
	sync_add(&c->locs[w.loc], w.end);
}

static void on_event(void *user, const struct vtr_location *loc, enum vtr_event kind, uint64_t time)
{
	struct cp *c = user;
	struct lstate *s = &c->locs[loc->index];
	(void)kind;
	if (!s->seen) {
		s->seen = true;
		s->first = time;
	}
	s->last = time;
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct cp *c = user;
	struct lstate *s = &c->locs[loc->index];
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->stack = vtr_xrealloc(s->stack, s->cap, sizeof(*s->stack));
		s->enter = vtr_xrealloc(s->enter, s->cap, sizeof(*s->enter));
	}
	s->stack[s->depth] = vt_prof_path_of(&c->paths, path_now(s), region);
	s->enter[s->depth++] = time;
	line_add(s, time);
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct cp *c = user;
	struct lstate *s = &c->locs[loc->index];
	(void)region;
	(void)enter;
	if (s->depth)
		s->depth--;
	line_add(s, time);
}

static void on_location_end(void *user, const struct vtr_location *loc, uint64_t last)
{
	struct cp *c = user;
	struct lstate *s = &c->locs[loc->index];
	if (last > s->last)
		s->last = last;
}

static uint32_t ms_new(struct cp *c)
{
	uint32_t i;
	if (c->ms_free) {
		i = c->ms_free - 1;
		c->ms_free = c->ms[i].next_free;
	} else {
		if (c->nms == c->capms) {
			c->capms = c->capms ? 2 * c->capms : 256;
			c->ms = vtr_xrealloc(c->ms, c->capms, sizeof(*c->ms));
		}
		i = (uint32_t)c->nms++;
	}
	c->ms[i] = (struct mslot){0};
	return i;
}

/* At each end of a message or collective: the call it is in (as --waits takes it). */
static void on_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct cp *c = user;
	struct lstate *s = &c->locs[loc->index];
	if (!r->match)
		return;
	bool in_call = s->depth && vt_prof_path_in_mpi(&c->paths, c->t, s->stack[s->depth - 1]);
	uint64_t call = in_call ? s->enter[s->depth - 1] : r->time;
	switch (r->kind) {
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv: {
		uint32_t i = *r->match ? (uint32_t)(uintptr_t)*r->match - 1 : ms_new(c);
		*r->match = (void *)(uintptr_t)(i + 1);
		if (r->kind == VTR_EV_MpiSend || r->kind == VTR_EV_MpiIsend) {
			c->ms[i].send_call = call;
			c->ms[i].send_seen = true;
			sync_add(s, r->time);
		} else {
			c->ms[i].recv_call = call;
			c->ms[i].recv_path = path_now(s);
			c->ms[i].recv_seen = true;
		}
		break;
	}
	case VTR_EV_MpiCollectiveEnd: {
		if (r->member == VTR_NONE)
			return;
		vt_prof_coll_paths_of(&c->cslots, r->match, c->t->comms[r->comm].size)
		    ->paths[r->member] = path_now(s);
		break;
	}
	default:
		break;
	}
}

static void on_message(void *user, const struct vtr_message *m)
{
	struct cp *c = user;
	uint32_t i = m->match ? (uint32_t)(uintptr_t)m->match - 1 : VTR_NONE;
	struct mslot none = {0}, *x = i != VTR_NONE ? &c->ms[i] : &none;
	uint64_t recv_call = x->recv_seen ? x->recv_call : m->recv_begin;
	struct vt_prof_wait_msg w = {
	    .send_begin = x->send_seen ? x->send_call : m->send_begin,
	    .send_end = m->send_end,
	    .send_blocking = !m->send_nonblocking,
	    .recv_posted = m->recv_nonblocking ? m->recv_begin : recv_call,
	    .recv_begin = recv_call,
	    .recv_end = m->recv_end,
	};
	uint64_t ls, lr;
	vt_prof_wait_message(&w, &ls, &lr);
	sync_add(&c->locs[m->receiver->index], m->recv_end);
	wait_add(c, (struct vt_prof_cp_wait){.loc = (uint32_t)m->receiver->index,
					     .path = x->recv_path,
					     .delayer = (uint32_t)m->sender->index,
					     .pattern = VT_WAIT_LATE_SENDER,
					     .begin = w.recv_begin,
					     .end = w.recv_begin + ls});
	if (i != VTR_NONE) {
		c->ms[i].next_free = c->ms_free;
		c->ms_free = i + 1;
	}
}

static void on_collective(void *user, const struct vtr_collective *k)
{
	struct cp *c = user;
	struct vt_prof_coll_paths *cs = k->match;
	if (k->n > c->nwait) {
		c->nwait = k->n;
		c->wait = vtr_xrealloc(c->wait, k->n, sizeof(*c->wait));
	}
	enum vt_prof_wait p = vt_prof_wait_collective(k->op, k->root, k->n, k->members, c->wait);
	uint32_t by = vt_prof_cp_delayer(p, k->root, k->n, k->members);
	for (uint32_t i = 0; i < k->n; i++) {
		sync_add(&c->locs[k->members[i].location->index], k->members[i].end);
		if (p != VT_WAIT_PATTERNS && by < k->n)
			wait_add(c, (struct vt_prof_cp_wait){
					.loc = (uint32_t)k->members[i].location->index,
					.path = cs ? cs->paths[i] : 0,
					.delayer = (uint32_t)k->members[by].location->index,
					.pattern = p,
					.begin = k->members[i].begin,
					.end = k->members[i].begin + c->wait[i]});
	}
	vt_prof_coll_paths_drop(&c->cslots, cs);
}

static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct cp *c = user;
	(void)has_time;
	(void)time;
	(void)region;
	if (kind != VTR_UNMATCHED_MESSAGE && kind != VTR_UNMATCHED_COLLECTIVE)
		return;
	c->problems++;
	if (loc)
		fprintf(c->warn, "warning: location %" PRIu64 " \"%s\": %s\n", loc->id, loc->name,
			message);
	else
		fprintf(c->warn, "warning: %s\n", message);
}

/* ---- the walk and the report ---- */

static void on_path(void *user, uint32_t loc, uint32_t path, uint64_t time)
{
	if (time)
		add(user, (struct cell){
			      .loc = loc, .path = path, .pattern = VT_WAIT_PATTERNS, .time = time});
}

static void on_cost(void *user, const struct vt_prof_cp_wait *w, uint32_t path, uint64_t cost)
{
	add(user, (struct cell){.loc = w->delayer,
				.path = path,
				.pattern = w->pattern,
				.wait_path = w->path,
				.time = cost});
}

/* The largest time first, then location, path, pattern, waiting path. */
static int cmp_cell(const void *pa, const void *pb)
{
	const struct cell *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	if (a->pattern != b->pattern)
		return a->pattern < b->pattern ? -1 : 1;
	return (a->wait_path > b->wait_path) - (a->wait_path < b->wait_path);
}

/* The rows: the path's per location and call path, per location, and the costs. */
struct rows {
	struct cell *path, *loc, *cost;
	size_t npath, nloc, ncost;
	uint64_t length, costs;
	size_t followed;
};

static void where(FILE *out, const struct cp *c, uint32_t loc)
{
	const struct vtr_location *l = &c->t->locations[loc];
	if (l->rank != VTR_NONE)
		fprintf(out, "%4" PRIu32 "  ", l->rank);
	else
		fputs("   -  ", out);
	fprintf(out, "%s (%s)", l->name, l->group_name);
}

static void report_text(FILE *out, const struct vt_prof_trace *tr, const struct cp *c,
			const struct rows *R)
{
	uint64_t res = tr->timer_resolution;
	char buf[64];
	double len = R->length ? (double)R->length : 1;
	vt_prof_format_time(buf, sizeof(buf), (double)R->length, res);
	fprintf(out, "Critical path of %s: %s, through %zu wait%s\n", tr->path, buf, R->followed,
		R->followed == 1 ? "" : "s");
	fprintf(out, "\nper location:\n  %12s  %7s  %s\n", "time", "share", "rank  location");
	for (size_t i = 0; i < R->nloc; i++) {
		vt_prof_format_time(buf, sizeof(buf), (double)R->loc[i].time, res);
		fprintf(out, "  %12s  %6.2f%%  ", buf, 100.0 * (double)R->loc[i].time / len);
		where(out, c, R->loc[i].loc);
		fputc('\n', out);
	}
	fprintf(out, "\nper call path:\n  %12s  %7s  %s\n", "time", "share", "rank  call path");
	for (size_t i = 0; i < R->npath; i++) {
		const struct cell *x = &R->path[i];
		const struct vtr_location *l = &c->t->locations[x->loc];
		vt_prof_format_time(buf, sizeof(buf), (double)x->time, res);
		fprintf(out, "  %12s  %6.2f%%  ", buf, 100.0 * (double)x->time / len);
		if (l->rank != VTR_NONE)
			fprintf(out, "%4" PRIu32 "  ", l->rank);
		else
			fputs("   -  ", out);
		vt_prof_path_print(out, &c->paths, c->t, x->path, " > ", false);
		fputc('\n', out);
	}
	if (!R->ncost) {
		fputs("\nDelay costs: none (no MPI wait)\n", out);
		return;
	}
	vt_prof_format_time(buf, sizeof(buf), (double)R->costs, res);
	fprintf(out, "\nDelay costs: %s of waiting, per delaying rank and call path\n", buf);
	fprintf(out, "  %12s  %6s  %s\n", "cost", "waits",
		"rank  delaying call path  <-  pattern: waiting call path");
	for (size_t i = 0; i < R->ncost; i++) {
		const struct cell *x = &R->cost[i];
		const struct vtr_location *l = &c->t->locations[x->loc];
		vt_prof_format_time(buf, sizeof(buf), (double)x->time, res);
		fprintf(out, "  %12s  %6" PRIu64 "  ", buf, x->count);
		if (l->rank != VTR_NONE)
			fprintf(out, "%4" PRIu32 "  ", l->rank);
		else
			fputs("   -  ", out);
		vt_prof_path_print(out, &c->paths, c->t, x->path, " > ", false);
		fprintf(out, "  <-  %s: ", vt_prof_wait_names[x->pattern]);
		vt_prof_path_print(out, &c->paths, c->t, x->wait_path, " > ", false);
		fputc('\n', out);
	}
}

static void csv_loc(FILE *out, const struct cp *c, uint32_t loc)
{
	const struct vtr_location *l = &c->t->locations[loc];
	fprintf(out, "%" PRIu64 ",", l->id);
	if (l->rank != VTR_NONE)
		fprintf(out, "%" PRIu32, l->rank);
	fputc(',', out);
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct cp *c,
		       const struct rows *R)
{
	double res = tr->timer_resolution ? (double)tr->timer_resolution : 1;
	fputs("section,location,rank,path,pattern,wait_path,waits,time_ticks,time_s\n", out);
	fprintf(out, "length,,,,,,%zu,%" PRIu64 ",%.9g\n", R->followed, R->length,
		(double)R->length / res);
	for (size_t i = 0; i < R->nloc; i++) {
		fputs("location,", out);
		csv_loc(out, c, R->loc[i].loc);
		fprintf(out, ",,,,%" PRIu64 ",%.9g\n", R->loc[i].time,
			(double)R->loc[i].time / res);
	}
	for (size_t i = 0; i < R->npath; i++) {
		fputs("path,", out);
		csv_loc(out, c, R->path[i].loc);
		fputc('"', out);
		vt_prof_path_print(out, &c->paths, c->t, R->path[i].path, ";", false);
		fprintf(out, "\",,,,%" PRIu64 ",%.9g\n", R->path[i].time,
			(double)R->path[i].time / res);
	}
	for (size_t i = 0; i < R->ncost; i++) {
		const struct cell *x = &R->cost[i];
		fputs("delay_cost,", out);
		csv_loc(out, c, x->loc);
		fputc('"', out);
		vt_prof_path_print(out, &c->paths, c->t, x->path, ";", false);
		fprintf(out, "\",%s,\"", vt_prof_wait_keys[x->pattern]);
		vt_prof_path_print(out, &c->paths, c->t, x->wait_path, ";", false);
		fprintf(out, "\",%" PRIu64 ",%" PRIu64 ",%.9g\n", x->count, x->time,
			(double)x->time / res);
	}
}

static void json_loc(FILE *out, const struct cp *c, uint32_t loc)
{
	const struct vtr_location *l = &c->t->locations[loc];
	fprintf(out, "\"location\": %" PRIu64 ", \"name\": ", l->id);
	vtr_json_string(out, l->name);
	if (l->rank != VTR_NONE)
		fprintf(out, ", \"rank\": %" PRIu32, l->rank);
	else
		fputs(", \"rank\": null", out);
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct cp *c,
			const struct rows *R)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out,
		",\n  \"timer_resolution\": %" PRIu64 ",\n  \"length_ticks\": %" PRIu64
		",\n  \"waits_followed\": %zu,\n  \"delay_cost_ticks\": %" PRIu64
		",\n  \"problems\": %" PRIu64 ",\n  \"locations\": [",
		tr->timer_resolution, R->length, R->followed, R->costs, c->problems);
	for (size_t i = 0; i < R->nloc; i++) {
		fprintf(out, "%s\n    {", i ? "," : "");
		json_loc(out, c, R->loc[i].loc);
		fprintf(out, ", \"time_ticks\": %" PRIu64 "}", R->loc[i].time);
	}
	fputs(R->nloc ? "\n  ],\n  \"call_paths\": [" : "],\n  \"call_paths\": [", out);
	for (size_t i = 0; i < R->npath; i++) {
		fprintf(out, "%s\n    {", i ? "," : "");
		json_loc(out, c, R->path[i].loc);
		fputs(", \"path\": ", out);
		vt_prof_path_print(out, &c->paths, c->t, R->path[i].path, "", true);
		fprintf(out, ", \"time_ticks\": %" PRIu64 "}", R->path[i].time);
	}
	fputs(R->npath ? "\n  ],\n  \"delay_costs\": [" : "],\n  \"delay_costs\": [", out);
	for (size_t i = 0; i < R->ncost; i++) {
		const struct cell *x = &R->cost[i];
		fprintf(out, "%s\n    {", i ? "," : "");
		json_loc(out, c, x->loc);
		fputs(", \"path\": ", out);
		vt_prof_path_print(out, &c->paths, c->t, x->path, "", true);
		fprintf(out,
			", \"pattern\": \"%s\", \"wait_path\": ", vt_prof_wait_keys[x->pattern]);
		vt_prof_path_print(out, &c->paths, c->t, x->wait_path, "", true);
		fprintf(out, ", \"waits\": %" PRIu64 ", \"cost_ticks\": %" PRIu64 "}", x->count,
			x->time);
	}
	fputs(R->ncost ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* Every location's line, its synchronisation points sorted; *most: the most segments. */
static struct vt_prof_cp_line *lines_of(struct cp *c, size_t *most)
{
	const struct vtr_trace *t = c->t;
	struct vt_prof_cp_line *lines =
	    vtr_xcalloc(t->nlocations ? t->nlocations : 1, sizeof(*lines));
	*most = 0;
	for (size_t i = 0; i < t->nlocations; i++) {
		struct lstate *s = &c->locs[i];
		vtr_sort_u64(s->sync, s->nsync);
		lines[i] = (struct vt_prof_cp_line){s->time, s->path, s->n,    s->first,
						    s->last, s->sync, s->nsync};
		if (s->n > *most)
			*most = s->n;
	}
	return lines;
}

/* The rows in their orders from the sums: c->cells, the costs' (ncosts) then the path's. */
static void rows_fill(struct cp *c, struct rows *R, size_t ncosts)
{
	const struct vtr_trace *t = c->t;
	for (size_t i = 0; i < ncosts; i++)
		R->costs += c->cells[i].time;
	size_t npath = c->ncells - ncosts;
	R->cost = vtr_xcalloc(ncosts ? ncosts : 1, sizeof(*R->cost));
	memcpy(R->cost, c->cells, ncosts * sizeof(*R->cost));
	R->ncost = ncosts;
	R->path = vtr_xcalloc(npath ? npath : 1, sizeof(*R->path));
	memcpy(R->path, c->cells + ncosts, npath * sizeof(*R->path));
	R->npath = npath;
	qsort(R->cost, ncosts, sizeof(*R->cost), cmp_cell);
	qsort(R->path, npath, sizeof(*R->path), cmp_cell);
	/* Per location: the path's rows summed. */
	uint64_t *per = vtr_xcalloc(t->nlocations ? t->nlocations : 1, sizeof(*per));
	for (size_t i = 0; i < npath; i++)
		per[R->path[i].loc] += R->path[i].time;
	R->loc = vtr_xcalloc(t->nlocations ? t->nlocations : 1, sizeof(*R->loc));
	for (size_t i = 0; i < t->nlocations; i++)
		if (per[i])
			R->loc[R->nloc++] = (struct cell){.loc = (uint32_t)i, .time = per[i]};
	qsort(R->loc, R->nloc, sizeof(*R->loc), cmp_cell);
	free(per);
}

/* The walk, the costs, and the rows in their orders. */
static void analyse(struct cp *c, struct rows *R)
{
	const struct vtr_trace *t = c->t;
	size_t most;
	struct vt_prof_cp_line *lines = lines_of(c, &most);
	struct vt_prof_cp_spent *scratch = vtr_xcalloc(3 * (most + 1), sizeof(*scratch));
	for (size_t i = 0; i < c->nwaits; i++)
		vt_prof_delay_cost(lines, &c->waits[i], scratch, on_cost, c);
	size_t ncosts = c->ncells;
	R->length = vt_prof_critical_path(lines, t->nlocations, c->waits, c->nwaits, &R->followed,
					  on_path, c);
	free(scratch);
	free(lines);
	rows_fill(c, R, ncosts);
}

static void report(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
		   const struct cp *c, const struct rows *R)
{
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, c, R);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, c, R);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, c, R);
		break;
	}
	free(R->path);
	free(R->loc);
	free(R->cost);
}

static void cp_free(struct cp *c)
{
	for (size_t i = 0; i < c->t->nlocations; i++) {
		struct lstate *s = &c->locs[i];
		free(s->stack);
		free(s->enter);
		free(s->time);
		free(s->path);
		free(s->sync);
	}
	free(c->locs);
	vt_prof_coll_paths_free(&c->cslots);
	vt_prof_paths_free(&c->paths);
	free(c->ms);
	free(c->waits);
	free(c->wait);
	free(c->cells);
	free(c->tab);
}

/* The merged reading: the lines, synchronisation points and waits of every location. */
static int read_cp(struct vtr_trace *t, struct cp *c, char *err, size_t errlen)
{
	c->locs = vtr_xcalloc(t->nlocations ? t->nlocations : 1, sizeof(*c->locs));
	cell_rehash(c);
	const struct vtr_callbacks cb = {
	    .event = on_event,
	    .location_end = on_location_end,
	    .enter = on_enter,
	    .leave = on_leave,
	    .record = on_record,
	    .message = on_message,
	    .collective = on_collective,
	    .problem = on_problem,
	};
	int rc = vtr_read_merged(t, &cb, c);
	if (rc < 0)
		snprintf(err, errlen, "%s", t->err);
	return rc < 0 ? -1 : 0;
}

static bool in_mpi(const struct vt_prof_cp_found *f, uint32_t path)
{
	const struct cp *c = f->cp;
	return vt_prof_path_in_mpi(&c->paths, c->t, path);
}

int vt_prof_critpath_waits(struct vtr_trace *t, FILE *warn,
			   void (*fn)(void *user, const struct vt_prof_cp_found *found), void *user,
			   uint64_t *problems, char *err, size_t errlen)
{
	struct cp c = {.t = t, .warn = warn};
	int rc = read_cp(t, &c, err, errlen);
	if (rc == 0) {
		size_t most;
		struct vt_prof_cp_line *lines = lines_of(&c, &most);
		struct vt_prof_cp_found f = {.cp = &c,
					     .lines = lines,
					     .nlines = t->nlocations,
					     .waits = c.waits,
					     .nwaits = c.nwaits,
					     .in_mpi = in_mpi};
		fn(user, &f);
		free(lines);
	}
	*problems = c.problems;
	cp_free(&c);
	return rc;
}

int vt_prof_report_critpath(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, FILE *warn, uint64_t *problems, char *err, size_t errlen)
{
	struct cp c = {.t = tr->layer, .warn = warn};
	int rc = read_cp(tr->layer, &c, err, errlen);
	if (rc == 0) {
		struct rows R = {0};
		analyse(&c, &R);
		report(out, tr, opt, &c, &R);
	}
	*problems = c.problems;
	cp_free(&c);
	return rc < 0 ? -1 : 0;
}

void vt_prof_critpath_print(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, const struct vt_prof_paths *paths,
			    const struct vt_prof_cp_sum *costs, size_t ncosts,
			    const struct vt_prof_cp_sum *path, size_t npath, uint64_t length,
			    size_t followed, uint64_t problems)
{
	struct cp c = {.t = tr->layer, .problems = problems, .paths = *paths};
	c.ncells = ncosts + npath;
	c.cells = vtr_xcalloc(c.ncells + 1, sizeof(*c.cells));
	for (size_t i = 0; i < c.ncells; i++) {
		const struct vt_prof_cp_sum *x = i < ncosts ? &costs[i] : &path[i - ncosts];
		c.cells[i] =
		    (struct cell){x->loc, x->path, x->pattern, x->wait_path, x->time, x->count};
	}
	struct rows R = {.length = length, .followed = followed};
	rows_fill(&c, &R, ncosts);
	report(out, tr, opt, &c, &R);
	free(c.cells);
}
