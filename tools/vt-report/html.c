/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report's page: one self-contained HTML file, its data one JSON object. */
/*
 * vt-report's page: one HTML file with its style sheet, its script and its data inline (no
 * network, no external file). The data is one JSON object in a <script type=
 * "application/json"> element; every string in it has '<' escaped, so that it cannot end the
 * element. The script draws everything from it when the page loads.
 */
#include "vt_report.h"

#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "vtr_out.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

/* Copies a temporary file of ",member" entries into out as the inside of an array. */
static int copy_members(FILE *from, FILE *out)
{
	char buf[1 << 16];
	size_t got;
	bool first = true;
	fflush(from);
	rewind(from);
	while ((got = fread(buf, 1, sizeof(buf), from)) > 0) {
		size_t skip = first && buf[0] == ',' ? 1 : 0;
		fwrite(buf + skip, 1, got - skip, out);
		first = false;
	}
	return ferror(from) ? -1 : 0;
}

struct info_state {
	FILE *out;
	bool first;
};

static void on_info(void *user, const char *name, const char *value)
{
	struct info_state *s = user;
	fputs(s->first ? "" : ",", s->out);
	s->first = false;
	vtr_json_string(s->out, name);
	putc(':', s->out);
	vtr_json_string(s->out, value);
}

static void meta(struct vt_report *r, FILE *out)
{
	const struct vtr_trace *t = r->t;
	uint32_t ranks = 0;
	for (size_t i = 0; i < t->nlocations; i++)
		if (t->locations[i].rank != VTR_NONE && t->locations[i].rank + 1 > ranks)
			ranks = t->locations[i].rank + 1;
	fputs("\"meta\":{\"trace\":", out);
	vtr_json_string(out, t->path);
	fprintf(out,
		",\"tool\":\"vt-report " VT_VERSION "\",\"locations\":%zu,\"ranks\":%" PRIu32
		",\"events\":%" PRIu64 ",\"resolution\":%" PRIu64 ",\"tmin\":%" PRIu64
		",\"tmax\":%" PRIu64 ",\"aggregated\":%s,\"bin_ns\":%" PRIu64 ",\"slices\":%" PRIu64
		",\"problems\":%" PRIu64 ",\"messages_left_out\":%" PRIu64
		",\"marks_left_out\":%" PRIu64 ",\"threads_left_out\":%" PRIu64 ",\"archive\":{",
		t->nlocations, ranks, r->events, t->resolution, r->tmin, r->tmax,
		r->aggregated ? "true" : "false", r->aggregated ? r->bin_ns : 0, r->nslices,
		r->problems + r->prof->total_problems, r->messages_left_out, r->marks_left_out,
		r->threads_left_out);
	struct info_state s = {out, true};
	vtr_archive_info(r->t, on_info, &s);
	fputs("}}", out);
}

static void definitions(struct vt_report *r, FILE *out)
{
	const struct vtr_trace *t = r->t;
	fputs(",\n\"locations\":[", out);
	for (size_t i = 0; i < t->nlocations; i++) {
		const struct vtr_location *l = &t->locations[i];
		fputs(i ? ",\n{\"name\":" : "{\"name\":", out);
		vtr_json_string(out, l->name);
		fputs(",\"group\":", out);
		vtr_json_string(out, l->group_name);
		if (l->rank != VTR_NONE)
			fprintf(out, ",\"rank\":%" PRIu32, l->rank);
		else
			fputs(",\"rank\":null", out);
		fprintf(out, ",\"type\":%" PRIu32 ",\"depth\":%" PRIu32 "}", l->type,
			r->stacks[i].maxdepth);
	}
	fputs("],\n\"regions\":[", out);
	for (size_t i = 0; i < t->nregions; i++) {
		fputs(i ? ",\n[" : "[", out);
		vtr_json_string(out, t->regions[i].name);
		fprintf(out, ",%" PRIu32 ",%" PRIu32 "]", t->regions[i].paradigm,
			t->regions[i].role);
	}
	fputs("],\n\"coll_names\":[", out);
	for (size_t i = 0; i <= VTR_COLL_OPS; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "", vtr_coll_op_names[i]);
	fputs("]", out);
}

