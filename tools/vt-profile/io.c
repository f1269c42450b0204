/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --io: per file and process the I/O operations, bytes, time, sizes, the slowest. */
/*
 * vt-profile --io: libvtprof's I/O model (io.h), read in a pass of its own. Per file (of one
 * I/O paradigm: POSIX, ISOC, MPI-IO...) over all processes, then per file and process: the
 * operations completed per mode, the failed ones, handles opened, seeks, bytes read and
 * written, time in operations; per file the histogram of request sizes; the slowest
 * operations (--top N of them, 10 by default).
 */
#include "io.h"
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SLOWEST 10

static double secs(uint64_t ticks, uint64_t res)
{
	return res ? (double)ticks / (double)res : 0;
}

static const char *process_name(const struct vtr_trace *t, uint32_t group)
{
	return group < t->ngroups ? t->groups[group].name : "";
}

static void rank_text(FILE *out, uint32_t rank, int width, const char *none)
{
	if (rank != VTR_NONE)
		fprintf(out, "%*" PRIu32, width, rank);
	else
		fprintf(out, "%*s", width, none);
}

static uint64_t ops_of(const struct vt_prof_io_stats *s)
{
	return s->ops[VT_PROF_IO_READ] + s->ops[VT_PROF_IO_WRITE] + s->ops[VT_PROF_IO_FLUSH] +
	       s->failed;
}

static void stats_text(FILE *out, const struct vt_prof_io_stats *s, uint64_t res)
{
	fprintf(out,
		"%8" PRIu64 "  %8" PRIu64 "  %7" PRIu64 "  %6" PRIu64 "  %6" PRIu64 "  %6" PRIu64
		"  %14" PRIu64 "  %14" PRIu64 "  %12.6f",
		s->ops[VT_PROF_IO_READ], s->ops[VT_PROF_IO_WRITE], s->ops[VT_PROF_IO_FLUSH],
		s->failed, s->opens, s->seeks, s->read, s->written, secs(s->time, res));
}

static const char stats_head[] = "   reads    writes  flushes  failed   opens   seeks  "
				 "    bytes read   bytes written      time [s]";

static void sizes_text(FILE *out, const struct vt_prof_io_stats *s)
{
	for (int k = 0; k < 2; k++)
		for (unsigned b = 0; b < VT_PROF_IO_BUCKETS; b++) {
			if (!s->sizes[k][b])
				continue;
			uint64_t lo = vt_prof_io_bucket_low(b);
			if (b == 0)
				fprintf(out, "    %-5s  %22s", vt_prof_io_mode_names[k], "0");
			else if (b == VT_PROF_IO_BUCKETS - 1)
				fprintf(out, "    %-5s  %20" PRIu64 " +", vt_prof_io_mode_names[k],
					lo);
			else
				fprintf(out, "    %-5s  %10" PRIu64 " - %9" PRIu64,
					vt_prof_io_mode_names[k], lo, 2 * lo - 1);
			fprintf(out, "  %10" PRIu64 "\n", s->sizes[k][b]);
		}
}

static void report_text(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_io *m)
{
	const struct vtr_trace *t = m->t;
	uint64_t res = tr->timer_resolution;
	fprintf(out,
		"I/O profile of %s: %" PRIu64 " operation%s on %zu file%s, %" PRIu64
		" bytes read, %" PRIu64 " bytes written, %.6f s in I/O\n\n",
		tr->path, ops_of(&m->all), ops_of(&m->all) == 1 ? "" : "s", m->nfiles,
		m->nfiles == 1 ? "" : "s", m->all.read, m->all.written, secs(m->all.time, res));
	if (!m->any) {
		fputs("  (no I/O event: record with VT_IOTRACE=yes)\n", out);
		return;
	}
	fprintf(out, "per file:\n  %-8s  %s  file\n", "paradigm", stats_head);
	for (size_t f = 0; f < m->nfiles; f++) {
		fprintf(out, "  %-8s  ", m->files[f].paradigm);
		stats_text(out, &m->files[f].s, res);
		fprintf(out, "  %s\n", m->files[f].name);
	}
	fprintf(out, "\nper file and process:\n  %-8s  %4s  %s  process / file\n", "paradigm",
		"rank", stats_head);
	for (size_t i = 0; i < m->nrows; i++) {
		const struct vt_prof_io_row *r = &m->rows[i];
		fprintf(out, "  %-8s  ", m->files[r->file].paradigm);
		rank_text(out, r->rank, 4, "-");
		fputs("  ", out);
		stats_text(out, &r->s, res);
		fprintf(out, "  %s / %s\n", process_name(t, r->group), m->files[r->file].name);
	}
	fputs("\nrequest sizes (bytes asked for per operation, in powers of two):\n", out);
	for (size_t f = 0; f < m->nfiles; f++) {
		const struct vt_prof_io_stats *s = &m->files[f].s;
		if (!s->ops[VT_PROF_IO_READ] && !s->ops[VT_PROF_IO_WRITE] && !s->failed)
			continue;
		fprintf(out, "  %s %s\n    %-5s  %22s  %10s\n", m->files[f].paradigm,
			m->files[f].name, "op", "bytes", "operations");
		sizes_text(out, s);
	}
	fprintf(out, "\nslowest operations:\n  %12s  %4s  %-5s  %12s  %12s  %-8s  process / file\n",
		"time [s]", "rank", "op", "requested", "done", "paradigm");
	if (!m->top.n)
		fputs("  (none)\n", out);
	for (size_t i = 0; i < m->top.n; i++) {
		const struct vt_prof_io_op *o = &m->top.ops[i];
		const struct vt_prof_io_row *r = &m->rows[o->row];
		fprintf(out, "  %12.6f  ", secs(o->duration, res));
		rank_text(out, r->rank, 4, "-");
		fprintf(out, "  %-5s  %12" PRIu64 "  ", vt_prof_io_mode_names[o->mode],
			o->requested);
		if (o->failed)
			fprintf(out, "%12s", "failed");
		else
			fprintf(out, "%12" PRIu64, o->done);
		fprintf(out, "  %-8s  %s / %s\n", m->files[r->file].paradigm,
			process_name(t, r->group), m->files[r->file].name);
	}
	if (m->unmatched || m->open_at_end)
		fprintf(out,
			"\n%" PRIu64 " operation end%s without a begin, %" PRIu64
			" operation%s never ended: not counted\n",
			m->unmatched, m->unmatched == 1 ? "" : "s", m->open_at_end,
			m->open_at_end == 1 ? "" : "s");
}

