/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --samples: flat and call-path profiles of calling-context samples. */
/*
 * vt-profile --samples: the profiles of calling-context samples. Flat: per function (region)
 * the samples whose innermost frame it is (self) and those it is anywhere on the stack of,
 * counted once per sample even when it recurses (total). Call paths: the tree of contexts
 * with the same two counts, paths under 0.5% of all samples folded. Time estimates are
 * samples times the interrupt generator's period.
 */
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Paths with fewer samples than this share of the total are folded in the tree. */
#define FOLD_PERCENT 0.5

struct fn_row {
	uint32_t region;
	uint64_t self, total;
};

struct model {
	const struct vtr_trace *t;
	size_t n;	      /* contexts */
	const uint64_t *self; /* per context: the samples taken there */
	uint64_t *total;      /* per context: its samples and its descendants' */
	uint32_t *first;      /* per context: first child, VTR_NONE */
	uint32_t *next;	      /* per context: next sibling */
	struct fn_row *fn;    /* per region */
	uint32_t *order;      /* regions with samples, sorted */
	size_t nfn;
};

static enum vt_prof_sort sort_key;
static const struct vtr_trace *sort_layer;
static const struct fn_row *sort_fn;

static int cmp_fn(const void *pa, const void *pb)
{
	const struct fn_row *a = &sort_fn[*(const uint32_t *)pa];
	const struct fn_row *b = &sort_fn[*(const uint32_t *)pb];
	uint64_t x = sort_key == VT_PROF_SORT_INCL ? a->total : a->self;
	uint64_t y = sort_key == VT_PROF_SORT_INCL ? b->total : b->self;
	if (sort_key != VT_PROF_SORT_NAME && x != y)
		return x < y ? 1 : -1;
	int c = strcmp(sort_layer->regions[a->region].name, sort_layer->regions[b->region].name);
	return c ? c : (a->region > b->region) - (a->region < b->region);
}

static void build(struct model *m, const struct vt_prof_trace *tr,
		  const struct vt_prof_options *opt)
{
	const struct vtr_trace *t = tr->layer;
	size_t n = t ? t->ncallctxs : 0, nr = t ? t->nregions : 0;
	m->t = t;
	m->n = n;
	m->self = tr->ctx_samples;
	m->total = vtr_xcalloc(n + 1, sizeof(uint64_t));
	m->first = vtr_xcalloc(n + 1, sizeof(uint32_t));
	m->next = vtr_xcalloc(n + 1, sizeof(uint32_t));
	m->fn = vtr_xcalloc(nr + 1, sizeof(*m->fn));
	uint32_t *seen = vtr_xcalloc(nr + 1, sizeof(uint32_t)); /* last context counted */
	for (size_t r = 0; r < nr; r++) {
		m->fn[r].region = (uint32_t)r;
		seen[r] = VTR_NONE;
	}
	for (size_t c = 0; c < n; c++)
		m->first[c] = VTR_NONE;
	/* Children, in reverse so that the lists come out in definition order. */
	for (size_t c = n; c-- > 0;) {
		uint32_t p = t->callctxs[c].parent;
		if (!t->callctxs[c].defined || p == VTR_NONE || p >= n) {
			m->next[c] = VTR_NONE;
			continue;
		}
		m->next[c] = m->first[p];
		m->first[p] = (uint32_t)c;
	}
	for (size_t c = 0; c < n; c++) {
		uint64_t k = tr->ctx_samples[c];
		if (!k)
			continue;
		uint32_t leaf = t->callctxs[c].region;
		if (leaf < nr)
			m->fn[leaf].self += k;
		/* Up the path: every context's total, every function once (the path's walk is
		 * bounded: a cycle in damaged definitions stops after n steps). */
		size_t steps = 0;
		for (uint32_t x = (uint32_t)c; x != VTR_NONE && x < n && steps <= n; steps++) {
			m->total[x] += k;
			uint32_t r = t->callctxs[x].region;
			if (r < nr && seen[r] != c) {
				seen[r] = (uint32_t)c;
				m->fn[r].total += k;
			}
			x = t->callctxs[x].parent;
		}
	}
	free(seen);
	m->order = vtr_xcalloc(nr + 1, sizeof(uint32_t));
	for (size_t r = 0; r < nr; r++)
		if (m->fn[r].total)
			m->order[m->nfn++] = (uint32_t)r;
	sort_key = opt->sort;
	sort_layer = t;
	sort_fn = m->fn;
	qsort(m->order, m->nfn, sizeof(*m->order), cmp_fn);
}

