/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report: writes one self-contained HTML report of an OTF2 trace; options, exit codes. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt_report.h"
#include "vtr_cli.h"
#include "vtr_out.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

/* Exit codes, documented in docs/vt-report.md. */
enum { EXIT_CLEAN = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "Usage: vt-report [OPTION]... TRACE.otf2 -o REPORT.html\n"
    "Write one self-contained HTML page about an OTF2 trace (no network needed to\n"
    "open it): a timeline with a row per location, messages and collectives, zoom\n"
    "and pan; counter plots on the same time axis; the flat and call-path profiles\n"
    "as sortable tables; the load per rank (user code vs MPI); an MPI summary\n"
    "(message matrix, sizes, collectives); a flame graph of the calling-context\n"
    "samples when the trace has them; I/O per file and process (operations,\n"
    "bytes, time, request sizes, the slowest operations) and the memory high-water\n"
    "mark per process; the trace's metadata.\n"
    "\n"
    "  -o, --output=FILE    where to write (- for standard output); required\n"
    "  -f, --force          replace an existing FILE (never followed if a link)\n"
    "  -b, --budget=N       slices kept one by one (default 250000); a trace with\n"
    "                       more events gets levels of detail instead, so that the\n"
    "                       page's size does not grow with the trace\n"
    "  -m, --min-share=PCT  flame graph frames with less than PCT percent of the\n"
    "                       samples are merged into one (other) per caller\n"
    "                       (default 0.1; from 0.0001 to 100)\n"
    "  -q, --quiet          no progress line on stderr (a terminal's, after 1 s)\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 if the trace is consistent, 1 if it has problems (the report is\n"
    "still written and says how many), 2 on a usage error, a trace that cannot be\n"
    "read (then no report is left behind) or a report that cannot be written.\n";

static uint64_t parse_count(const char *option, const char *value)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-' || v == 0)
		vtr_usage_error("%s: '%s' is not a positive count", option, value);
	return v;
}

/* A percentage as millionths of the whole: 0.0001 to 100. */
static uint32_t parse_share(const char *option, const char *value)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (errno || end == value || *end || !(v >= 0.0001 && v <= 100))
		vtr_usage_error("%s: '%s' is not a percentage from 0.0001 to 100", option, value);
	return (uint32_t)(v * 1e4 + 0.5);
}

static int fail(const char *what, const char *err, struct vt_report *r, FILE *out)
{
	fprintf(stderr, "vt-report: %s: %s\n", what, err);
	vtr_out_abort(out);
	vt_report_free(r);
	vt_prof_free(r->prof);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	vtr_cli_tool = "vt-report";
	// clang-format off
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"budget", required_argument, NULL, 'b'},
	    {"min-share", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"version", no_argument, NULL, 'V'},
	    {"force", no_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	// clang-format on
	bool force = false, quiet = false;
	struct vt_report_options opt = {.budget = 250000,
					.max_messages = 50000,
					.max_marks = 50000,
					.flame_ppm = VT_REPORT_FLAME_PPM};
	const char *output = NULL;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:b:m:fqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'b':
			opt.budget = parse_count("--budget", optarg);
			opt.max_messages = opt.max_marks = opt.budget / 5 + 1;
			break;
		case 'm':
			opt.flame_ppm = parse_share("--min-share", optarg);
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_CLEAN;
		case 'V':
			printf("vt-report (vt) %s\n", VT_VERSION);
			return EXIT_CLEAN;
		default: /* '?' or ':' */
			vtr_cli_bad_option(c, argv);
		}
	}
	const char *trace = vtr_cli_trace(argc, argv);
	vtr_progress_setup(quiet);
	if (!output)
		vtr_usage_error("no output given (-o FILE)");

	struct vt_prof_trace prof = {.path = trace};
	struct vt_report r = {.opt = &opt, .prof = &prof};
	char err[512];
	if (vt_prof_read(&prof, err, sizeof(err)) != 0)
		return fail(prof.path, err, &r, NULL);
	r.t = prof.layer;
	if (prof.total_events == 0)
		return fail(prof.path, "the trace has no events", &r, NULL);
	if (vt_report_collect(&r, err, sizeof(err)) != 0)
		return fail(prof.path, err, &r, NULL);
	if (vt_report_waits(&r, err, sizeof(err)) != 0)
		return fail(prof.path, err, &r, NULL);
	FILE *out = vtr_out_open(output, force, err, sizeof(err));
	if (!out)
		return fail(output, err, &r, NULL);
	if (vt_report_html(&r, out, err, sizeof(err)) != 0)
		return fail(prof.path, err, &r, out);
	uint64_t problems = r.problems + prof.total_problems;
	vt_report_free(&r);
	vt_prof_free(&prof);
	if (vtr_out_close(out, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-report: %s: %s\n", output, err);
		return EXIT_USAGE;
	}
	if (problems)
		fprintf(stderr,
			"vt-report: warning: %s: %" PRIu64 " problem(s) in the trace "
			"(vt-profile lists them)\n",
			prof.path, problems);
	return problems ? EXIT_PROBLEMS : EXIT_CLEAN;
}
