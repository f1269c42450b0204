/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report's flame graph data: the samples merged into call paths of functions. */
/*
 * vt-report's flame graph data: the calling contexts of the samples merged into call paths of
 * functions (OTF2 has a context per code address, so one function called from one place is
 * many contexts, one per sampled line: they become one frame that names its most sampled
 * lines), each with the samples taken at it (self) and at and below it (total). Frames under
 * a share of all samples are folded into one "(other)" frame per parent that says how many
 * samples and frames it holds: at most 1 / share frames per depth are written, whatever the
 * trace, and every sample is in exactly one shown leaf or "(other)".
 */
#include "vt_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vtr_out.h"

/* Sampled lines named per frame, the most sampled first. */
#define LINES 3
/* Frames deeper than this are folded (VT_SAMPLING_DEPTH is at most 256, plus its cut mark). */
#define MAX_DEPTH 512

struct node {
	uint32_t region, parent; /* region: VTR_NONE for a context without definition */
	uint64_t self, total;
	uint32_t kids, nkids;	/* range in tree.kids */
	uint32_t lines, nlines; /* range in tree.lines */
};

struct line {
	uint32_t node, scl;
	uint64_t count;
};

struct tree {
	const struct vtr_trace *t;
	struct node *v; /* v[0]: the root, all samples */
	size_t n;
	uint32_t *slots; /* hash of (parent node, region) -> node index + 1 */
	size_t cap;
	uint32_t *kids; /* children of each node, by parent, the most samples first */
	struct line *lines;
	size_t nlines;
};

static uint64_t key_of(const struct node *x)
{
	return (uint64_t)x->parent << 32 | x->region;
}

/* The child of parent for region, made on first sight. At most one node per context is
 * made, so the table never needs to grow beyond its initial size. */
static uint32_t child(struct tree *tr, uint32_t parent, uint32_t region)
{
	uint64_t key = (uint64_t)parent << 32 | region;
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t j = (h ^ (h >> 29)) & (tr->cap - 1);
	while (tr->slots[j]) {
		if (key_of(&tr->v[tr->slots[j] - 1]) == key)
			return tr->slots[j] - 1;
		j = (j + 1) & (tr->cap - 1);
	}
	uint32_t id = (uint32_t)tr->n++;
	tr->v[id] = (struct node){.region = region, .parent = parent};
	tr->slots[j] = id + 1;
	return id;
}

/* The node of context c: the path from c up to a context already placed (or to a root
 * context) is placed top down. Bounded by the number of contexts, so that a cycle in damaged
 * definitions ends (its contexts hang below the root). */
static uint32_t place(struct tree *tr, uint32_t *node_of, uint32_t *chain, uint32_t c)
{
	const struct vtr_trace *t = tr->t;
	size_t k = 0, n = t->ncallctxs;
	uint32_t x = c;
	while (x != VTR_NONE && x < n && node_of[x] == VTR_NONE && k < n) {
		chain[k++] = x;
		x = t->callctxs[x].defined ? t->callctxs[x].parent : VTR_NONE;
	}
	uint32_t at = x != VTR_NONE && x < n && node_of[x] != VTR_NONE ? node_of[x] : 0;
	while (k-- > 0) {
		const struct vtr_callctx *cc = &t->callctxs[chain[k]];
		uint32_t region = cc->defined && cc->region < t->nregions ? cc->region : VTR_NONE;
		at = child(tr, at, region);
		node_of[chain[k]] = at;
	}
	return at;
}

static const struct tree *sort_tree;

static const char *name_of(const struct tree *tr, uint32_t node)
{
	uint32_t r = tr->v[node].region;
	return r < tr->t->nregions ? tr->t->regions[r].name : "";
}

static int cmp_kids(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct node *x = &sort_tree->v[a], *y = &sort_tree->v[b];
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	int c = strcmp(name_of(sort_tree, a), name_of(sort_tree, b));
	return c ? c : (a > b) - (a < b);
}

static int cmp_line_key(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;
	if (a->node != b->node)
		return (a->node > b->node) - (a->node < b->node);
	return (a->scl > b->scl) - (a->scl < b->scl);
}

static int cmp_line_count(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;
	if (a->node != b->node)
		return (a->node > b->node) - (a->node < b->node);
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return (a->scl > b->scl) - (a->scl < b->scl);
}