static void bins(struct vt_report *r, FILE *out)
{
	fputs(",\n\"bins\":[", out);
	bool first = true;
	for (size_t l = 0; r->aggregated && l < r->t->nlocations; l++) {
		if (!r->bins_of[l])
			continue;
		for (size_t d = 0; d < VT_REPORT_MAX_DEPTH; d++)
			for (size_t b = 0; b < r->nbins; b++) {
				const struct vt_report_bin *x = &r->bins_of[l][d * r->nbins + b];
				if (!x->count)
					continue;
				fprintf(out, "%s[%zu,%zu,%zu,%" PRIu32 ",%" PRIu32 ",%" PRIu64 "]",
					first ? "" : ",\n", l, d, b, x->region, x->count, x->busy);
				first = false;
			}
	}
	fputs("]", out);
}

static void counters(struct vt_report *r, FILE *out)
{
	fputs(",\n\"counters\":[", out);
	for (size_t i = 0; i < r->nseries; i++) {
		const struct vt_report_series *s = &r->series[i];
		const struct vtr_metric *m = &r->t->metrics[s->member];
		fprintf(out, "%s{\"loc\":%" PRIu32 ",\"name\":", i ? ",\n" : "", s->loc);
		vtr_json_string(out, m->name);
		fputs(",\"unit\":", out);
		vtr_json_string(out, m->unit);
		fputs(",\"points\":[", out);
		bool first = true;
		for (uint32_t b = 0; b < r->series_bins; b++) {
			const struct vt_report_point *p = &s->bins[b];
			if (!p->n)
				continue;
			fprintf(out, "%s[%" PRIu64 ",%.17g", first ? "" : ",", p->t, p->last);
			if (p->n > 1)
				fprintf(out, ",%.17g,%.17g", p->min, p->max);
			putc(']', out);
			first = false;
		}
		fputs("]}", out);
	}
	fputs("]", out);
}

static void profiles(struct vt_report *r, FILE *out)
{
	const struct vt_prof_trace *p = r->prof;
	fputs(",\n\"flat\":[", out);
	bool first = true;
	for (size_t i = 0; i < p->nregions; i++) {
		const struct vt_prof_region *x = &p->regions[i];
		if (!x->calls)
			continue;
		fprintf(out, "%s[%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", first ? "" : ",\n", i,
			x->calls, x->incl, x->excl);
		first = false;
	}
	fputs("],\n\"paths\":[", out);
	size_t n;
	struct vt_prof_path *paths = vt_prof_ctree_paths(r->ctree, p, VT_PROF_SORT_INCL, &n);
	for (size_t i = 0; i < n; i++)
		fprintf(out,
			"%s[%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "]",
			i ? ",\n" : "", paths[i].id, paths[i].parent, paths[i].depth,
			paths[i].region, paths[i].calls, paths[i].incl, paths[i].excl);
	free(paths);
	fputs("]", out);
	/* Load: per process (location group) the exclusive time in MPI and in the rest. */
	const struct vtr_trace *t = r->t;
	uint64_t *user = vtr_xcalloc(t->ngroups + 1, sizeof(uint64_t));
	uint64_t *mpi = vtr_xcalloc(t->ngroups + 1, sizeof(uint64_t));
	bool *any = vtr_xcalloc(t->ngroups + 1, sizeof(bool));
	for (size_t i = 0; i < p->nlocations; i++) {
		size_t g = t->locations[i].group < t->ngroups ? t->locations[i].group : t->ngroups;
		any[g] = true;
		for (size_t j = 0; j < p->locations[i].nregions; j++) {
			const struct vt_prof_loc_region *x = &p->locations[i].regions[j];
			bool is_mpi = t->regions[x->region].paradigm == OTF2_PARADIGM_MPI;
			(is_mpi ? mpi : user)[g] += x->excl;
		}
	}
	fputs(",\n\"load\":[", out);
	first = true;
	for (size_t g = 0; g <= t->ngroups; g++) {
		if (!any[g])
			continue;
		uint32_t rank = VTR_NONE;
		for (size_t i = 0; i < t->nlocations; i++)
			if (t->locations[i].group == g)
				rank = t->locations[i].rank;
		fprintf(out, "%s{\"name\":", first ? "" : ",\n");
		vtr_json_string(out, g < t->ngroups ? t->groups[g].name : "");
		if (rank != VTR_NONE)
			fprintf(out, ",\"rank\":%" PRIu32, rank);
		else
			fputs(",\"rank\":null", out);
		fprintf(out, ",\"user\":%" PRIu64 ",\"mpi\":%" PRIu64 "}", user[g], mpi[g]);
		first = false;
	}
	fputs("]", out);
	free(user);
	free(mpi);
	free(any);
}

