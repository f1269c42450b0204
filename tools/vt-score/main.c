/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-score: each region's cost in trace size and run time, and a filter that keeps it small. */
/*
 * vt-score: what each region of a trace cost in trace size and run time, and a filter that
 * keeps the trace small. From the flat profile (vt-profile's model): per region its calls,
 * the trace bytes they caused (two events per call at the trace's own bytes per event) and
 * its time per call; a region called at least --min-calls times whose calls take at most
 * --max-ns each (inclusive) is proposed for the filter, unless it is not a compiler-
 * instrumented function (MPI, the user API, perfstubs: never). The estimate: the trace's
 * events and bytes without the proposed regions' events, and vt's added run time at
 * --ns-per-event per recorded event (a filtered call costs nothing with -vt:filter at
 * compile time, a little with VT_FILTER_SPEC at run time: docs/vt-score.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile.h"
#include "vtr_cli.h"
#include "vtr_out.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_USAGE = 2 };

static const char usage_text[] =
    "Usage: vt-score [OPTION]... TRACE.otf2\n"
    "Print per region the calls, the trace bytes they caused and the time per call,\n"
    "propose a filter for the small, often called functions, and estimate the trace\n"
    "and vt's added run time with it.\n"
    "\n"
    "  -o, --output=FILE      write the proposed filter to FILE (VT_FILTER_SPEC and\n"
    "                         vtcc -vt:filter take it)\n"
    "  -f, --force            replace an existing FILE (never followed if a link)\n"
    "  -c, --min-calls=N      propose regions called at least N times (default 10000)\n"
    "  -t, --max-ns=NS        ... whose calls take at most NS nanoseconds each,\n"
    "                         inclusive (default 1000)\n"
    "  -e, --ns-per-event=NS  vt's cost of one recorded event, for the estimate\n"
    "                         (default 15, docs/bench.md)\n"
    "  -n, --top=N            list only the N costliest regions (default 20; 0: all)\n"
    "  -q, --quiet            no progress line on stderr (a terminal's, after 1 s)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Regions other than compiler-instrumented functions (MPI, the user API, perfstubs)\n"
    "are never proposed. Exit status: 0, or 2 on a usage error or a trace that cannot\n"
    "be read.\n";

struct options {
	const char *output;
	bool force;
	uint64_t min_calls;
	double max_ns, ns_per_event;
	size_t top;
};

static double number(const char *option, const char *value, bool whole)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (errno || end == value || *end || v < 0 || (whole && v != (double)(uint64_t)v))
		vtr_usage_error("%s: '%s' is not a %snumber >= 0", option, value,
				whole ? "whole " : "");
	return v;
}

static void parse_args(int argc, char **argv, struct options *o, const char **path)
{
	// clang-format off
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"min-calls", required_argument, NULL, 'c'},
	    {"max-ns", required_argument, NULL, 't'},
	    {"ns-per-event", required_argument, NULL, 'e'},
	    {"top", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"version", no_argument, NULL, 'V'},
	    {"force", no_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	// clang-format on
	int c;
	bool quiet = false;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:c:t:e:n:fqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'c':
			o->min_calls = (uint64_t)number("--min-calls", optarg, true);
			break;
		case 't':
			o->max_ns = number("--max-ns", optarg, false);
			break;
		case 'e':
			o->ns_per_event = number("--ns-per-event", optarg, false);
			break;
		case 'n':
			o->top = (size_t)number("--top", optarg, true);
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case 'V':
			printf("vt-score (vt) %s\n", VT_VERSION);
			exit(EXIT_OK);
		default: /* '?' or ':' */
			vtr_cli_bad_option(c, argv);
		}
	}
	*path = vtr_cli_trace(argc, argv);
	vtr_progress_setup(quiet);
}