static void build(struct tree *tr, const uint64_t *counts, uint64_t all)
{
	const struct vtr_trace *t = tr->t;
	size_t n = t->ncallctxs;
	tr->v = vtr_xcalloc(n + 1, sizeof(*tr->v));
	tr->n = 1;
	tr->v[0] = (struct node){.region = VTR_NONE, .parent = VTR_NONE};
	for (tr->cap = 64; tr->cap < 2 * (n + 1);)
		tr->cap *= 2;
	tr->slots = vtr_xcalloc(tr->cap, sizeof(*tr->slots));
	uint32_t *node_of = vtr_xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *chain = vtr_xcalloc(n + 1, sizeof(uint32_t));
	uint64_t *ctx_total = vtr_xcalloc(n + 1, sizeof(uint64_t));
	for (size_t c = 0; c < n; c++)
		node_of[c] = VTR_NONE;
	uint64_t placed = 0;
	for (size_t c = 0; c < n; c++) {
		if (!counts[c])
			continue;
		tr->v[place(tr, node_of, chain, (uint32_t)c)].self += counts[c];
		placed += counts[c];
		/* Each context's samples at and below it, for the lines of its frame. */
		size_t steps = 0;
		for (uint32_t x = (uint32_t)c; x != VTR_NONE && x < n && steps <= n; steps++) {
			ctx_total[x] += counts[c];
			x = t->callctxs[x].defined ? t->callctxs[x].parent : VTR_NONE;
		}
	}
	/* Samples whose context has no definition: the root's own. */
	tr->v[0].self = all > placed ? all - placed : 0;
	/* Children are made after their parents: one backward pass sums the totals. */
	for (size_t i = tr->n; i-- > 0;) {
		tr->v[i].total += tr->v[i].self;
		if (i)
			tr->v[tr->v[i].parent].total += tr->v[i].total;
	}
	/* Children by parent (a counting sort), each parent's the most samples first. */
	for (size_t i = 1; i < tr->n; i++)
		tr->v[tr->v[i].parent].nkids++;
	uint32_t at = 0;
	for (size_t i = 0; i < tr->n; i++) {
		tr->v[i].kids = at;
		at += tr->v[i].nkids;
		tr->v[i].nkids = 0;
	}
	tr->kids = vtr_xcalloc(tr->n, sizeof(uint32_t));
	for (size_t i = 1; i < tr->n; i++) {
		struct node *p = &tr->v[tr->v[i].parent];
		tr->kids[p->kids + p->nkids++] = (uint32_t)i;
	}
	sort_tree = tr;
	for (size_t i = 0; i < tr->n; i++)
		qsort(tr->kids + tr->v[i].kids, tr->v[i].nkids, sizeof(uint32_t), cmp_kids);
	/* The sampled lines of each frame: its contexts' lines with their samples. */
	tr->lines = vtr_xcalloc(n + 1, sizeof(*tr->lines));
	for (size_t c = 0; c < n; c++) {
		uint32_t s = t->callctxs[c].defined ? t->callctxs[c].scl : VTR_NONE;
		if (!ctx_total[c] || node_of[c] == VTR_NONE || s >= t->nscls || !t->scls[s].file[0])
			continue;
		tr->lines[tr->nlines++] = (struct line){node_of[c], s, ctx_total[c]};
	}
	qsort(tr->lines, tr->nlines, sizeof(*tr->lines), cmp_line_key);
	size_t m = 0;
	for (size_t i = 0; i < tr->nlines; i++) {
		if (m && tr->lines[m - 1].node == tr->lines[i].node &&
		    tr->lines[m - 1].scl == tr->lines[i].scl)
			tr->lines[m - 1].count += tr->lines[i].count;
		else
			tr->lines[m++] = tr->lines[i];
	}
	tr->nlines = m;
	qsort(tr->lines, tr->nlines, sizeof(*tr->lines), cmp_line_count);
	for (size_t i = tr->nlines; i-- > 0;) {
		struct node *x = &tr->v[tr->lines[i].node];
		x->lines = (uint32_t)i;
		x->nlines++;
	}
	free(node_of);
	free(chain);
	free(ctx_total);
}

struct writer {
	FILE *out;
	const struct tree *tr;
	uint64_t min; /* the fewest samples of a frame shown */
	uint32_t next;
};

static void write_lines(struct writer *w, const struct node *x)
{
	const struct vtr_trace *t = w->tr->t;
	fputs(",[", w->out);
	for (uint32_t i = 0; i < x->nlines && i < LINES; i++) {
		const struct line *l = &w->tr->lines[x->lines + i];
		const char *file = t->scls[l->scl].file, *base = strrchr(file, '/');
		fputs(i ? ",[" : "[", w->out);
		vtr_json_string(w->out, base ? base + 1 : file);
		fprintf(w->out, ",%" PRIu32 ",%" PRIu64 "]", t->scls[l->scl].line, l->count);
	}
	fprintf(w->out, "],%" PRIu32 "]", x->nlines > LINES ? x->nlines - LINES : 0);
}

/* Frames in preorder, each [parent, region, total, self, lines, more lines] (region -1: the
 * root, -3: a context without definition), and per parent whose children were folded
 * [parent, -2, total, total, frames folded]. */
static void write_node(struct writer *w, uint32_t node, int64_t parent, unsigned depth)
{
	const struct node *x = &w->tr->v[node];
	uint32_t id = w->next++;
	fprintf(w->out, "%s[%" PRId64 ",", id ? ",\n" : "", parent);
	if (!node)
		fputs("-1", w->out);
	else if (x->region == VTR_NONE)
		fputs("-3", w->out);
	else
		fprintf(w->out, "%" PRIu32, x->region);
	fprintf(w->out, ",%" PRIu64 ",%" PRIu64, x->total, x->self);
	write_lines(w, x);
	uint64_t other = 0, folded = 0;
	for (uint32_t i = 0; i < x->nkids; i++) {
		uint32_t k = w->tr->kids[x->kids + i];
		if (w->tr->v[k].total >= w->min && depth < MAX_DEPTH) {
			write_node(w, k, id, depth + 1);
		} else if (w->tr->v[k].total) {
			other += w->tr->v[k].total;
			folded++;
		}
	}
	if (other) {
		fprintf(w->out, ",\n[%" PRIu32 ",-2,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", id,
			other, other, folded);
		w->next++;
	}
}

void vt_report_flame(FILE *out, const struct vtr_trace *t, const uint64_t *counts, uint64_t all,
		     uint32_t ppm)
{
	struct tree tr = {.t = t};
	build(&tr, counts, all);
	/* The fewest samples shown: ppm millionths of all, rounded up (in integers, so that the
	 * rule is exact), at least one. */
	uint64_t min = (uint64_t)(((unsigned __int128)all * ppm + 999999) / 1000000);
	struct writer w = {.out = out, .tr = &tr, .min = min ? min : 1};
	fputs("[", out);
	write_node(&w, 0, -1, 0);
	fputs("]", out);
	free(tr.v);
	free(tr.slots);
	free(tr.kids);
	free(tr.lines);
}