/* Calling-context samples: null when the trace has none; else the flame graph of all
 * locations and, where few locations have samples, one per location. */
static void samples(struct vt_report *r, FILE *out)
{
	const struct vt_prof_trace *p = r->prof;
	const struct vtr_trace *t = r->t;
	if (!p->total_samples) {
		fputs(",\n\"samples\":null", out);
		return;
	}
	fprintf(out, ",\n\"samples\":{\"total\":%" PRIu64 ",\"period\":%.9g,\"source\":",
		p->total_samples, t->sample_period);
	vtr_json_string(out, t->sample_source ? t->sample_source : "");
	uint32_t ppm = r->opt->flame_ppm;
	fprintf(out, ",\"share\":%.9g,\"all\":", ppm / 1e6);
	vt_report_flame(out, t, p->ctx_samples, p->total_samples, ppm);
	fputs(",\"locations\":[", out);
	bool first = true;
	for (size_t i = 0; r->loc_samples && i < t->nlocations && i < p->nlocations; i++) {
		if (!r->loc_samples[i])
			continue;
		fprintf(out, "%s{\"loc\":%zu,\"total\":%" PRIu64 ",\"frames\":", first ? "" : ",\n",
			i, p->locations[i].samples);
		vt_report_flame(out, t, r->loc_samples[i], p->locations[i].samples, ppm);
		fputs("}", out);
		first = false;
	}
	fputs("]}", out);
}

static void mpi(struct vt_report *r, FILE *out)
{
	fputs(",\n\"pairs\":[", out);
	for (size_t i = 0; i < r->npairs; i++) {
		const struct vt_report_pair *p = &r->pairs[i];
		fputs(i ? ",[" : "[", out);
		if (p->from == VTR_NONE)
			fputs("null,", out);
		else
			fprintf(out, "%" PRIu32 ",", p->from);
		if (p->to == VTR_NONE)
			fputs("null,", out);
		else
			fprintf(out, "%" PRIu32 ",", p->to);
		fprintf(out, "%" PRIu64 ",%" PRIu64 "]", p->count, p->bytes);
	}
	fputs("],\n\"sizes\":[", out);
	bool first = true;
	for (int b = 0; b < 65; b++) {
		if (!r->size_hist[b])
			continue;
		fprintf(out, "%s[%d,%" PRIu64 "]", first ? "" : ",", b, r->size_hist[b]);
		first = false;
	}
	fputs("],\n\"colls\":[", out);
	first = true;
	for (int k = 0; k <= VTR_COLL_OPS; k++) {
		const struct vt_report_coll *c = &r->colls[k];
		if (!c->instances)
			continue;
		fprintf(out, "%s[\"%s\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			first ? "" : ",", vtr_coll_op_names[k], c->instances, c->time, c->sent,
			c->received);
		first = false;
	}
	fputs("]", out);
}

/* The thread model: null without one; else per thread its times and counts, per parallel or
 * barrier region its spread over the threads (libvtprof's threads.h). */
