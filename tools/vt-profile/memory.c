/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --memory: per process the memory counters, per call path the allocations made. */
/*
 * vt-profile --memory, from the counters VT_MEMTRACE records (metric members named
 * mem_allocations, mem_allocated and mem_high_water), in a pass of its own, location by
 * location.
 *
 * Per process (location group): the last value of each counter on any of its locations, the
 * largest for the high-water mark.
 *
 * Per call path: what changed between each Enter and its Leave on a location where the
 * counters are recorded, as the last values seen on that location at or before each of the
 * two events: the allocations made (the increase of mem_allocations) and the net bytes (the change
 * of mem_allocated: allocated minus freed, usable sizes), inclusive of the paths below and
 * exclusive (minus what the paths directly below changed). An activation entered before any
 * value was seen on its location is not attributed. Writers differ in where an Enter's or
 * Leave's synchronous values go: vt (VT_MEMTRACE=events) writes them right after the event,
 * with its time; others right before it. So an Enter or Leave is taken once what follows it
 * is known: Metric events of its time that follow it are its own, one of another time (or
 * the next Enter or Leave) ends it. With VT_MEMTRACE=yes vt records the counters once, at
 * the end of the run, on METRIC locations of their own: such traces have no call path to
 * attribute to, and the report says so.
 */
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

enum { C_ALLOCS, C_NOW, C_HIGH, C_N };
static const char *const counter_names[C_N] = {"mem_allocations", "mem_allocated",
					       "mem_high_water"};

struct node {
	uint32_t parent, region; /* parent: node index + 1, 0: outermost */
	uint64_t calls;
	int64_t incl[2], excl[2]; /* [C_ALLOCS], [C_NOW] */
};

struct frame {
	uint32_t node;
	bool known;	    /* a value was seen before its Enter */
	int64_t at[2];	    /* the values at its Enter */
	int64_t inner[2];   /* the paths directly below: their changes */
	bool inner_unknown; /* one of them was not attributed */
};

struct proc {
	bool any[C_N];
	int64_t last[C_N];
};

struct mem {
	const struct vtr_trace *t;
	int8_t *counter_of; /* per metric member: its C_*, or -1 */
	struct proc *procs; /* per location group, + 1 for none */
	/* the location being read */
	bool known[2];
	int64_t now[2];
	struct frame *stack;
	size_t depth, cap;
	/* the call paths */
	struct node *nodes;
	size_t nnodes, capnodes;
	uint32_t *slots; /* (parent, region) -> node index + 1 */
	size_t nslots;
	uint64_t attributed, unattributed; /* activations */
	bool any_counter;
	/* The location's last Enter or Leave, not taken yet: its values may follow it. */
	struct {
		bool set, leave;
		uint64_t time;
		uint32_t region;
	} pending;
};

static size_t slot_of(uint32_t parent, uint32_t region, size_t cap)
{
	uint64_t k = ((uint64_t)parent << 32 | region) * 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20) & (cap - 1);
}

static void rehash(struct mem *m)
{
	free(m->slots);
	m->nslots = m->nslots ? 2 * m->nslots : 64;
	m->slots = vtr_xcalloc(m->nslots, sizeof(uint32_t));
	for (size_t i = 0; i < m->nnodes; i++) {
		size_t s = slot_of(m->nodes[i].parent, m->nodes[i].region, m->nslots);
		while (m->slots[s])
			s = (s + 1) & (m->nslots - 1);
		m->slots[s] = (uint32_t)i + 1;
	}
}

static uint32_t node_of(struct mem *m, uint32_t parent, uint32_t region)
{
	size_t s = slot_of(parent, region, m->nslots);
	for (; m->slots[s]; s = (s + 1) & (m->nslots - 1)) {
		const struct node *n = &m->nodes[m->slots[s] - 1];
		if (n->parent == parent && n->region == region)
			return m->slots[s] - 1;
	}
	if (m->nnodes == m->capnodes) {
		m->capnodes = m->capnodes ? 2 * m->capnodes : 64;
		m->nodes = vtr_xrealloc(m->nodes, m->capnodes, sizeof(*m->nodes));
	}
	m->nodes[m->nnodes] = (struct node){.parent = parent, .region = region};
	m->slots[s] = (uint32_t)++m->nnodes;
	if (2 * m->nnodes > m->nslots)
		rehash(m);
	return (uint32_t)m->nnodes - 1;
}

