/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --threads: per-thread times in OpenMP constructs and the OpenMP imbalance. */
/*
 * vt-profile --threads: the thread model of libvtprof (threads.h), read in a pass of its own.
 * First per thread (location) its time in parallel regions, barriers, tasks, taskwaits,
 * critical regions, pthread calls and held locks, and its task and lock counts; then the
 * OpenMP imbalance: per parallel region the work of each thread (its time there minus its
 * barriers) and per barrier region each thread's waiting, with their maximum, mean,
 * max/mean (1: even) and max - mean (what the slowest thread costs the others).
 */
#include "threads.h"
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One construct's rows: per location its value and calls, the spreads of work and wait. */
struct row {
	size_t c; /* construct index */
	struct vt_prof_spread work, wait;
	uint64_t *vals, *waits, *calls;
};

static const struct vt_prof_threads *sort_model;
static enum vt_prof_sort sort_key;

static const char *region_name(const struct vt_prof_threads *m, size_t c)
{
	return m->t->regions[m->constructs[c]].name;
}

/* Largest max - mean first (by name with --sort name), ties by name then region id. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (sort_key != VT_PROF_SORT_NAME && a->work.excess != b->work.excess)
		return a->work.excess < b->work.excess ? 1 : -1;
	int c = strcmp(region_name(sort_model, a->c), region_name(sort_model, b->c));
	return c ? c : (a->c > b->c) - (a->c < b->c);
}

static const char *kind_name(const struct vt_prof_threads *m, size_t c)
{
	return m->construct_kind[c] == VT_PROF_PARALLEL ? "parallel" : "barrier";
}

#define NTIMES 7
static const char *const time_names[NTIMES] = {"parallel", "barrier",	"task",	  "taskwait",
					       "critical", "lock_held", "pthread"};
#define NCOUNTS 8
static const char *const count_names[NCOUNTS] = {
    "forks",	       "teams", "tasks_created",   "task_switches",
    "tasks_completed", "locks", "threads_created", "threads_waited"};

static void times_of(const struct vt_prof_thr_loc *l, uint64_t v[NTIMES])
{
	const uint64_t x[NTIMES] = {l->parallel, l->barrier,   l->task,	  l->taskwait,
				    l->critical, l->lock_held, l->pthread};
	memcpy(v, x, sizeof(x));
}

static void counts_of(const struct vt_prof_thr_loc *l, uint64_t v[NCOUNTS])
{
	const uint64_t x[NCOUNTS] = {l->forks,		 l->teams,	     l->tasks_created,
				     l->task_switches,	 l->tasks_completed, l->locks,
				     l->threads_created, l->threads_waited};
	memcpy(v, x, sizeof(x));
}

static void text(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_threads *m,
		 const struct row *rows, size_t shown, size_t n)
{
	const struct vtr_trace *t = m->t;
	uint64_t res = tr->timer_resolution;
	char b[NTIMES][32];
	fprintf(out, "threads of %s: %zu location%s\n\n", tr->path, t->nlocations,
		t->nlocations == 1 ? "" : "s");
	if (!m->any) {
		fputs("  (no OpenMP region, no thread event)\n", out);
		return;
	}
	fputs("time per thread\n", out);
	fprintf(out, "%10s  %10s  %10s  %10s  %10s  %10s  %10s  %7s  %7s  %5s  location\n",
		"parallel", "barrier", "task", "taskwait", "critical", "lock held", "pthread",
		"created", "done", "locks");
	for (size_t i = 0; i < t->nlocations; i++) {
		const struct vt_prof_thr_loc *l = &m->locs[i];
		if (!l->any)
			continue;
		uint64_t v[NTIMES];
		times_of(l, v);
		for (int k = 0; k < NTIMES; k++)
			vt_prof_format_time(b[k], sizeof(b[k]), (double)v[k], res);
		fprintf(out,
			"%10s  %10s  %10s  %10s  %10s  %10s  %10s  %7" PRIu64 "  %7" PRIu64
			"  %5" PRIu64 "  %s\n",
			b[0], b[1], b[2], b[3], b[4], b[5], b[6], l->tasks_created,
			l->tasks_completed, l->locks, t->locations[i].name);
	}
	fputs("\nOpenMP imbalance: parallel regions (work: time minus barriers) and barriers "
	      "(waiting), per thread\n",
	      out);
	if (!n)
		fputs("  (no parallel or barrier region was entered)\n", out);
	for (size_t r = 0; r < shown; r++) {
		const struct row *x = &rows[r];
		const struct vt_prof_spread *s = &x->work;
		char mx[32], mean[32], ex[32];
		vt_prof_format_time(mx, sizeof(mx), (double)s->max, res);
		vt_prof_format_time(mean, sizeof(mean), s->mean, res);
		vt_prof_format_time(ex, sizeof(ex), s->excess, res);
		bool par = m->construct_kind[x->c] == VT_PROF_PARALLEL;
		fprintf(out, "\n%s %s: %s max %s, mean %s, max/mean %.3f, max-mean %s\n",
			kind_name(m, x->c), region_name(m, x->c), par ? "work" : "waiting", mx,
			mean, s->ratio, ex);
		fprintf(out, "  %7s  %10s%s  location\n", "calls", par ? "work" : "waiting",
			par ? "     barrier" : "");
		for (size_t i = 0; i < t->nlocations; i++) {
			if (!x->calls[i])
				continue;
			char v[32], w[32];
			vt_prof_format_time(v, sizeof(v), (double)x->vals[i], res);
			vt_prof_format_time(w, sizeof(w), (double)x->waits[i], res);
			char col[40] = "";
			if (par)
				snprintf(col, sizeof(col), "  %10s", w);
			fprintf(out, "  %7" PRIu64 "  %10s%s  %s\n", x->calls[i], v, col,
				t->locations[i].name);
		}
	}
	if (shown < n)
		fprintf(out, "\n  (%zu more regions not shown)\n", n - shown);
}

static void csv(FILE *out, const struct vt_prof_threads *m, const struct row *rows, size_t shown)
{
	const struct vtr_trace *t = m->t;
	fputs("location_id,location", out);
	for (int k = 0; k < NTIMES; k++)
		fprintf(out, ",%s_ticks", time_names[k]);
	for (int k = 0; k < NCOUNTS; k++)
		fprintf(out, ",%s", count_names[k]);
	putc('\n', out);
	for (size_t i = 0; i < t->nlocations; i++) {
		if (!m->locs[i].any)
			continue;
		uint64_t v[NTIMES], c[NCOUNTS];
		times_of(&m->locs[i], v);
		counts_of(&m->locs[i], c);
		fprintf(out, "%" PRIu64 ",", t->locations[i].id);
		vt_prof_csv_field(out, t->locations[i].name);
		for (int k = 0; k < NTIMES; k++)
			fprintf(out, ",%" PRIu64, v[k]);
		for (int k = 0; k < NCOUNTS; k++)
			fprintf(out, ",%" PRIu64, c[k]);
		putc('\n', out);
	}
	fputs("\nkind,region,location_id,location,calls,work_ticks,wait_ticks,max_ticks,mean_ticks,"
	      "max_over_mean,max_minus_mean_ticks\n",
	      out);
	for (size_t r = 0; r < shown; r++) {
		const struct row *x = &rows[r];
		for (size_t i = 0; i < t->nlocations; i++) {
			if (!x->calls[i])
				continue;
			fprintf(out, "%s,", kind_name(m, x->c));
			vt_prof_csv_field(out, region_name(m, x->c));
			fprintf(out, ",%" PRIu64 ",", t->locations[i].id);
			vt_prof_csv_field(out, t->locations[i].name);
			fprintf(out,
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.4f,%.3f\n",
				x->calls[i], x->vals[i], x->waits[i], x->work.max, x->work.mean,
				x->work.ratio, x->work.excess);
		}
	}
}

static void json_spread(FILE *out, const char *name, const struct vt_prof_spread *s)
{
	fprintf(out,
		", \"%s\": {\"min_ticks\": %" PRIu64 ", \"max_ticks\": %" PRIu64
		", \"sum_ticks\": %" PRIu64 ", \"mean_ticks\": %.3f, \"max_over_mean\": %.6f"
		", \"max_minus_mean_ticks\": %.3f}",
		name, s->min, s->max, s->sum, s->mean, s->ratio, s->excess);
}

static void json(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_threads *m,
		 const struct row *rows, size_t shown)
{
	const struct vtr_trace *t = m->t;
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out, ",\n  \"timer_resolution\": %" PRIu64 ",\n  \"threads\": [",
		tr->timer_resolution);
	bool first = true;
	for (size_t i = 0; i < t->nlocations; i++) {
		if (!m->locs[i].any)
			continue;
		uint64_t v[NTIMES], c[NCOUNTS];
		times_of(&m->locs[i], v);
		counts_of(&m->locs[i], c);
		fprintf(out, "%s\n    {\"id\": %" PRIu64 ", \"name\": ", first ? "" : ",",
			t->locations[i].id);
		vtr_json_string(out, t->locations[i].name);
		fputs(", \"group\": ", out);
		vtr_json_string(out, t->locations[i].group_name);
		for (int k = 0; k < NTIMES; k++)
			fprintf(out, ", \"%s_ticks\": %" PRIu64, time_names[k], v[k]);
		for (int k = 0; k < NCOUNTS; k++)
			fprintf(out, ", \"%s\": %" PRIu64, count_names[k], c[k]);
		putc('}', out);
		first = false;
	}
	fputs(first ? "],\n  \"constructs\": [" : "\n  ],\n  \"constructs\": [", out);
	for (size_t r = 0; r < shown; r++) {
		const struct row *x = &rows[r];
		fprintf(out,
			"%s\n    {\"id\": %" PRIu32 ", \"kind\": \"%s\", \"role\": %" PRIu32
			", \"name\": ",
			r ? "," : "", m->constructs[x->c], kind_name(m, x->c),
			t->regions[m->constructs[x->c]].role);
		vtr_json_string(out, region_name(m, x->c));
		json_spread(out, "work", &x->work);
		json_spread(out, "wait", &x->wait);
		fputs(", \"threads\": [", out);
		bool f = true;
		for (size_t i = 0; i < t->nlocations; i++) {
			if (!x->calls[i])
				continue;
			fprintf(out, "%s{\"location\": %" PRIu64 ", \"name\": ", f ? "" : ", ",
				t->locations[i].id);
			vtr_json_string(out, t->locations[i].name);
			fprintf(out,
				", \"calls\": %" PRIu64 ", \"work_ticks\": %" PRIu64
				", \"wait_ticks\": %" PRIu64 "}",
				x->calls[i], x->vals[i], x->waits[i]);
			f = false;
		}
		fputs("]}", out);
	}
	fputs(shown ? "\n  ]\n}\n" : "]\n}\n", out);
}

int vt_prof_report_threads(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			   FILE *out, char *err, size_t errlen)
{
	struct vt_prof_threads *m = vt_prof_threads_read(tr->layer, err, errlen);
	if (!m)
		return -1;
	size_t nl = m->nlocations, n = 0;
	struct row *rows = vtr_xcalloc(m->nconstructs + 1, sizeof(*rows));
	for (size_t c = 0; c < m->nconstructs; c++) {
		struct row *x = &rows[n];
		x->c = c;
		x->vals = vtr_xcalloc(nl + 1, sizeof(uint64_t));
		x->waits = vtr_xcalloc(nl + 1, sizeof(uint64_t));
		x->calls = vtr_xcalloc(nl + 1, sizeof(uint64_t));
		vt_prof_threads_values(m, c, false, x->vals, x->calls);
		vt_prof_threads_values(m, c, true, x->waits, x->calls);
		x->work = vt_prof_spread_of(x->vals, x->calls, nl);
		x->wait = vt_prof_spread_of(x->waits, x->calls, nl);
		if (x->work.locations) {
			n++;
		} else {
			free(x->vals);
			free(x->waits);
			free(x->calls);
		}
	}
	sort_model = m;
	sort_key = opt->sort;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	size_t shown = opt->top && opt->top < n ? opt->top : n;
	switch (opt->format) {
	case VT_PROF_TEXT:
		text(out, tr, m, rows, shown, n);
		break;
	case VT_PROF_CSV:
		csv(out, m, rows, shown);
		break;
	case VT_PROF_JSON:
		json(out, tr, m, rows, shown);
		break;
	}
	for (size_t i = 0; i < n; i++) {
		free(rows[i].vals);
		free(rows[i].waits);
		free(rows[i].calls);
	}
	free(rows);
	vt_prof_threads_free(m);
	return 0;
}