static void thread_model(struct vt_report *r, FILE *out)
{
	const struct vt_prof_threads *m = r->thr;
	if (!m || !m->any) {
		fputs(",\n\"thread_model\":null", out);
		return;
	}
	fputs(",\n\"thread_model\":{\"threads\":[", out);
	bool first = true;
	for (size_t i = 0; i < m->nlocations; i++) {
		const struct vt_prof_thr_loc *l = &m->locs[i];
		if (!l->any)
			continue;
		fprintf(out,
			"%s[%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			first ? "" : ",\n", i, l->parallel, l->barrier, l->task, l->taskwait,
			l->critical, l->lock_held, l->pthread, l->tasks_created, l->tasks_completed,
			l->locks);
		first = false;
	}
	fputs("],\n\"constructs\":[", out);
	uint64_t *vals = vtr_xcalloc(m->nlocations + 1, sizeof(uint64_t));
	uint64_t *calls = vtr_xcalloc(m->nlocations + 1, sizeof(uint64_t));
	first = true;
	for (size_t c = 0; c < m->nconstructs; c++) {
		vt_prof_threads_values(m, c, false, vals, calls);
		struct vt_prof_spread s = vt_prof_spread_of(vals, calls, m->nlocations);
		if (!s.locations)
			continue;
		fprintf(out, "%s{\"region\":%" PRIu32 ",\"kind\":\"%s\",\"per\":[",
			first ? "" : ",\n", m->constructs[c],
			m->construct_kind[c] == VT_PROF_PARALLEL ? "parallel" : "barrier");
		bool f = true;
		for (size_t i = 0; i < m->nlocations; i++) {
			if (!calls[i])
				continue;
			fprintf(out, "%s[%zu,%" PRIu64 ",%" PRIu64 "]", f ? "" : ",", i, calls[i],
				vals[i]);
			f = false;
		}
		fprintf(out, "],\"max\":%" PRIu64 ",\"mean\":%.3f,\"ratio\":%.6f,\"excess\":%.3f}",
			s.max, s.mean, s.ratio, s.excess);
		first = false;
	}
	free(vals);
	free(calls);
	fputs("]}", out);
}

/* One file's or row's figures: reads, writes, flushes, failed, opens, seeks, bytes read and
 * written, ticks in operations. */
static void io_stats(FILE *out, const struct vt_prof_io_stats *s)
{
	fprintf(out,
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 "]",
		s->ops[VT_PROF_IO_READ], s->ops[VT_PROF_IO_WRITE], s->ops[VT_PROF_IO_FLUSH],
		s->failed, s->opens, s->seeks, s->read, s->written, s->time);
}

static void json_rank(FILE *out, uint32_t rank)
{
	if (rank != VTR_NONE)
		fprintf(out, "%" PRIu32, rank);
	else
		fputs("null", out);
}

/* For choose(): the times to order by (qsort has no user pointer). */
static const uint64_t *io_times;