/* ---- CSV: one header, a section per kind of row ---- */

static void csv_head(FILE *out, const char *section, const char *paradigm, const char *file)
{
	fprintf(out, "%s,", section);
	vt_prof_csv_field(out, paradigm);
	fputc(',', out);
	vt_prof_csv_field(out, file);
}

static void csv_process(FILE *out, const struct vtr_trace *t, uint32_t rank, uint32_t group)
{
	fputc(',', out);
	rank_text(out, rank, 0, "");
	fputc(',', out);
	if (group != VTR_NONE)
		vt_prof_csv_field(out, process_name(t, group));
}

static void csv_stats(FILE *out, const struct vt_prof_io_stats *s, uint64_t res)
{
	fprintf(out,
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%.9g,,,,,,,\n",
		s->ops[VT_PROF_IO_READ], s->ops[VT_PROF_IO_WRITE], s->ops[VT_PROF_IO_FLUSH],
		s->failed, s->opens, s->seeks, s->read, s->written, s->time, secs(s->time, res));
}

static void csv_sizes(FILE *out, const char *paradigm, const char *file,
		      const struct vt_prof_io_stats *s)
{
	for (int k = 0; k < 2; k++)
		for (unsigned b = 0; b < VT_PROF_IO_BUCKETS; b++) {
			if (!s->sizes[k][b])
				continue;
			csv_head(out, "sizes", paradigm, file);
			uint64_t lo = vt_prof_io_bucket_low(b);
			fprintf(out, ",,,,,,,,,,,,,%s,%" PRIu64 ",", vt_prof_io_mode_names[k], lo);
			if (b + 1 < VT_PROF_IO_BUCKETS)
				fprintf(out, "%" PRIu64, lo ? 2 * lo - 1 : 0);
			fprintf(out, ",%" PRIu64 ",,,\n", s->sizes[k][b]);
		}
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_io *m)
{
	const struct vtr_trace *t = m->t;
	uint64_t res = tr->timer_resolution;
	fputs("section,paradigm,file,rank,process,reads,writes,flushes,failed,opens,seeks,"
	      "bytes_read,bytes_written,time_ticks,time_s,op,size_low,size_high,count,requested,"
	      "done,begin_ticks\n",
	      out);
	for (size_t f = 0; f < m->nfiles; f++) {
		csv_head(out, "file", m->files[f].paradigm, m->files[f].name);
		csv_process(out, t, VTR_NONE, VTR_NONE);
		csv_stats(out, &m->files[f].s, res);
	}
	for (size_t i = 0; i < m->nrows; i++) {
		const struct vt_prof_io_row *r = &m->rows[i];
		csv_head(out, "process", m->files[r->file].paradigm, m->files[r->file].name);
		csv_process(out, t, r->rank, r->group);
		csv_stats(out, &r->s, res);
	}
	for (size_t f = 0; f < m->nfiles; f++)
		csv_sizes(out, m->files[f].paradigm, m->files[f].name, &m->files[f].s);
	for (size_t i = 0; i < m->top.n; i++) {
		const struct vt_prof_io_op *o = &m->top.ops[i];
		const struct vt_prof_io_row *r = &m->rows[o->row];
		csv_head(out, "slowest", m->files[r->file].paradigm, m->files[r->file].name);
		csv_process(out, t, r->rank, r->group);
		fprintf(out, ",,,,%s,,,,,%" PRIu64 ",%.9g,%s,,,,%" PRIu64 ",",
			o->failed ? "1" : "0", o->duration, secs(o->duration, res),
			vt_prof_io_mode_names[o->mode], o->requested);
		if (!o->failed)
			fprintf(out, "%" PRIu64, o->done);
		fprintf(out, ",%" PRIu64 "\n", o->begin);
	}
}