static void take_enter(struct mem *m, uint32_t region);
static void take_leave(struct mem *m);

/* The pending Enter or Leave is taken, with the values known now. */
static void take_pending(struct mem *m)
{
	if (!m->pending.set)
		return;
	m->pending.set = false;
	if (m->pending.leave)
		take_leave(m);
	else
		take_enter(m, m->pending.region);
}

static void on_begin(void *user, const struct vtr_location *loc)
{
	struct mem *m = user;
	(void)loc;
	m->known[0] = m->known[1] = false;
	m->depth = 0;
	m->pending.set = false;
}

static void on_end(void *user, const struct vtr_location *loc, uint64_t last)
{
	(void)loc, (void)last;
	take_pending(user);
}

static int64_t value_of(uint8_t type, const OTF2_MetricValue *v)
{
	switch (type) {
	case OTF2_TYPE_INT64:
		return v->signed_int;
	case OTF2_TYPE_DOUBLE:
		return (int64_t)v->floating_point;
	default:
		return (int64_t)v->unsigned_int;
	}
}

static void on_metric(void *user, const struct vtr_location *loc, uint64_t time, uint32_t metric,
		      uint32_t n, const uint8_t *types, const void *values)
{
	struct mem *m = user;
	const struct vtr_trace *t = m->t;
	if (m->pending.set && time != m->pending.time)
		take_pending(m); /* a value of another time: the next event's, written before it */
	if (metric >= t->nmetric_classes || !t->metric_classes[metric].defined)
		return;
	const struct vtr_metric_class *c = &t->metric_classes[metric];
	const OTF2_MetricValue *v = values;
	struct proc *p = &m->procs[loc->group < t->ngroups ? loc->group : t->ngroups];
	for (uint32_t i = 0; i < n && i < c->nmembers; i++) {
		if (c->members[i] == VTR_NONE || m->counter_of[c->members[i]] < 0)
			continue;
		int k = m->counter_of[c->members[i]];
		int64_t x = value_of(types[i], &v[i]);
		m->any_counter = true;
		if (k == C_HIGH && p->any[k] && p->last[k] > x)
			x = p->last[k]; /* the largest: a mark never goes down */
		p->any[k] = true;
		p->last[k] = x;
		if (k != C_HIGH) {
			m->known[k] = true;
			m->now[k] = x;
		}
	}
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct mem *m = user;
	(void)loc;
	take_pending(m);
	m->pending.set = true;
	m->pending.leave = false;
	m->pending.time = time;
	m->pending.region = region;
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct mem *m = user;
	(void)loc, (void)region, (void)enter;
	take_pending(m);
	m->pending.set = true;
	m->pending.leave = true;
	m->pending.time = time;
}

static void take_enter(struct mem *m, uint32_t region)
{
	uint32_t parent = m->depth ? m->stack[m->depth - 1].node + 1 : 0;
	if (m->depth == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->stack = vtr_xrealloc(m->stack, m->cap, sizeof(*m->stack));
	}
	struct frame *f = &m->stack[m->depth++];
	*f = (struct frame){.node = node_of(m, parent, region),
			    .known = m->known[C_ALLOCS] && m->known[C_NOW],
			    .at = {m->now[C_ALLOCS], m->now[C_NOW]}};
	m->nodes[f->node].calls++;
}

static void take_leave(struct mem *m)
{
	if (!m->depth)
		return;
	struct frame f = m->stack[--m->depth];
	struct frame *up = m->depth ? &m->stack[m->depth - 1] : NULL;
	if (!f.known || f.inner_unknown) {
		m->unattributed++;
		if (up)
			up->inner_unknown = true;
		return;
	}
	m->attributed++;
	struct node *n = &m->nodes[f.node];
	for (int k = 0; k < 2; k++) {
		int64_t change = m->now[k] - f.at[k];
		n->incl[k] += change;
		n->excl[k] += change - f.inner[k];
		if (up)
			up->inner[k] += change;
	}
}

/* ---- output ---- */

struct row {
	uint32_t node;
	char *path;
};

