/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile's outputs: the aligned text table, CSV and JSON, sorted and cut as asked. */
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const sort_names[] = {
    [VT_PROF_SORT_EXCL] = "excl",
    [VT_PROF_SORT_INCL] = "incl",
    [VT_PROF_SORT_CALLS] = "calls",
    [VT_PROF_SORT_NAME] = "name",
};

/* ---- rows: one region's numbers, for the whole trace or one location ---- */

typedef struct vt_prof_loc_region row_t;

/* qsort has no context argument; the report is single-threaded, so file scope is enough. */
static const struct vt_prof_trace *sort_trace;
static enum vt_prof_sort sort_key;

static int cmp_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const row_t *a = pa, *b = pb;
	int c = 0;
	switch (sort_key) {
	case VT_PROF_SORT_EXCL:
		c = cmp_desc(a->excl, b->excl);
		break;
	case VT_PROF_SORT_INCL:
		c = cmp_desc(a->incl, b->incl);
		break;
	case VT_PROF_SORT_CALLS:
		c = cmp_desc(a->calls, b->calls);
		break;
	case VT_PROF_SORT_NAME:
		break;
	}
	if (c == 0)
		c = strcmp(sort_trace->regions[a->region].name,
			   sort_trace->regions[b->region].name);
	if (c == 0)
		c = (a->region > b->region) - (a->region < b->region);
	return c;
}

/* Sorts rows and returns how many of them to show. */
static size_t sort_rows(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			row_t *rows, size_t n)
{
	sort_trace = tr;
	sort_key = opt->sort;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	return opt->top && opt->top < n ? opt->top : n;
}

/* The whole trace's rows: every region entered at least once. Caller frees. */
static row_t *total_rows(const struct vt_prof_trace *tr, size_t *n)
{
	row_t *rows = vtr_xrealloc(NULL, tr->nregions, sizeof(*rows));
	*n = 0;
	for (size_t i = 0; i < tr->nregions; i++) {
		const struct vt_prof_region *r = &tr->regions[i];
		if (r->calls)
			rows[(*n)++] = (row_t){.region = (uint32_t)i,
					       .calls = r->calls,
					       .incl = r->incl,
					       .excl = r->excl};
	}
	return rows;
}

/* A location's rows, copied so that sorting leaves the trace as it is. Caller frees. */
static row_t *location_rows(const struct vt_prof_location *loc)
{
	row_t *rows = vtr_xrealloc(NULL, loc->nregions, sizeof(*rows));
	memcpy(rows, loc->regions, loc->nregions * sizeof(*rows));
	return rows;
}

