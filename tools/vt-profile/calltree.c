/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --call-tree: the call-path profile (tools/lib/profile/ctree.h) as text, CSV, JSON. */
/*
 * One row per call path, depth first, siblings sorted. With --depth N, paths longer than N
 * are folded into their ancestor of depth N, whose exclusive time then takes in theirs (it
 * becomes its inclusive time).
 */
#include "ctree.h"
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t shown_excl(const struct vt_prof_path *x, uint32_t limit)
{
	return limit && x->depth == limit ? x->incl : x->excl;
}

static void report_text(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_path *p,
			size_t n, uint32_t limit)
{
	char(*cells)[3][32] = vtr_xrealloc(NULL, n + 1, sizeof(*cells));
	int width[3] = {4, 4, 5};
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vt_prof_path *x = &p[i];
		if (limit && x->depth > limit)
			continue;
		vt_prof_format_time(cells[shown][0], 32, (double)x->incl, tr->timer_resolution);
		vt_prof_format_time(cells[shown][1], 32, (double)shown_excl(x, limit),
				    tr->timer_resolution);
		snprintf(cells[shown][2], 32, "%" PRIu64, x->calls);
		for (int c = 0; c < 3; c++)
			if ((int)strlen(cells[shown][c]) > width[c])
				width[c] = (int)strlen(cells[shown][c]);
		shown++;
	}
	fprintf(out, "call-path profile of %s: %zu path%s", tr->path, shown, shown == 1 ? "" : "s");
	if (limit)
		fprintf(out, " (depth limit %" PRIu32 ")", limit);
	fputs("\n\n", out);
	if (!shown) {
		fputs("  (no region was entered)\n", out);
		free(cells);
		return;
	}
	fprintf(out, "%*s  %*s  %*s  path\n", width[0], "incl", width[1], "excl", width[2],
		"calls");
	shown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vt_prof_path *x = &p[i];
		if (limit && x->depth > limit)
			continue;
		fprintf(out, "%*s  %*s  %*s  %*s%s\n", width[0], cells[shown][0], width[1],
			cells[shown][1], width[2], cells[shown][2], (int)(2 * (x->depth - 1)), "",
			tr->regions[x->region].name);
		shown++;
	}
	free(cells);
}

/* The path's region names from the outermost, separated by sep (CSV) or as a JSON array;
 * pos: a path's index in p by its id (its ancestors' are smaller: p is depth first). */
static void print_path(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_path *p,
		       const size_t *pos, size_t i, bool json)
{
	uint32_t d = p[i].depth;
	uint32_t *chain = vtr_xrealloc(NULL, d + 1, sizeof(*chain));
	for (size_t k = i;; k = pos[p[k].parent]) {
		chain[--d] = p[k].region;
		if (!p[k].parent)
			break;
	}
	fputc(json ? '[' : '"', out);
	for (uint32_t k = 0; k < p[i].depth; k++) {
		if (json) {
			fputs(k ? ", " : "", out);
			vtr_json_string(out, tr->regions[chain[k]].name);
			continue;
		}
		if (k)
			fputc(';', out);
		for (const char *s = tr->regions[chain[k]].name; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
	}
	fputc(json ? ']' : '"', out);
	free(chain);
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_path *p,
		       const size_t *pos, size_t n, uint32_t limit)
{
	double res = tr->timer_resolution ? (double)tr->timer_resolution : 1;
	fputs("id,parent,depth,region,path,calls,incl_ticks,excl_ticks,incl_s,excl_s\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct vt_prof_path *x = &p[i];
		if (limit && x->depth > limit)
			continue;
		fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", x->id, x->parent, x->depth);
		vt_prof_csv_field(out, tr->regions[x->region].name);
		fputc(',', out);
		print_path(out, tr, p, pos, i, false);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9g,%.9g\n", x->calls, x->incl,
			shown_excl(x, limit), (double)x->incl / res,
			(double)shown_excl(x, limit) / res);
	}
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_path *p,
			const size_t *pos, size_t n, uint32_t limit)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out, ",\n  \"timer_resolution\": %" PRIu64 ",\n  \"depth_limit\": %" PRIu32 ",\n",
		tr->timer_resolution, limit);
	fputs("  \"paths\": [", out);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		const struct vt_prof_path *x = &p[i];
		if (limit && x->depth > limit)
			continue;
		fprintf(out,
			"%s\n    {\"id\": %" PRIu32 ", \"parent\": %" PRIu32 ", \"depth\": %" PRIu32
			", \"region\": ",
			first ? "" : ",", x->id, x->parent, x->depth);
		vtr_json_string(out, tr->regions[x->region].name);
		fputs(", \"path\": ", out);
		print_path(out, tr, p, pos, i, true);
		fprintf(out,
			", \"calls\": %" PRIu64 ", \"incl_ticks\": %" PRIu64
			", \"excl_ticks\": %" PRIu64 "}",
			x->calls, x->incl, shown_excl(x, limit));
		first = false;
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", out);
}

int vt_prof_report_calltree(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, char *err, size_t errlen)
{
	struct vt_prof_ctree *c = vt_prof_ctree_read(tr, err, errlen);
	if (!c)
		return -1;
	size_t n;
	struct vt_prof_path *p =
	    vt_prof_ctree_paths(c, tr, opt->sort_given ? opt->sort : VT_PROF_SORT_INCL, &n);
	size_t *pos = vtr_xcalloc(n + 1, sizeof(*pos));
	for (size_t i = 0; i < n; i++)
		if (p[i].id <= n)
			pos[p[i].id] = i;
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, p, n, opt->depth);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, p, pos, n, opt->depth);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, p, pos, n, opt->depth);
		break;
	}
	free(pos);
	free(p);
	vt_prof_ctree_free(c);
	return 0;
}