static int cmp_rows(const void *pa, const void *pb, void *nodes)
{
	const struct row *a = pa, *b = pb;
	const struct node *x = &((const struct node *)nodes)[a->node],
			  *y = &((const struct node *)nodes)[b->node];
	if (x->excl[C_ALLOCS] != y->excl[C_ALLOCS])
		return x->excl[C_ALLOCS] > y->excl[C_ALLOCS] ? -1 : 1;
	if (x->excl[C_NOW] != y->excl[C_NOW])
		return x->excl[C_NOW] > y->excl[C_NOW] ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* path: the region names from the outermost, joined by sep. */
static char *path_of(const struct mem *m, uint32_t node, const char *sep)
{
	size_t len = 1;
	for (uint32_t i = node + 1; i; i = m->nodes[i - 1].parent)
		len += strlen(m->t->regions[m->nodes[i - 1].region].name) + strlen(sep);
	char *s = vtr_xcalloc(len, 1);
	size_t at = len - 1;
	for (uint32_t i = node + 1; i; i = m->nodes[i - 1].parent) {
		const char *name = m->t->regions[m->nodes[i - 1].region].name;
		size_t l = strlen(name);
		at -= l;
		memcpy(s + at, name, l);
		if (m->nodes[i - 1].parent) {
			at -= strlen(sep);
			memcpy(s + at, sep, strlen(sep));
		}
	}
	return memmove(s, s + at, len - at);
}

static void value(FILE *out, const struct proc *p, int k, const char *none, int width)
{
	if (p->any[k])
		fprintf(out, "%*" PRId64, width, p->last[k]);
	else
		fprintf(out, "%*s", width, none);
}

static const char no_paths[] =
    "the trace holds no memory counter at Enter and Leave events (vt records them once per "
    "process, at the end of the run): no call path can be attributed";

static void report(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
		   struct mem *m, struct row *rows, size_t n)
{
	const struct vtr_trace *t = m->t;
	size_t shown = opt->top && opt->top < n ? opt->top : n;
	bool json = opt->format == VT_PROF_JSON, csv = opt->format == VT_PROF_CSV;
	if (json) {
		fputs("{\n  \"trace\": ", out);
		vtr_json_string(out, tr->path);
		fputs(",\n  \"processes\": [", out);
	} else if (csv) {
		fputs("section,process,rank,high_water,allocations,allocated,path,calls,"
		      "allocations_incl,allocations_excl,bytes_incl,bytes_excl\n",
		      out);
	} else {
		fprintf(out, "memory of %s\n\nper process:\n  %14s  %12s  %16s  process\n",
			tr->path, "high-water", "allocations", "still allocated");
	}
	bool first = true;
	for (size_t g = 0; g <= t->ngroups; g++) {
		const struct proc *p = &m->procs[g];
		if (!p->any[C_ALLOCS] && !p->any[C_NOW] && !p->any[C_HIGH])
			continue;
		const char *name = g < t->ngroups ? t->groups[g].name : "";
		uint32_t rank = VTR_NONE;
		for (size_t i = 0; i < t->nlocations && rank == VTR_NONE; i++)
			if (t->locations[i].group == g)
				rank = t->locations[i].rank;
		if (json) {
			fprintf(out, "%s\n    {\"process\": ", first ? "" : ",");
			vtr_json_string(out, name);
			if (rank == VTR_NONE)
				fputs(", \"rank\": null", out);
			else
				fprintf(out, ", \"rank\": %" PRIu32, rank);
			const char *keys[C_N] = {"allocations", "allocated", "high_water"};
			for (int k = 0; k < C_N; k++) {
				fprintf(out, ", \"%s\": ", keys[k]);
				value(out, p, k, "null", 0);
			}
			fputc('}', out);
		} else if (csv) {
			fputs("process,", out);
			vt_prof_csv_field(out, name);
			fputc(',', out);
			if (rank != VTR_NONE)
				fprintf(out, "%" PRIu32, rank);
			int order[3] = {C_HIGH, C_ALLOCS, C_NOW};
			for (int k = 0; k < 3; k++) {
				fputc(',', out);
				value(out, p, order[k], "", 0);
			}
			fputs(",,,,,,\n", out);
		} else {
			fputs("  ", out);
			value(out, p, C_HIGH, "-", 14);
			fputs("  ", out);
			value(out, p, C_ALLOCS, "-", 12);
			fputs("  ", out);
			value(out, p, C_NOW, "-", 16);
			fprintf(out, "  %s\n", name);
		}
		first = false;
	}
	if (!json && !csv && first)
		fputs("  (no memory counter: record with VT_MEMTRACE=yes)\n", out);
	if (json) {
		fprintf(out,
			"%s],\n  \"attributed\": %" PRIu64 ",\n  \"unattributed\": %" PRIu64
			",\n  \"paths\": [",
			first ? "" : "\n  ", m->attributed, m->unattributed);
	} else if (!csv) {
		fputs("\ncall paths that allocate most (between each Enter and Leave: allocations "
		      "made, net bytes;\nexclusive: without the paths below):\n",
		      out);
		if (!m->attributed)
			fprintf(out, "  (%s)\n", m->any_counter ? no_paths : "none");
		else
			fprintf(out, "  %12s  %12s  %14s  %14s  %8s  path\n", "allocs excl",
				"allocs incl", "bytes excl", "bytes incl", "calls");
	}
	for (size_t i = 0; i < shown; i++) {
		const struct node *x = &m->nodes[rows[i].node];
		if (json) {
			fprintf(out, "%s\n    {\"path\": ", i ? "," : "");
			vtr_json_string(out, rows[i].path);
			fprintf(out,
				", \"calls\": %" PRIu64 ", \"allocations_incl\": %" PRId64
				", \"allocations_excl\": %" PRId64 ", \"bytes_incl\": %" PRId64
				", \"bytes_excl\": %" PRId64 "}",
				x->calls, x->incl[C_ALLOCS], x->excl[C_ALLOCS], x->incl[C_NOW],
				x->excl[C_NOW]);
		} else if (csv) {
			fputs("path,,,,,,", out);
			vt_prof_csv_field(out, rows[i].path);
			fprintf(out,
				",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
				x->calls, x->incl[C_ALLOCS], x->excl[C_ALLOCS], x->incl[C_NOW],
				x->excl[C_NOW]);
		} else {
			fprintf(out,
				"  %12" PRId64 "  %12" PRId64 "  %14" PRId64 "  %14" PRId64
				"  %8" PRIu64 "  %s\n",
				x->excl[C_ALLOCS], x->incl[C_ALLOCS], x->excl[C_NOW],
				x->incl[C_NOW], x->calls, rows[i].path);
		}
	}
	if (json)
		fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
	else if (!csv && shown < n)
		fprintf(out, "  (%zu more path%s)\n", n - shown, n - shown == 1 ? "" : "s");
}

int vt_prof_report_memory(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			  FILE *out, char *err, size_t errlen)
{
	const struct vtr_trace *t = tr->layer;
	struct mem m = {.t = t};
	m.counter_of = vtr_xcalloc(t->nmetrics + 1, 1);
	for (size_t i = 0; i < t->nmetrics; i++) {
		m.counter_of[i] = -1;
		for (int k = 0; k < C_N; k++)
			if (t->metrics[i].defined &&
			    strcmp(t->metrics[i].name, counter_names[k]) == 0)
				m.counter_of[i] = (int8_t)k;
	}
	m.procs = vtr_xcalloc(t->ngroups + 1, sizeof(*m.procs));
	rehash(&m);
	const struct vtr_callbacks cb = {.location_begin = on_begin,
					 .location_end = on_end,
					 .metric = on_metric,
					 .enter = on_enter,
					 .leave = on_leave};
	int rc = vtr_read_locations(tr->layer, &cb, &m);
	if (rc < 0) {
		snprintf(err, errlen, "%s", t->err);
	} else {
		/* Paths with an activation attributed: every one that changed nothing is listed
		 * too (allocations 0), after those that did. */
		struct row *rows = vtr_xcalloc(m.nnodes + 1, sizeof(*rows));
		size_t n = 0;
		for (size_t i = 0; m.attributed && i < m.nnodes; i++)
			rows[n++] = (struct row){(uint32_t)i, path_of(&m, (uint32_t)i, ";")};
		if (n)
			qsort_r(rows, n, sizeof(*rows), cmp_rows, m.nodes);
		report(out, tr, opt, &m, rows, n);
		for (size_t i = 0; i < n; i++)
			free(rows[i].path);
		free(rows);
	}
	free(m.counter_of);
	free(m.procs);
	free(m.stack);
	free(m.nodes);
	free(m.slots);
	return rc;
}