static uint64_t sum_excl(const row_t *rows, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += rows[i].excl;
	return s;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double seconds(double ticks, uint64_t resolution)
{
	return ticks / (double)resolution;
}

/* A duration with a unit that keeps 3 decimals meaningful: ns, us, ms or s. */
void vt_prof_format_time(char *buf, size_t len, double ticks, uint64_t resolution)
{
	double s = resolution ? seconds(ticks, resolution) : 0;
	if (s >= 1.0)
		snprintf(buf, len, "%.3f s", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.3f ms", s * 1e3);
	else if (s >= 1e-6)
		snprintf(buf, len, "%.3f us", s * 1e6);
	else
		snprintf(buf, len, "%.0f ns", s * 1e9);
}

static uint64_t duration(const struct vt_prof_trace *tr)
{
	return tr->any_event ? tr->last - tr->first : 0;
}

/* ---- text ---- */

enum { COL_PCT, COL_EXCL, COL_INCL, COL_CALLS, COL_MEAN, NUM_COLS };

static const char *const column_titles[NUM_COLS] = {"excl %", "excl", "incl", "calls", "incl/call"};

static void format_cells(const struct vt_prof_trace *tr, const row_t *row, uint64_t total,
			 char cells[NUM_COLS][40])
{
	uint64_t res = tr->timer_resolution;
	snprintf(cells[COL_PCT], 40, "%.2f%%", percent(row->excl, total));
	vt_prof_format_time(cells[COL_EXCL], 40, (double)row->excl, res);
	vt_prof_format_time(cells[COL_INCL], 40, (double)row->incl, res);
	snprintf(cells[COL_CALLS], 40, "%" PRIu64, row->calls);
	vt_prof_format_time(cells[COL_MEAN], 40,
			    row->calls ? (double)row->incl / (double)row->calls : 0, res);
}

/* Prints rows (already sorted) as a table whose columns fit their widest cell. */
static void text_table(FILE *out, const struct vt_prof_trace *tr, const row_t *rows, size_t shown,
		       size_t n)
{
	uint64_t total = sum_excl(rows, n);
	int width[NUM_COLS];
	char cells[NUM_COLS][40];

	if (n == 0) {
		fputs("  (no region was entered)\n", out);
		return;
	}
	for (int c = 0; c < NUM_COLS; c++)
		width[c] = (int)strlen(column_titles[c]);
	for (size_t i = 0; i < shown; i++) {
		format_cells(tr, &rows[i], total, cells);
		for (int c = 0; c < NUM_COLS; c++)
			if ((int)strlen(cells[c]) > width[c])
				width[c] = (int)strlen(cells[c]);
	}
	for (int c = 0; c < NUM_COLS; c++)
		fprintf(out, "%*s  ", width[c], column_titles[c]);
	fputs("region\n", out);
	for (size_t i = 0; i < shown; i++) {
		format_cells(tr, &rows[i], total, cells);
		for (int c = 0; c < NUM_COLS; c++)
			fprintf(out, "%*s  ", width[c], cells[c]);
		fprintf(out, "%s\n", tr->regions[rows[i].region].name);
	}
	if (shown < n)
		fprintf(out, "  (%zu more regions not shown)\n", n - shown);
}

static void print_problem(FILE *out, const struct vt_prof_trace *tr,
			  const struct vt_prof_problem *p)
{
	const struct vt_prof_location *loc = &tr->locations[p->location];
	fprintf(out, "warning: location %" PRIu64 " \"%s\": %s\n", loc->id, loc->name, p->message);
}

static void report_text(FILE *out, const struct vt_prof_trace *tr,
			const struct vt_prof_options *opt)
{
	char dur[40];
	vt_prof_format_time(dur, sizeof(dur), (double)duration(tr), tr->timer_resolution);
	fprintf(out, "profile of %s: %zu location%s, %" PRIu64 " event%s, duration %s\n\n",
		tr->path, tr->nlocations, tr->nlocations == 1 ? "" : "s", tr->total_events,
		tr->total_events == 1 ? "" : "s", dur);

	size_t n;
	row_t *rows = total_rows(tr, &n);
	text_table(out, tr, rows, sort_rows(tr, opt, rows, n), n);
	free(rows);

	for (size_t i = 0; opt->per_location && i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		vt_prof_format_time(dur, sizeof(dur),
				    (double)(loc->any_event ? loc->last - loc->first : 0),
				    tr->timer_resolution);
		fprintf(out,
			"\nlocation %" PRIu64 " \"%s\" (group \"%s\"): %" PRIu64
			" events, duration %s",
			loc->id, loc->name, loc->group_name, loc->events, dur);
		if (loc->flush_ticks) {
			vt_prof_format_time(dur, sizeof(dur), (double)loc->flush_ticks,
					    tr->timer_resolution);
			fprintf(out, ", %s in buffer flushes", dur);
		}
		fputs("\n", out);
		rows = location_rows(loc);
		text_table(out, tr, rows, sort_rows(tr, opt, rows, loc->nregions), loc->nregions);
		free(rows);
	}

	if (tr->nproblems)
		fputs("\n", out);
	for (size_t i = 0; i < tr->nproblems; i++)
		print_problem(out, tr, &tr->problems[i]);
}

/* ---- CSV ---- */

/* RFC 4180 quoting, only where a field needs it. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_rows(FILE *out, const struct vt_prof_trace *tr, const char *location,
		     const row_t *rows, size_t shown, size_t n)
{
	uint64_t total = sum_excl(rows, n), res = tr->timer_resolution;
	for (size_t i = 0; i < shown; i++) {
		const row_t *row = &rows[i];
		const struct vt_prof_region *r = &tr->regions[row->region];
		fprintf(out, "%s,", location);
		csv_field(out, r->name);
		fputc(',', out);
		csv_field(out, r->file);
		fprintf(out,
			",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9g,%.9g,%.9g,%.4f\n",
			r->line, row->calls, row->incl, row->excl, seconds((double)row->incl, res),
			seconds((double)row->excl, res),
			seconds(row->calls ? (double)row->incl / (double)row->calls : 0, res),
			percent(row->excl, total));
	}
}

static void report_csv(FILE *out, FILE *err, const struct vt_prof_trace *tr,
		       const struct vt_prof_options *opt)
{
	fputs("location,region,file,line,calls,incl_ticks,excl_ticks,incl_s,excl_s,"
	      "mean_incl_s,excl_pct\n",
	      out);
	size_t n;
	row_t *rows = total_rows(tr, &n);
	csv_rows(out, tr, "all", rows, sort_rows(tr, opt, rows, n), n);
	free(rows);
	for (size_t i = 0; opt->per_location && i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		char id[24];
		snprintf(id, sizeof(id), "%" PRIu64, loc->id);
		rows = location_rows(loc);
		csv_rows(out, tr, id, rows, sort_rows(tr, opt, rows, loc->nregions), loc->nregions);
		free(rows);
	}
	for (size_t i = 0; i < tr->nproblems; i++) {
		fputs("vt-profile: ", err);
		print_problem(err, tr, &tr->problems[i]);
	}
}

/* ---- JSON ---- */

static void json_location_regions(FILE *out, const struct vt_prof_trace *tr,
				  const struct vt_prof_options *opt,
				  const struct vt_prof_location *loc)
{
	row_t *rows = location_rows(loc);
	size_t shown = sort_rows(tr, opt, rows, loc->nregions);
	fputs(", \"regions\": [", out);
	for (size_t j = 0; j < shown; j++) {
		fprintf(out, "%s{\"id\": %" PRIu32 ", \"name\": ", j ? ", " : "", rows[j].region);
		vtr_json_string(out, tr->regions[rows[j].region].name);
		fprintf(out,
			", \"calls\": %" PRIu64 ", \"incl_ticks\": %" PRIu64
			", \"excl_ticks\": %" PRIu64 "}",
			rows[j].calls, rows[j].incl, rows[j].excl);
	}
	fputs("]", out);
	free(rows);
}

/*
 * Which locations entered each region, as one array ordered by region (offsets in first[]):
 * built in O(total entries) instead of searching every location for every region.
 */
struct by_region {
	size_t *first; /* nregions + 1 offsets into entries */
	struct entry {
		uint64_t location, calls;
	} * entries;
};

static struct by_region index_by_region(const struct vt_prof_trace *tr)
{
	struct by_region ix;
	size_t total = 0;
	ix.first = vtr_xrealloc(NULL, tr->nregions + 1, sizeof(*ix.first));
	memset(ix.first, 0, (tr->nregions + 1) * sizeof(*ix.first));
	for (size_t i = 0; i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		for (size_t j = 0; j < loc->nregions; j++)
			ix.first[loc->regions[j].region + 1]++;
		total += loc->nregions;
	}
	for (size_t r = 0; r < tr->nregions; r++)
		ix.first[r + 1] += ix.first[r];
	ix.entries = vtr_xrealloc(NULL, total, sizeof(*ix.entries));
	size_t *next = vtr_xrealloc(NULL, tr->nregions + 1, sizeof(*next));
	memcpy(next, ix.first, (tr->nregions + 1) * sizeof(*next));
	for (size_t i = 0; i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		for (size_t j = 0; j < loc->nregions; j++)
			ix.entries[next[loc->regions[j].region]++] =
			    (struct entry){loc->id, loc->regions[j].calls};
	}
	free(next);
	return ix;
}

static void json_regions(FILE *out, const struct vt_prof_trace *tr,
			 const struct vt_prof_options *opt)
{
	size_t n;
	row_t *rows = total_rows(tr, &n);
	size_t shown = sort_rows(tr, opt, rows, n);
	struct by_region ix = index_by_region(tr);

	fputs("  \"regions\": [", out);
	for (size_t i = 0; i < shown; i++) {
		const struct vt_prof_region *r = &tr->regions[rows[i].region];
		fprintf(out, "%s\n    {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "",
			rows[i].region);
		vtr_json_string(out, r->name);
		fputs(", \"file\": ", out);
		vtr_json_string(out, r->file);
		fprintf(out,
			", \"line\": %" PRIu32 ", \"calls\": %" PRIu64 ", \"incl_ticks\": %" PRIu64
			", \"excl_ticks\": %" PRIu64 ", \"calls_per_location\": {",
			r->line, r->calls, r->incl, r->excl);
		for (size_t e = ix.first[rows[i].region]; e < ix.first[rows[i].region + 1]; e++)
			fprintf(out, "%s\"%" PRIu64 "\": %" PRIu64,
				e > ix.first[rows[i].region] ? ", " : "", ix.entries[e].location,
				ix.entries[e].calls);
		fputs("}}", out);
	}
	fputs(n ? "\n  ],\n" : "],\n", out);
	free(ix.first);
	free(ix.entries);
	free(rows);
}

static void json_events(FILE *out, const struct vt_prof_trace *tr)
{
	fputs("  \"events\": {", out);
	bool first = true;
	for (int k = 0; k < VT_PROF_EV_COUNT; k++) {
		/* The kinds the runtime writes are always present, the others when seen. */
		bool always = k == VTR_EV_Enter || k == VTR_EV_Leave || k == VTR_EV_BufferFlush ||
			      k == VTR_EV_MeasurementOnOff;
		if (!always && tr->events[k] == 0)
			continue;
		fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ", vt_prof_event_names[k],
			tr->events[k]);
		first = false;
	}
	fputs("},\n", out);
}

static void json_problems(FILE *out, const struct vt_prof_trace *tr)
{
	fputs("  \"problems\": [", out);
	for (size_t i = 0; i < tr->nproblems; i++) {
		const struct vt_prof_problem *p = &tr->problems[i];
		fprintf(out, "%s\n    {\"kind\": \"%s\", \"location\": %" PRIu64 ", \"time\": ",
			i ? "," : "", vt_prof_problem_names[p->kind],
			tr->locations[p->location].id);
		if (p->has_time)
			fprintf(out, "%" PRIu64, p->time);
		else
			fputs("null", out);
		fputs(", \"region\": ", out);
		if (p->region != VT_PROF_NO_REGION)
			vtr_json_string(out, tr->regions[p->region].name);
		else
			fputs("null", out);
		fputs(", \"message\": ", out);
		vtr_json_string(out, p->message);
		fputs("}", out);
	}
	fputs(tr->nproblems ? "\n  ],\n" : "],\n", out);
}

static void report_json(FILE *out, const struct vt_prof_trace *tr,
			const struct vt_prof_options *opt)
{
	size_t n;
	row_t *rows = total_rows(tr, &n);
	uint64_t total_excl = sum_excl(rows, n);
	free(rows);

	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out, ",\n  \"timer_resolution\": %" PRIu64 ",\n", tr->timer_resolution);
	fprintf(out,
		"  \"first_timestamp\": %" PRIu64 ",\n  \"last_timestamp\": %" PRIu64
		",\n  \"duration_ticks\": %" PRIu64 ",\n",
		tr->first, tr->last, duration(tr));
	fprintf(out, "  \"total_events\": %" PRIu64 ",\n  \"total_excl_ticks\": %" PRIu64 ",\n",
		tr->total_events, total_excl);
	fprintf(out, "  \"sort\": \"%s\",\n", sort_names[opt->sort]);

	fputs("  \"locations\": [", out);
	for (size_t i = 0; i < tr->nlocations; i++) {
		const struct vt_prof_location *loc = &tr->locations[i];
		fprintf(out, "%s\n    {\"id\": %" PRIu64 ", \"name\": ", i ? "," : "", loc->id);
		vtr_json_string(out, loc->name);
		fputs(", \"group\": ", out);
		vtr_json_string(out, loc->group_name);
		fprintf(out,
			", \"group_id\": %" PRIu32 ", \"events\": %" PRIu64 ", \"enters\": %" PRIu64
			", \"leaves\": %" PRIu64 ", \"flush_ticks\": %" PRIu64
			", \"problems\": %" PRIu64,
			loc->group, loc->events, loc->enters, loc->leaves, loc->flush_ticks,
			loc->problems);
		if (opt->per_location)
			json_location_regions(out, tr, opt, loc);
		fputs("}", out);
	}
	fputs(tr->nlocations ? "\n  ],\n" : "],\n", out);

	json_regions(out, tr, opt);
	json_events(out, tr);
	json_problems(out, tr);
	fprintf(out, "  \"problems_total\": %" PRIu64 "\n}\n", tr->total_problems);
}

void vt_prof_print_problems(const struct vt_prof_trace *tr, FILE *out, const char *prefix)
{
	for (size_t i = 0; i < tr->nproblems; i++) {
		fputs(prefix, out);
		print_problem(out, tr, &tr->problems[i]);
	}
}

void vt_prof_csv_field(FILE *out, const char *s)
{
	csv_field(out, s);
}

void vt_prof_report(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		    FILE *err)
{
	if (opt->samples) {
		vt_prof_report_samples(tr, opt, out);
		for (size_t i = 0; opt->format == VT_PROF_TEXT && i < tr->nproblems; i++)
			print_problem(out, tr, &tr->problems[i]);
		return;
	}
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, opt);
		break;
	case VT_PROF_CSV:
		report_csv(out, err, tr, opt);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, opt);
		break;
	}
}