static void release(struct model *m)
{
	free(m->total);
	free(m->first);
	free(m->next);
	free(m->fn);
	free(m->order);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *region_name(const struct vtr_trace *t, uint32_t r)
{
	return r < t->nregions ? t->regions[r].name : "<unknown>";
}

/* "file:line" of a context's sampled address, or "". */
static void where(const struct vtr_trace *t, uint32_t c, char *buf, size_t len)
{
	uint32_t s = t->callctxs[c].scl;
	buf[0] = '\0';
	if (s != VTR_NONE && s < t->nscls && t->scls[s].file[0]) {
		const char *f = strrchr(t->scls[s].file, '/');
		snprintf(buf, len, "%s:%" PRIu32, f ? f + 1 : t->scls[s].file, t->scls[s].line);
	}
}

static bool shown(const struct model *m, uint32_t c, uint64_t all)
{
	return pct(m->total[c], all) >= FOLD_PERCENT;
}

static void text_tree(FILE *out, const struct model *m, uint32_t c, int depth, uint64_t all,
		      uint64_t *folded)
{
	char at[300];
	where(m->t, c, at, sizeof(at));
	fprintf(out, "%6.1f%% %6.1f%% %9" PRIu64 "  %*s%s%s%s%s\n", pct(m->total[c], all),
		pct(m->self[c], all), m->total[c], 2 * depth, "",
		region_name(m->t, m->t->callctxs[c].region), at[0] ? " (" : "", at,
		at[0] ? ")" : "");
	for (uint32_t k = m->first[c]; k != VTR_NONE; k = m->next[k]) {
		if (shown(m, k, all) && depth < 200)
			text_tree(out, m, k, depth + 1, all, folded);
		else
			*folded += m->total[k];
	}
}

static void report_text(FILE *out, const struct vt_prof_trace *tr,
			const struct vt_prof_options *opt, const struct model *m)
{
	const struct vtr_trace *t = m->t;
	uint64_t all = tr->total_samples;
	fprintf(out, "samples of %s: %" PRIu64 " on %zu location%s", tr->path, all, tr->nlocations,
		tr->nlocations == 1 ? "" : "s");
	if (t && t->sample_period > 0)
		fprintf(out, ", one per %.3g ms of %s", t->sample_period * 1e3, t->sample_source);
	fputs("\n", out);
	if (!all) {
		fputs("(the trace has no calling-context samples: record with VT_SAMPLING=yes)\n",
		      out);
		return;
	}
	fputs("\nflat: per function, the samples taken in it (self) and below it (total)\n", out);
	fprintf(out, "%7s %7s %9s %9s %10s  %s\n", "self %", "total %", "self", "total",
		"self time", "function");
	size_t rows = opt->top && opt->top < m->nfn ? opt->top : m->nfn;
	for (size_t i = 0; i < rows; i++) {
		const struct fn_row *f = &m->fn[m->order[i]];
		const struct vtr_region *r = &t->regions[f->region];
		char est[32] = "-";
		if (t->sample_period > 0)
			snprintf(est, sizeof(est), "%.3f s", (double)f->self * t->sample_period);
		fprintf(out, "%6.1f%% %6.1f%% %9" PRIu64 " %9" PRIu64 " %10s  %s",
			pct(f->self, all), pct(f->total, all), f->self, f->total, est, r->name);
		if (r->file[0])
			fprintf(out, " (%s:%" PRIu32 ")", r->file, r->line);
		fputs("\n", out);
	}
	if (rows < m->nfn)
		fprintf(out, "(%zu more functions; --top 0 shows all)\n", m->nfn - rows);

	fprintf(out, "\ncall paths: samples at and below each, paths under %.1f%% folded\n",
		FOLD_PERCENT);
	fprintf(out, "%7s %7s %9s  %s\n", "total %", "self %", "total", "path (sampled line)");
	uint64_t folded = 0;
	for (uint32_t c = 0; c < m->n; c++) {
		if (!t->callctxs[c].defined || t->callctxs[c].parent != VTR_NONE)
			continue;
		if (shown(m, c, all))
			text_tree(out, m, c, 0, all, &folded);
		else
			folded += m->total[c];
	}
	if (folded)
		fprintf(out, "(%" PRIu64 " samples in folded paths)\n", folded);
}

static void csv_path(FILE *out, const struct model *m, uint32_t c)
{
	/* The path as "a;b;c", the folded-stack convention of flame graph tools. */
	uint32_t stack[512];
	size_t n = 0;
	for (uint32_t x = c; x != VTR_NONE && x < m->n && n < 512; x = m->t->callctxs[x].parent)
		stack[n++] = x;
	size_t len = 0;
	char *s = NULL;
	for (size_t i = n; i-- > 0;) {
		const char *name = region_name(m->t, m->t->callctxs[stack[i]].region);
		size_t k = strlen(name);
		s = vtr_xrealloc(s, len + k + 2, 1);
		memcpy(s + len, name, k);
		len += k;
		s[len++] = i ? ';' : '\0';
	}
	vt_prof_csv_field(out, s ? s : "");
	free(s);
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct model *m)
{
	fputs("kind,name,file,line,self,total\n", out);
	for (size_t i = 0; i < m->nfn; i++) {
		const struct fn_row *f = &m->fn[m->order[i]];
		const struct vtr_region *r = &m->t->regions[f->region];
		fputs("function,", out);
		vt_prof_csv_field(out, r->name);
		fputs(",", out);
		vt_prof_csv_field(out, r->file);
		fprintf(out, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 "\n", r->line, f->self, f->total);
	}
	for (uint32_t c = 0; c < m->n; c++) {
		if (!tr->ctx_samples[c])
			continue;
		fputs("path,", out);
		csv_path(out, m, c);
		fprintf(out, ",,,%" PRIu64 ",%" PRIu64 "\n", tr->ctx_samples[c], m->total[c]);
	}
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct model *m)
{
	const struct vtr_trace *t = m->t;
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out, ",\n  \"samples\": %" PRIu64 ",\n  \"period_seconds\": %.9g,\n  \"source\": ",
		tr->total_samples, t ? t->sample_period : 0.0);
	vtr_json_string(out, t ? t->sample_source : "");
	fputs(",\n  \"locations\": [", out);
	for (size_t i = 0; i < tr->nlocations; i++) {
		fprintf(out, "%s\n    {\"id\": %" PRIu64 ", \"name\": ", i ? "," : "",
			tr->locations[i].id);
		vtr_json_string(out, tr->locations[i].name);
		fprintf(out, ", \"samples\": %" PRIu64 "}", tr->locations[i].samples);
	}
	fputs(tr->nlocations ? "\n  ],\n  \"functions\": [" : "],\n  \"functions\": [", out);
	for (size_t i = 0; i < m->nfn; i++) {
		const struct fn_row *f = &m->fn[m->order[i]];
		const struct vtr_region *r = &t->regions[f->region];
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		vtr_json_string(out, r->name);
		fputs(", \"file\": ", out);
		vtr_json_string(out, r->file);
		fprintf(out,
			", \"line\": %" PRIu32 ", \"self\": %" PRIu64 ", \"total\": %" PRIu64 "}",
			r->line, f->self, f->total);
	}
	fputs(m->nfn ? "\n  ],\n  \"contexts\": [" : "],\n  \"contexts\": [", out);
	for (uint32_t c = 0; c < m->n; c++) {
		const struct vtr_callctx *x = &t->callctxs[c];
		char at[300];
		where(t, c, at, sizeof(at));
		fprintf(out, "%s\n    {\"id\": %" PRIu32 ", \"parent\": ", c ? "," : "", c);
		if (x->parent == VTR_NONE)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu32, x->parent);
		fputs(", \"function\": ", out);
		vtr_json_string(out, region_name(t, x->region));
		fputs(", \"at\": ", out);
		vtr_json_string(out, at);
		fprintf(out, ", \"self\": %" PRIu64 ", \"total\": %" PRIu64 "}", tr->ctx_samples[c],
			m->total[c]);
	}
	fputs(m->n ? "\n  ]\n}\n" : "]\n}\n", out);
}

void vt_prof_report_samples(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out)
{
	struct model m = {0};
	build(&m, tr, opt);
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, opt, &m);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, &m);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, &m);
		break;
	}
	release(&m);
}