/* ---- JSON ---- */

static void json_stats(FILE *out, const struct vt_prof_io_stats *s)
{
	fprintf(out,
		"\"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"flushes\": %" PRIu64
		", \"failed\": %" PRIu64 ", \"opens\": %" PRIu64 ", \"seeks\": %" PRIu64
		", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
		", \"time_ticks\": %" PRIu64 ", \"sizes\": {",
		s->ops[VT_PROF_IO_READ], s->ops[VT_PROF_IO_WRITE], s->ops[VT_PROF_IO_FLUSH],
		s->failed, s->opens, s->seeks, s->read, s->written, s->time);
	for (int k = 0; k < 2; k++) {
		fprintf(out, "%s\"%s\": [", k ? ", " : "", vt_prof_io_mode_names[k]);
		bool first = true;
		for (unsigned b = 0; b < VT_PROF_IO_BUCKETS; b++) {
			if (!s->sizes[k][b])
				continue;
			fprintf(out, "%s[%" PRIu64 ", %" PRIu64 "]", first ? "" : ", ",
				vt_prof_io_bucket_low(b), s->sizes[k][b]);
			first = false;
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void json_process(FILE *out, const struct vtr_trace *t, uint32_t rank, uint32_t group)
{
	fputs("\"rank\": ", out);
	rank_text(out, rank, 0, "null");
	fputs(", \"process\": ", out);
	vtr_json_string(out, process_name(t, group));
}

static void report_json(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_io *m)
{
	const struct vtr_trace *t = m->t;
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out,
		",\n  \"timer_resolution\": %" PRIu64 ",\n  \"unmatched\": %" PRIu64
		",\n  \"open_at_end\": %" PRIu64 ",\n  \"all\": {",
		tr->timer_resolution, m->unmatched, m->open_at_end);
	json_stats(out, &m->all);
	fputs("},\n  \"files\": [", out);
	size_t r = 0;
	for (size_t f = 0; f < m->nfiles; f++) {
		fprintf(out, "%s\n    {\"paradigm\": ", f ? "," : "");
		vtr_json_string(out, m->files[f].paradigm);
		fputs(", \"file\": ", out);
		vtr_json_string(out, m->files[f].name);
		fputs(", ", out);
		json_stats(out, &m->files[f].s);
		fputs(",\n     \"processes\": [", out);
		for (bool first = true; r < m->nrows && m->rows[r].file == f; r++, first = false) {
			fprintf(out, "%s\n       {", first ? "" : ",");
			json_process(out, t, m->rows[r].rank, m->rows[r].group);
			fputs(", ", out);
			json_stats(out, &m->rows[r].s);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputs(m->nfiles ? "\n  ],\n  \"slowest\": [" : "],\n  \"slowest\": [", out);
	for (size_t i = 0; i < m->top.n; i++) {
		const struct vt_prof_io_op *o = &m->top.ops[i];
		const struct vt_prof_io_row *row = &m->rows[o->row];
		fprintf(out, "%s\n    {\"time_ticks\": %" PRIu64 ", \"begin_ticks\": %" PRIu64 ", ",
			i ? "," : "", o->duration, o->begin);
		json_process(out, t, row->rank, row->group);
		fputs(", \"location\": ", out);
		vtr_json_string(out, t->locations[o->location].name);
		fputs(", \"paradigm\": ", out);
		vtr_json_string(out, m->files[row->file].paradigm);
		fputs(", \"file\": ", out);
		vtr_json_string(out, m->files[row->file].name);
		fprintf(out, ", \"op\": \"%s\", \"requested\": %" PRIu64 ", \"done\": ",
			vt_prof_io_mode_names[o->mode], o->requested);
		if (o->failed)
			fputs("null, \"failed\": true}", out);
		else
			fprintf(out, "%" PRIu64 ", \"failed\": false}", o->done);
	}
	fputs(m->top.n ? "\n  ]\n}\n" : "]\n}\n", out);
}

int vt_prof_report_io(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		      char *err, size_t errlen)
{
	struct vt_prof_io *m =
	    vt_prof_io_read(tr->layer, opt->top ? opt->top : DEFAULT_SLOWEST, err, errlen);
	if (!m)
		return -1;
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, m);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, m);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, m);
		break;
	}
	vt_prof_io_free(m);
	return 0;
}
