/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --compare A B: two traces' profiles side by side. */
/*
 * vt-profile --compare A B: per region (matched by name) and per location (matched by
 * position, as vt-sim keeps them) the calls and exclusive time in A and in B, the
 * difference and the ratio; regions sorted by the size of the change.
 */
#include "compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "vtr_cli.h"

static const char compare_usage[] =
    "Usage: vt-profile --compare [-n N] [-l] [-q] A.otf2 B.otf2\n"
    "Compare two traces of the same program (a trace and its vt-sim what-if, two runs):\n"
    "per region (by name) calls and exclusive time in A and B, difference and ratio,\n"
    "sorted by the size of the difference; then per location the time from its first to\n"
    "its last event and its exclusive time in MPI regions.\n"
    "  -n N   show only the N regions that changed most (0: all; default 0)\n"
    "  -l     also per location: its regions' calls and exclusive time in A and B\n"
    "  -q     no progress line on stderr (a terminal's, after 1 s)\n";

struct row {
	const char *name;
	uint64_t calls_a, calls_b;
	double excl_a, excl_b; /* seconds */
};

static int by_change(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	double da = a->excl_b - a->excl_a, db = b->excl_b - b->excl_a;
	da = da < 0 ? -da : da;
	db = db < 0 ? -db : db;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static double secs(const struct vt_prof_trace *tr, uint64_t ticks)
{
	return tr->timer_resolution ? (double)ticks / (double)tr->timer_resolution : 0;
}

static int cmp_names(const void *x, const void *y)
{
	return strcmp(((const struct row *)x)->name, ((const struct row *)y)->name);
}

static void ratio(char *buf, size_t n, double a, double b)
{
	if (a > 0)
		snprintf(buf, n, "%.3f", b / a);
	else
		snprintf(buf, n, "%s", b > 0 ? "new" : "-");
}

/* Rows merged by name and sorted by the size of the change; returns their number. */
static size_t merge_rows(struct row *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), cmp_names);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(rows[m - 1].name, rows[i].name)) {
			rows[m - 1].calls_a += rows[i].calls_a;
			rows[m - 1].calls_b += rows[i].calls_b;
			rows[m - 1].excl_a += rows[i].excl_a;
			rows[m - 1].excl_b += rows[i].excl_b;
		} else {
			rows[m++] = rows[i];
		}
	}
	qsort(rows, m, sizeof(*rows), by_change);
	return m;
}

static void print_rows(const struct row *rows, size_t m, size_t top, const char *indent)
{
	for (size_t i = 0; i < m && (!top || i < top); i++) {
		char q[32], name[64];
		ratio(q, sizeof(q), rows[i].excl_a, rows[i].excl_b);
		snprintf(name, sizeof(name), "%s%s", indent, rows[i].name);
		printf("%-32s %10" PRIu64 " %10" PRIu64 " %14.9f %14.9f %+14.9f %8s\n", name,
		       rows[i].calls_a, rows[i].calls_b, rows[i].excl_a, rows[i].excl_b,
		       rows[i].excl_b - rows[i].excl_a, q);
	}
}

static double mpi_excl(const struct vt_prof_trace *tr, const struct vt_prof_location *l)
{
	uint64_t t = 0;
	for (size_t i = 0; i < l->nregions; i++) {
		const char *name = tr->regions[l->regions[i].region].name;
		if (name && !strncmp(name, "MPI_", 4))
			t += l->regions[i].excl;
	}
	return secs(tr, t);
}

