/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-export: writes an OTF2 trace in another tool's format; options, exit codes, messages. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chrome.h"
#include "vtr.h"
#include "vtr_cli.h"
#include "vtr_out.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

/* Exit codes, documented in docs/vt-export.md. */
enum { EXIT_CLEAN = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "Usage: vt-export --chrome [OPTION]... TRACE.otf2 -o OUTPUT\n"
    "Write an OTF2 trace as Chrome trace-event JSON, which Perfetto's UI\n"
    "(ui.perfetto.dev) and chrome://tracing open: processes are the trace's\n"
    "processes (MPI ranks), threads its locations, regions slices, MPI messages\n"
    "flow arrows, metrics counter tracks. Memory does not grow with the trace.\n"
    "\n"
    "  -c, --chrome         Chrome trace-event JSON (the only format, the default)\n"
    "  -o, --output=FILE    where to write; FILE.gz is written gzip-compressed,\n"
    "                       - is standard output\n"
    "  -f, --force          replace an existing OUTPUT (never followed if a link)\n"
    "  -w, --window=T0:T1   only the events from T0 to T1, in seconds after the\n"
    "                       trace's clock offset (either may be left out); regions\n"
    "                       open at T0 begin there, those open at T1 end there\n"
    "  -q, --quiet          no progress line on stderr (a terminal's, after 1 s)\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 if the trace is consistent, 1 if it has problems (listed as\n"
    "warnings; the output is still written), 2 on a usage error, a trace that\n"
    "cannot be read (then no output is left behind) or an output that cannot be\n"
    "written.\n";

static bool parse_seconds(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return !errno && *end == '\0' && *out >= 0 && *out == *out;
}

static void parse_window(const char *arg, struct vt_export_options *opt)
{
	const char *colon = strchr(arg, ':');
	if (!colon)
		vtr_usage_error("--window: '%s' is not T0:T1 (seconds)", arg);
	size_t n0 = (size_t)(colon - arg), n1 = strlen(colon + 1);
	opt->window = true;
	opt->from = 0;
	opt->to = -1;
	if ((n0 && !parse_seconds(arg, n0, &opt->from)) ||
	    (n1 && !parse_seconds(colon + 1, n1, &opt->to)))
		vtr_usage_error("--window: '%s' is not T0:T1 (seconds)", arg);
	if (n1 && opt->to < opt->from)
		vtr_usage_error("--window: '%s' ends before it begins", arg);
}

int main(int argc, char **argv)
{
	vtr_cli_tool = "vt-export";
	// clang-format off
	static const struct option longopts[] = {
	    {"chrome", no_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'},
	    {"window", required_argument, NULL, 'w'},
	    {"help", no_argument, NULL, 'h'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"version", no_argument, NULL, 'V'},
	    {"force", no_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	// clang-format on
	struct vt_export_options opt = {.max_warnings = 20};
	bool force = false, quiet = false;
	const char *output = NULL;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":co:w:fqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			break;
		case 'o':
			output = optarg;
			break;
		case 'w':
			parse_window(optarg, &opt);
			break;
		case 'f':
			force = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_CLEAN;
		case 'V':
			printf("vt-export (vt) %s\n", VT_VERSION);
			return EXIT_CLEAN;
		default: /* '?' or ':' */
			vtr_cli_bad_option(c, argv);
		}
	}
	const char *path = vtr_cli_trace(argc, argv);
	vtr_progress_setup(quiet);
	if (!output)
		vtr_usage_error("no output given (-o FILE)");

	struct vtr_trace t;
	char err[512];
	if (vtr_open(&t, path) < 0) {
		fprintf(stderr, "vt-export: %s: %s\n", path, t.err);
		vtr_close(&t);
		return EXIT_USAGE;
	}
	FILE *out = vtr_out_open(output, force, err, sizeof(err));
	if (!out) {
		fprintf(stderr, "vt-export: %s: %s\n", output, err);
		vtr_close(&t);
		return EXIT_USAGE;
	}
	struct vt_export_counts n;
	int rc = vt_export_chrome(&t, &opt, out, stderr, &n, err, sizeof(err));
	if (rc == 0 && n.events == 0) {
		snprintf(err, sizeof(err), "the trace has no events");
		rc = -1;
	}
	if (rc < 0) {
		fprintf(stderr, "vt-export: %s: %s\n", path, err);
		vtr_out_abort(out);
		vtr_close(&t);
		return EXIT_USAGE;
	}
	vtr_close(&t);
	if (vtr_out_close(out, err, sizeof(err)) < 0) {
		fprintf(stderr, "vt-export: %s: %s\n", output, err);
		return EXIT_USAGE;
	}
	if (n.problems > opt.max_warnings)
		fprintf(stderr, "vt-export: warning: %" PRIu64 " more problems not listed\n",
			n.problems - opt.max_warnings);
	return n.problems ? EXIT_PROBLEMS : EXIT_CLEAN;
}