/* Bytes of the archive's event files (PATH without .otf2 is their folder); 0 if unknown. */
static uint64_t event_bytes(const char *anchor)
{
	size_t n = strlen(anchor);
	if (n < 5 || strcmp(anchor + n - 5, ".otf2") != 0)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", (int)(n - 5), anchor);
	DIR *d = opendir(dir);
	uint64_t total = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		char file[8192];
		struct stat st;
		if (l < 4 || strcmp(e->d_name + l - 4, ".evt") != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		if (stat(file, &st) == 0)
			total += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
	return total;
}

struct row {
	uint32_t id;
	uint64_t calls, bytes;
	double incl_ns, excl_ns; /* per call */
	const char *kind;
	bool proposed;
};

static int by_bytes(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const char *kind_of(uint32_t paradigm)
{
	switch (paradigm) {
	case OTF2_PARADIGM_COMPILER:
		return "COMPILER";
	case OTF2_PARADIGM_USER:
		return "USER";
	case OTF2_PARADIGM_MPI:
		return "MPI";
	default:
		return "OTHER";
	}
}

/* A region name as a filter pattern: the wildcard characters escaped; a ';' (which
 * separates patterns) stands for itself as '?'. */
static void write_pattern(FILE *f, const char *name)
{
	for (const char *c = name; *c; c++) {
		if (*c == ';')
			fputc('?', f);
		else if (*c == '*' || *c == '?' || *c == '[' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else
			fputc(*c, f);
	}
}

static int write_filter(const char *path, const struct vt_prof_trace *tr, const struct row *rows,
			size_t n, const struct options *o)
{
	char err[256];
	FILE *f = vtr_out_open(path, o->force, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "vt-score: %s: %s\n", path, err);
		return -1;
	}
	fprintf(f,
		"# vt filter proposed by vt-score for %s:\n"
		"# functions called at least %" PRIu64 " times, at most %g ns per call.\n"
		"# Use it with VT_FILTER_SPEC=FILE (run time) or vtcc -vt:filter FILE (compile "
		"time).\n",
		tr->path, o->min_calls, o->max_ns);
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].proposed)
			continue;
		write_pattern(f, tr->regions[rows[i].id].name);
		fprintf(f, " -- 0\n");
	}
	if (vtr_out_close(f, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-score: %s: %s\n", path, err);
		return -1;
	}
	return 0;
}

