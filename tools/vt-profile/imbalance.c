/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --imbalance: how each region's time spreads over the locations. */
/*
 * vt-profile --imbalance: per region, how its inclusive time spreads over the locations that
 * entered it: minimum, mean and maximum, the locations of the minimum and maximum, and the
 * imbalance (max - mean) / max, the share of the slowest location's time the others would
 * not need if the work were even. Built from the flat profile's per-location results.
 */
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct spread {
	uint32_t region;
	size_t locations;
	uint64_t min, max, sum;
	uint64_t min_loc, max_loc; /* location ids */
};

static double mean(const struct spread *s)
{
	return s->locations ? (double)s->sum / (double)s->locations : 0;
}

static double imbalance(const struct spread *s)
{
	return s->max ? 100.0 * ((double)s->max - mean(s)) / (double)s->max : 0;
}

static const struct vt_prof_trace *sort_trace;
static enum vt_prof_sort sort_key;

/* Largest maximum first (by name with --sort name), ties by name then id. */
static int cmp_spread(const void *pa, const void *pb)
{
	const struct spread *a = pa, *b = pb;
	if (sort_key != VT_PROF_SORT_NAME && a->max != b->max)
		return a->max < b->max ? 1 : -1;
	int c = strcmp(sort_trace->regions[a->region].name, sort_trace->regions[b->region].name);
	return c ? c : (a->region > b->region) - (a->region < b->region);
}

/* One spread per region entered anywhere; the caller frees. */
static struct spread *spreads(const struct vt_prof_trace *tr, size_t *count)
{
	struct spread *by_region = vtr_xcalloc(tr->nregions + 1, sizeof(*by_region));
	for (size_t i = 0; i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		for (size_t j = 0; j < loc->nregions; j++) {
			const struct vt_prof_loc_region *r = &loc->regions[j];
			struct spread *s = &by_region[r->region];
			if (!s->locations || r->incl < s->min) {
				s->min = r->incl;
				s->min_loc = loc->id;
			}
			if (!s->locations || r->incl > s->max) {
				s->max = r->incl;
				s->max_loc = loc->id;
			}
			s->sum += r->incl;
			s->locations++;
		}
	}
	size_t n = 0;
	for (size_t r = 0; r < tr->nregions; r++)
		if (by_region[r].locations) {
			by_region[n] = by_region[r];
			by_region[n++].region = (uint32_t)r;
		}
	*count = n;
	return by_region;
}

static void report_text(FILE *out, const struct vt_prof_trace *tr, const struct spread *s,
			size_t shown, size_t n)
{
	fprintf(out, "imbalance of %s: inclusive time per location, %zu location%s\n\n", tr->path,
		tr->nlocations, tr->nlocations == 1 ? "" : "s");
	if (!n) {
		fputs("  (no region was entered)\n", out);
		return;
	}
	fprintf(out, "%10s  %10s  %10s  %7s  %9s  %7s  %7s  region\n", "min", "mean", "max",
		"imbal", "locations", "min at", "max at");
	for (size_t i = 0; i < shown; i++) {
		char a[32], b[32], c[32];
		vt_prof_format_time(a, sizeof(a), (double)s[i].min, tr->timer_resolution);
		vt_prof_format_time(b, sizeof(b), mean(&s[i]), tr->timer_resolution);
		vt_prof_format_time(c, sizeof(c), (double)s[i].max, tr->timer_resolution);
		fprintf(out, "%10s  %10s  %10s  %6.2f%%  %9zu  %7" PRIu64 "  %7" PRIu64 "  %s\n", a,
			b, c, imbalance(&s[i]), s[i].locations, s[i].min_loc, s[i].max_loc,
			tr->regions[s[i].region].name);
	}
	if (shown < n)
		fprintf(out, "  (%zu more regions not shown)\n", n - shown);
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct spread *s,
		       size_t shown)
{
	fputs("region,locations,min_ticks,mean_ticks,max_ticks,min_location,max_location,"
	      "imbalance_pct\n",
	      out);
	for (size_t i = 0; i < shown; i++) {
		vt_prof_csv_field(out, tr->regions[s[i].region].name);
		fprintf(out, ",%zu,%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f\n",
			s[i].locations, s[i].min, mean(&s[i]), s[i].max, s[i].min_loc, s[i].max_loc,
			imbalance(&s[i]));
	}
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct spread *s,
			size_t shown)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out, ",\n  \"timer_resolution\": %" PRIu64 ",\n  \"locations\": %zu,\n",
		tr->timer_resolution, tr->nlocations);
	fputs("  \"regions\": [", out);
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "%s\n    {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "", s[i].region);
		vtr_json_string(out, tr->regions[s[i].region].name);
		fprintf(out,
			", \"locations\": %zu, \"min_ticks\": %" PRIu64 ", \"mean_ticks\": %.3f"
			", \"max_ticks\": %" PRIu64 ", \"sum_ticks\": %" PRIu64
			", \"min_location\": %" PRIu64 ", \"max_location\": %" PRIu64
			", \"imbalance_pct\": %.4f}",
			s[i].locations, s[i].min, mean(&s[i]), s[i].max, s[i].sum, s[i].min_loc,
			s[i].max_loc, imbalance(&s[i]));
	}
	fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
}

void vt_prof_report_imbalance(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			      FILE *out)
{
	size_t n;
	struct spread *s = spreads(tr, &n);
	sort_trace = tr;
	sort_key = opt->sort;
	qsort(s, n, sizeof(*s), cmp_spread);
	size_t shown = opt->top && opt->top < n ? opt->top : n;
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, s, shown, n);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, s, shown);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, s, shown);
		break;
	}
	free(s);
}