static int by_time(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	if (io_times[a] != io_times[b])
		return io_times[a] > io_times[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* keep[i] for the cap items of the most time (all when n <= cap); how many are kept. */
static size_t choose(const uint64_t *times, const bool *eligible, size_t n, size_t cap, bool *keep)
{
	size_t *order = vtr_xcalloc(n + 1, sizeof(size_t)), m = 0;
	for (size_t i = 0; i < n; i++)
		if (eligible[i])
			order[m++] = i;
	io_times = times;
	if (m > cap)
		qsort(order, m, sizeof(size_t), by_time);
	for (size_t i = 0; i < m && i < cap; i++)
		keep[order[i]] = true;
	free(order);
	return m < cap ? m : cap;
}

static void json_process(FILE *out, const struct vtr_trace *t, const struct vt_prof_io_row *row)
{
	json_rank(out, row->rank);
	putc(',', out);
	vtr_json_string(out, row->group < t->ngroups ? t->groups[row->group].name : "");
}

/*
 * I/O (libvtprof's io.h): null without an I/O event; else the files, the (file, process)
 * rows, each file's request sizes [mode, smallest size, operations] and the slowest
 * operations [paradigm, file, rank, process, location, mode, requested, done (null: failed),
 * ticks, begin ns]; "all": the figures of all files, shaped as a file. The page stays bounded: the
 * VT_REPORT_IO_FILES files and VT_REPORT_IO_ROWS rows (of the files shown) of the most time, in
 * their order, and how many there are in all.
 */
static void io_data(struct vt_report *r, FILE *out)
{
	const struct vt_prof_io *m = r->io;
	const struct vtr_trace *t = r->t;
	if (!m || !m->any) {
		fputs(",\n\"io\":null", out);
		return;
	}
	size_t n = m->nfiles > m->nrows ? m->nfiles : m->nrows;
	uint64_t *times = vtr_xcalloc(n + 1, sizeof(uint64_t));
	bool *eligible = vtr_xcalloc(n + 1, sizeof(bool));
	bool *file_kept = vtr_xcalloc(m->nfiles + 1, sizeof(bool));
	bool *row_kept = vtr_xcalloc(m->nrows + 1, sizeof(bool));
	size_t *file_pos = vtr_xcalloc(m->nfiles + 1, sizeof(size_t));
	for (size_t f = 0; f < m->nfiles; f++) {
		times[f] = m->files[f].s.time;
		eligible[f] = true;
	}
	choose(times, eligible, m->nfiles, VT_REPORT_IO_FILES, file_kept);
	for (size_t i = 0; i < m->nrows; i++) {
		times[i] = m->rows[i].s.time;
		eligible[i] = file_kept[m->rows[i].file];
	}
	choose(times, eligible, m->nrows, VT_REPORT_IO_ROWS, row_kept);
	fprintf(out,
		",\n\"io\":{\"modes\":[\"read\",\"write\",\"flush\"],\"files_total\":%zu,"
		"\"rows_total\":%zu,\"all\":[\"\",\"\"",
		m->nfiles, m->nrows);
	io_stats(out, &m->all); /* shaped as a file */
	fputs(",\n\"files\":[", out);
	size_t shown = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		if (!file_kept[f])
			continue;
		file_pos[f] = shown;
		fputs(shown++ ? ",\n[" : "[", out);
		vtr_json_string(out, m->files[f].paradigm);
		putc(',', out);
		vtr_json_string(out, m->files[f].name);
		io_stats(out, &m->files[f].s);
	}
	fputs("],\n\"rows\":[", out);
	bool first = true;
	for (size_t i = 0; i < m->nrows; i++) {
		const struct vt_prof_io_row *row = &m->rows[i];
		if (!row_kept[i])
			continue;
		fprintf(out, "%s[%zu,", first ? "" : ",\n", file_pos[row->file]);
		json_process(out, t, row);
		io_stats(out, &row->s);
		first = false;
	}
	fputs("],\n\"sizes\":[", out);
	shown = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		if (!file_kept[f])
			continue;
		fputs(shown++ ? ",[" : "[", out);
		first = true;
		for (int k = 0; k < 2; k++)
			for (unsigned b = 0; b < VT_PROF_IO_BUCKETS; b++) {
				if (!m->files[f].s.sizes[k][b])
					continue;
				fprintf(out, "%s[%d,%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", k,
					vt_prof_io_bucket_low(b), m->files[f].s.sizes[k][b]);
				first = false;
			}
		putc(']', out);
	}
	fputs("],\n\"slowest\":[", out);
	for (size_t i = 0; i < m->top.n; i++) {
		const struct vt_prof_io_op *o = &m->top.ops[i];
		const struct vt_prof_io_row *row = &m->rows[o->row];
		fputs(i ? ",\n[" : "[", out);
		vtr_json_string(out, m->files[row->file].paradigm);
		putc(',', out);
		vtr_json_string(out, m->files[row->file].name);
		putc(',', out);
		json_process(out, t, row);
		fprintf(out, ",%zu,%d,%" PRIu64 ",", o->location, (int)o->mode, o->requested);
		if (o->failed)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu64, o->done);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 "]", o->duration,
			vtr_ticks_to_ns(t, o->begin));
	}
	fputs("]}", out);
	free(times);
	free(eligible);
	free(file_kept);
	free(row_kept);
	free(file_pos);
}

/* The last value of a counter's series on a location of the process, or -1 (none): vt's
 * memory counters each have a METRIC location of their own. */