static void human(char *buf, size_t len, double bytes)
{
	const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* Each MPI function's group for VT_MPI_GROUPS (runtime/mpi/mpi.spec, docs/mpi.md). */
static const struct {
	const char *name, *group;
} mpi_groups[] = {
#include "vt-score-groups.h"
};

static const char *mpi_group_of(const char *name)
{
	for (size_t i = 0; i < sizeof(mpi_groups) / sizeof(mpi_groups[0]); i++)
		if (strcmp(mpi_groups[i].name, name) == 0)
			return mpi_groups[i].group;
	return NULL;
}

/*
 * The MPI groups whose regions take at least a tenth of the event files: each with its share,
 * its functions (by bytes) and the VT_MPI_GROUPS that leaves it out. rows: by bytes.
 */
static void mpi_advice(const struct vt_prof_trace *tr, const struct row *rows, size_t n,
		       uint64_t bytes)
{
	const char *seen[64];
	size_t nseen = 0;
	bool any = false;
	for (size_t i = 0; i < n && bytes; i++) {
		const char *g = strcmp(rows[i].kind, "MPI") == 0
				    ? mpi_group_of(tr->regions[rows[i].id].name)
				    : NULL;
		bool done = false;
		for (size_t k = 0; g && k < nseen; k++)
			done |= strcmp(seen[k], g) == 0;
		if (!g || done || nseen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[nseen++] = g;
		uint64_t b = 0;
		for (size_t j = i; j < n; j++)
			if (strcmp(rows[j].kind, "MPI") == 0) {
				const char *h = mpi_group_of(tr->regions[rows[j].id].name);
				if (h && strcmp(h, g) == 0)
					b += rows[j].bytes;
			}
		if ((double)b < 0.1 * (double)bytes)
			continue;
		if (!any)
			printf(
			    "\nMPI groups that dominate the trace (VT_MPI_GROUPS, docs/mpi.md):\n");
		any = true;
		printf("  %-9s %5.1f%%  leave it out: VT_MPI_GROUPS=DEFAULT%s%s\n   ", g,
		       100.0 * (double)b / (double)bytes, strcmp(g, "QUERY") == 0 ? "" : ",-",
		       strcmp(g, "QUERY") == 0 ? "" : g);
		for (size_t j = i, k = 0; j < n && k < 5; j++) {
			const char *h = strcmp(rows[j].kind, "MPI") == 0
					    ? mpi_group_of(tr->regions[rows[j].id].name)
					    : NULL;
			if (h && strcmp(h, g) == 0 && ++k)
				printf(" %s (%" PRIu64 " calls)", tr->regions[rows[j].id].name,
				       rows[j].calls);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	vtr_cli_tool = "vt-score";
	struct options o = {.min_calls = 10000, .max_ns = 1000, .ns_per_event = 15, .top = 20};
	struct vt_prof_trace tr = {0};
	char err[512];

	parse_args(argc, argv, &o, &tr.path);
	if (vt_prof_read(&tr, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-score: %s: %s\n", tr.path, err);
		vt_prof_free(&tr);
		return EXIT_USAGE;
	}
	uint64_t bytes = event_bytes(tr.path);
	double per_event = tr.total_events ? (double)bytes / (double)tr.total_events : 0;
	double ns_per_tick = tr.timer_resolution ? 1e9 / (double)tr.timer_resolution : 0;
	struct row *rows = vtr_xcalloc(tr.nregions + 1, sizeof(*rows));
	size_t n = 0;
	uint64_t cut_events = 0;
	for (uint32_t id = 0; id < tr.nregions; id++) {
		const struct vt_prof_region *r = &tr.regions[id];
		if (!r->calls)
			continue;
		struct row *w = &rows[n++];
		w->id = id;
		w->calls = r->calls;
		w->bytes = (uint64_t)(2.0 * (double)r->calls * per_event);
		w->incl_ns = (double)r->incl * ns_per_tick / (double)r->calls;
		w->excl_ns = (double)r->excl * ns_per_tick / (double)r->calls;
		uint32_t paradigm = tr.layer->regions[id].paradigm;
		w->kind = kind_of(paradigm);
		w->proposed = paradigm == OTF2_PARADIGM_COMPILER && r->calls >= o.min_calls &&
			      w->incl_ns <= o.max_ns;
		if (w->proposed)
			cut_events += 2 * r->calls;
	}
	qsort(rows, n, sizeof(*rows), by_bytes);
	/* Buffer flushes come with the bytes: as many fewer as the events are. */
	uint64_t flushes = tr.events[VTR_EV_BufferFlush];
	if (flushes && tr.total_events > flushes)
		cut_events += (uint64_t)((double)flushes * (double)cut_events /
					 (double)(tr.total_events - flushes));
	if (cut_events > tr.total_events)
		cut_events = tr.total_events;

	char now[32], after[32];
	human(now, sizeof(now), (double)bytes);
	human(after, sizeof(after), (double)(tr.total_events - cut_events) * per_event);
	printf("trace:  %s\n", tr.path);
	printf("events: %" PRIu64 ", %s in event files (%.2f bytes per event)\n", tr.total_events,
	       now, per_event);
	printf("\n%-8s %12s %10s %7s %12s %12s %-6s %s\n", "type", "calls", "trace", "share",
	       "incl ns/call", "excl ns/call", "filter", "region");
	for (size_t i = 0; i < n && (!o.top || i < o.top); i++) {
		char b[32];
		human(b, sizeof(b), (double)rows[i].bytes);
		printf("%-8s %12" PRIu64 " %10s %6.1f%% %12.1f %12.1f %-6s %s\n", rows[i].kind,
		       rows[i].calls, b, bytes ? 100.0 * (double)rows[i].bytes / (double)bytes : 0,
		       rows[i].incl_ns, rows[i].excl_ns, rows[i].proposed ? "yes" : "-",
		       tr.regions[rows[i].id].name);
	}
	if (o.top && n > o.top)
		printf("(%zu more regions; --top 0 lists all)\n", n - o.top);
	size_t proposed = 0;
	for (size_t i = 0; i < n; i++)
		proposed += rows[i].proposed;
	printf("\nproposed filter: %zu region%s (called >= %" PRIu64 " times, <= %g ns per call)\n",
	       proposed, proposed == 1 ? "" : "s", o.min_calls, o.max_ns);
	printf("estimate:        now              with the filter\n");
	printf("  events         %-16" PRIu64 " %" PRIu64 "\n", tr.total_events,
	       tr.total_events - cut_events);
	printf("  trace          %-16s %s\n", now, after);
	printf("  vt's run time  %-16.3f %.3f   (s, at %g ns per recorded event)\n",
	       (double)tr.total_events * o.ns_per_event * 1e-9,
	       (double)(tr.total_events - cut_events) * o.ns_per_event * 1e-9, o.ns_per_event);
	mpi_advice(&tr, rows, n, bytes);
	/* A short run (VT_MAX_FLUSHES) or a program that switched recording off: the figures
	 * are those of the recorded part. */
	if (tr.events[VTR_EV_MeasurementOnOff])
		printf("recording stopped or paused during the run (VT_MAX_FLUSHES, or the "
		       "program): these figures are for what was recorded; the shares and the "
		       "filter apply to the whole run\n");
	int rc = EXIT_OK;
	if (o.output) {
		if (write_filter(o.output, &tr, rows, n, &o) < 0)
			rc = EXIT_USAGE;
		else
			printf("filter written to %s\n", o.output);
	}
	free(rows);
	vt_prof_free(&tr);
	return rc;
}