int vt_prof_compare_main(int argc, char **argv)
{
	const char *path[2] = {NULL, NULL};
	size_t top = 0, npaths = 0;
	bool per_location = false, quiet = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(compare_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "--per-location")) {
			per_location = true;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			char *end;
			top = strtoul(argv[++i], &end, 10);
			if (*end || !*argv[i] || argv[i][0] == '-') {
				fprintf(stderr, "vt-profile: --compare -n: '%s' is not a count\n",
					argv[i]);
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr,
				"vt-profile: --compare: unknown option '%s' (see vt-profile "
				"--compare --help)\n",
				argv[i]);
			return 2;
		} else if (npaths < 2) {
			path[npaths++] = argv[i];
		} else {
			fprintf(stderr, "vt-profile: --compare: two traces, got a third: '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (npaths != 2) {
		fprintf(stderr, "vt-profile: --compare: expected two traces, A.otf2 B.otf2\n");
		return 2;
	}
	vtr_progress_setup(quiet);
	struct vt_prof_trace tr[2] = {{0}, {0}};
	for (int k = 0; k < 2; k++) {
		char err[512];
		tr[k].path = path[k];
		if (vt_prof_read(&tr[k], err, sizeof(err)) != 0) {
			fprintf(stderr, "vt-profile: %s: %s\n", path[k], err);
			vt_prof_free(&tr[0]);
			vt_prof_free(&tr[1]);
			return 2;
		}
	}
	/* Rows by name: A's regions, then B's that A lacks. */
	size_t cap = tr[0].nregions + tr[1].nregions + 1, n = 0;
	struct row *rows = vtr_xcalloc(cap, sizeof(*rows));
	for (int k = 0; k < 2; k++)
		for (size_t r = 0; r < tr[k].nregions; r++) {
			const struct vt_prof_region *g = &tr[k].regions[r];
			if (!g->defined || !g->calls)
				continue;
			rows[n++] = (struct row){g->name, k ? 0 : g->calls, k ? g->calls : 0,
						 k ? 0 : secs(&tr[k], g->excl),
						 k ? secs(&tr[k], g->excl) : 0};
		}
	size_t m = merge_rows(rows, n);
	printf("A: %s\nB: %s\n", path[0], path[1]);
	printf("%-32s %10s %10s %14s %14s %14s %8s\n", "region", "calls A", "calls B", "excl A (s)",
	       "excl B (s)", "B - A (s)", "B / A");
	print_rows(rows, m, top, "");
	printf("\n%-32s %14s %14s %8s %14s %14s %8s\n", "location", "span A (s)", "span B (s)",
	       "B / A", "MPI A (s)", "MPI B (s)", "B / A");
	size_t nl = tr[0].nlocations > tr[1].nlocations ? tr[0].nlocations : tr[1].nlocations;
	for (size_t i = 0; i < nl; i++) {
		const struct vt_prof_location *la =
		    i < tr[0].nlocations ? &tr[0].locations[i] : NULL;
		const struct vt_prof_location *lb =
		    i < tr[1].nlocations ? &tr[1].locations[i] : NULL;
		const struct vt_prof_location *l = la ? la : lb;
		char name[33], q1[32], q2[32];
		snprintf(name, sizeof(name), "%s %s", l->group_name ? l->group_name : "", l->name);
		double sa = la && la->any_event ? secs(&tr[0], la->last - la->first) : 0;
		double sb = lb && lb->any_event ? secs(&tr[1], lb->last - lb->first) : 0;
		double ma = la ? mpi_excl(&tr[0], la) : 0, mb = lb ? mpi_excl(&tr[1], lb) : 0;
		ratio(q1, sizeof(q1), sa, sb);
		ratio(q2, sizeof(q2), ma, mb);
		printf("%-32s %14.9f %14.9f %8s %14.9f %14.9f %8s\n", name, sa, sb, q1, ma, mb, q2);
	}
	/* Per location, with -l: its regions, as above. */
	for (size_t i = 0; per_location && i < nl; i++) {
		size_t k = 0;
		for (int t = 0; t < 2; t++) {
			if (i >= tr[t].nlocations)
				continue;
			const struct vt_prof_location *l = &tr[t].locations[i];
			for (size_t r = 0; r < l->nregions && k < cap; r++) {
				const struct vt_prof_loc_region *x = &l->regions[r];
				const char *name = tr[t].regions[x->region].name;
				double e = secs(&tr[t], x->excl);
				rows[k++] = (struct row){name ? name : "", t ? 0 : x->calls,
							 t ? x->calls : 0, t ? 0 : e, t ? e : 0};
			}
		}
		const struct vt_prof_location *l =
		    i < tr[0].nlocations ? &tr[0].locations[i] : &tr[1].locations[i];
		printf("\n%s %s:\n", l->group_name ? l->group_name : "", l->name);
		print_rows(rows, merge_rows(rows, k), top, "  ");
	}
	double da = tr[0].any_event ? secs(&tr[0], tr[0].last - tr[0].first) : 0;
	double db = tr[1].any_event ? secs(&tr[1], tr[1].last - tr[1].first) : 0;
	char q[32];
	ratio(q, sizeof(q), da, db);
	printf("%-32s %14.9f %14.9f %8s\n", "whole trace", da, db, q);
	int status = tr[0].total_problems || tr[1].total_problems ? 1 : 0;
	free(rows);
	vt_prof_free(&tr[0]);
	vt_prof_free(&tr[1]);
	return status;
}