static double series_last(const struct vt_report *r, uint32_t group, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++) {
		const struct vt_report_series *s = &r->series[i];
		if (r->t->locations[s->loc].group != group ||
		    strcmp(r->t->metrics[s->member].name, name) != 0)
			continue;
		for (uint32_t b = r->series_bins; b-- > 0;)
			if (s->bins[b].n)
				return s->bins[b].last;
	}
	return -1;
}

/* Memory (VT_MEMTRACE): per process whose location records mem_high_water its values over
 * time [ns, bytes] and the last of its allocations and bytes still allocated: a METRIC
 * location's (VT_MEMTRACE=yes), or its first thread's (=events: every thread records the
 * process's values, one series is the process's). */
static void memory_data(struct vt_report *r, FILE *out)
{
	const struct vtr_trace *t = r->t;
	fputs(",\n\"memory\":[", out);
	bool first = true;
	bool *shown = vtr_xcalloc(t->ngroups + 1, sizeof(*shown));
	for (size_t i = 0; i < r->nseries; i++) {
		const struct vt_report_series *s = &r->series[i];
		if (strcmp(t->metrics[s->member].name, "mem_high_water") != 0)
			continue;
		const struct vtr_location *l = &t->locations[s->loc];
		size_t g = l->group < t->ngroups ? l->group : t->ngroups;
		if (shown[g])
			continue;
		shown[g] = true;
		fprintf(out, "%s{\"loc\":%" PRIu32 ",\"process\":", first ? "" : ",\n", s->loc);
		vtr_json_string(out, l->group_name);
		fputs(",\"rank\":", out);
		json_rank(out, l->rank);
		fprintf(out, ",\"allocations\":%.17g,\"allocated\":%.17g,\"points\":[",
			series_last(r, l->group, "mem_allocations"),
			series_last(r, l->group, "mem_allocated"));
		bool f = true;
		for (uint32_t b = 0; b < r->series_bins; b++) {
			const struct vt_report_point *p = &s->bins[b];
			if (!p->n)
				continue;
			fprintf(out, "%s[%" PRIu64 ",%.17g]", f ? "" : ",", p->t, p->max);
			f = false;
		}
		fputs("]}", out);
		first = false;
	}
	free(shown);
	fputs("]", out);
}

int vt_report_html(struct vt_report *r, FILE *out, char *err, size_t errlen)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>vt report</title>\n"
	      "<style>\n",
	      out);
	fputs(vt_report_css, out);
	bool sampled = r->prof->total_samples > 0;
	fputs("</style>\n</head>\n<body>\n"
	      "<header><h1>vt report</h1><div id=\"subtitle\"></div></header>\n"
	      "<div id=\"errors\"></div>\n"
	      "<nav><a href=\"#timeline-section\">Timeline</a> <a href=\"#profile-section\">"
	      "Profiles</a> ",
	      out);
	if (sampled)
		fputs("<a href=\"#samples-section\">Samples</a> ", out);
	if (r->thr && r->thr->any)
		fputs("<a href=\"#threads-section\">Threads</a> ", out);
	fputs("<a href=\"#io-section\">I/O</a> <a href=\"#memory-section\">Memory</a> "
	      "<a href=\"#load-section\">Load</a> <a href=\"#mpi-section\">MPI</a> "
	      "<a href=\"#waits-section\">Wait states</a> "
	      "<a href=\"#critpath-section\">Critical path</a> "
	      "<a href=\"#meta-section\">Trace</a></nav>\n"
	      "<section id=\"timeline-section\"><h2>Timeline</h2>\n"
	      "<div id=\"controls\"></div>\n<div id=\"timeline\"></div>\n"
	      "<div id=\"counters\"></div>\n</section>\n"
	      "<section id=\"profile-section\"><h2>Flat profile</h2>\n"
	      "<table id=\"flat\" class=\"sortable\"></table>\n"
	      "<h2>Call paths</h2>\n<table id=\"calltree\" class=\"sortable\"></table>\n"
	      "</section>\n",
	      out);
	if (sampled)
		fputs("<section id=\"samples-section\"><h2>Samples</h2>\n"
		      "<div id=\"flame-controls\"></div>\n<div id=\"flame\"></div>\n</section>\n",
		      out);
	if (r->thr && r->thr->any)
		fputs("<section id=\"threads-section\"><h2>Threads</h2>\n"
		      "<table id=\"thread-times\" class=\"sortable\"></table>\n"
		      "<h3>OpenMP imbalance</h3><table id=\"omp-imbalance\" class=\"sortable\">"
		      "</table>\n</section>\n",
		      out);
	/* Without I/O events, the note alone (report.js). */
	fputs("<section id=\"io-section\"><h2>I/O</h2>\n<div id=\"io-summary\"></div>\n", out);
	if (r->io && r->io->any)
		fputs("<h3>Per file</h3><table id=\"io-files\" class=\"sortable\"></table>\n"
		      "<h3>Per file and process</h3><table id=\"io-rows\" class=\"sortable\">"
		      "</table>\n<h3>Request sizes</h3><div id=\"io-sizes\"></div>\n"
		      "<h3>Slowest operations</h3><table id=\"io-slowest\" class=\"sortable\">"
		      "</table>\n",
		      out);
	fputs("</section>\n"
	      "<section id=\"memory-section\"><h2>Memory</h2>\n<div id=\"memory-summary\"></div>\n"
	      "<div id=\"memory-plot\"></div>\n<table id=\"memory\" class=\"sortable\"></table>\n"
	      "</section>\n"
	      "<section id=\"load-section\"><h2>Load per rank</h2><div id=\"load\"></div>"
	      "</section>\n"
	      "<section id=\"mpi-section\"><h2>MPI</h2>\n"
	      "<h3>Messages between ranks</h3><div id=\"matrix\"></div>\n"
	      "<h3>Message sizes</h3><div id=\"sizes\"></div>\n"
	      "<h3>Collectives</h3><table id=\"collectives\" class=\"sortable\"></table>\n"
	      "</section>\n"
	      /* Filled by report.js from vt-profile's JSON (waits.c); a note without. */
	      "<section id=\"waits-section\"><h2>Wait states</h2>\n"
	      "<div id=\"waits-summary\"></div>\n"
	      "<table id=\"waits\" class=\"sortable\"></table>\n"
	      "<div id=\"waits-top\"></div>\n</section>\n"
	      "<section id=\"critpath-section\"><h2>Critical path</h2>\n"
	      "<div id=\"critpath-summary\"></div>\n"
	      "<h3>Delay costs</h3><ul id=\"delay-costs\"></ul>\n"
	      "<h3>Per rank</h3><table id=\"critpath-ranks\" class=\"sortable\"></table>\n"
	      "<h3>Per call path</h3><table id=\"critpath-paths\" class=\"sortable\">"
	      "</table>\n</section>\n"
	      "<section id=\"meta-section\"><h2>Trace</h2><table id=\"meta\"></table></section>\n"
	      "<div id=\"tooltip\"></div>\n"
	      "<script type=\"application/json\" id=\"vt-data\">{",
	      out);
	meta(r, out);
	definitions(r, out);
	fputs(",\n\"slices\":[", out);
	int rc = copy_members(r->slices, out);
	fputs("]", out);
	bins(r, out);
	fputs(",\n\"messages\":[", out);
	rc |= copy_members(r->messages, out);
	fputs("],\n\"marks\":[", out);
	rc |= copy_members(r->marks, out);
	fputs("],\n\"threads\":[", out);
	rc |= copy_members(r->threads, out);
	fputs("]", out);
	thread_model(r, out);
	counters(r, out);
	io_data(r, out);
	memory_data(r, out);
	profiles(r, out);
	samples(r, out);
	mpi(r, out);
	fprintf(out, ",\n\"waits\":%s,\n\"critpath\":%s", r->waits ? r->waits : "null",
		r->critpath ? r->critpath : "null");
	fputs("}</script>\n<script>\n", out);
	fputs(vt_report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	if (rc)
		snprintf(err, errlen, "cannot read back a temporary file");
	return rc ? -1 : 0;
}
