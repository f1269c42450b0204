/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile: prints the flat profile of an OTF2 trace; options, exit codes, error messages. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "profile.h"
#include "report.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

/* Exit codes, documented in docs/vt-profile.md. */
enum { EXIT_CLEAN = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "Usage: vt-profile [OPTION]... TRACE.otf2\n"
    "Print the flat profile of an OTF2 trace: per region the calls, inclusive and\n"
    "exclusive time, mean inclusive time per call and share of all exclusive time.\n"
    "\n"
    "  -f, --format=FMT     output format: text (default), csv or json\n"
    "  -s, --sort=KEY       sort regions by excl (default), incl, calls or name\n"
    "  -n, --top=N          show only the first N regions of each table (0: all)\n"
    "  -l, --per-location   also give the profile of each location\n"
    "  -S, --samples        the profiles of the trace's calling-context samples instead:\n"
    "                       per function the samples taken in it (self) and below it\n"
    "                       (total), then the call paths (docs/sampling.md)\n"
    "      --compare A B    compare two traces per region and location (--compare --help)\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 if the trace is consistent, 1 if it has problems (unbalanced\n"
    "Enter/Leave, decreasing timestamps; listed as warnings), 2 on a usage error or\n"
    "a trace that cannot be read.\n";

__attribute__((format(printf, 1, 2), noreturn)) static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("vt-profile: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see vt-profile --help)\n", stderr);
	exit(EXIT_USAGE);
}

static int pick(const char *option, const char *value, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	usage_error("%s: unknown value '%s'", option, value);
}

static size_t parse_count(const char *value)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-')
		usage_error("--top: '%s' is not a count", value);
	return (size_t)v;
}

static void parse_args(int argc, char **argv, struct vt_prof_options *opt, const char **path)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'}, {"sort", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 'n'},    {"per-location", no_argument, NULL, 'l'},
	    {"samples", no_argument, NULL, 'S'},      {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	/* Orders match the enums in report.h. */
	static const char *const formats[] = {"text", "csv", "json"};
	static const char *const sorts[] = {"excl", "incl", "calls", "name"};
	int c;

	opterr = 0; /* our own one-line messages instead of getopt's */
	while ((c = getopt_long(argc, argv, ":f:s:n:lShV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt->format = (enum vt_prof_format)pick("--format", optarg, formats, 3);
			break;
		case 's':
			opt->sort = (enum vt_prof_sort)pick("--sort", optarg, sorts, 4);
			break;
		case 'n':
			opt->top = parse_count(optarg);
			break;
		case 'l':
			opt->per_location = true;
			break;
		case 'S':
			opt->samples = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_CLEAN);
		case 'V':
			printf("vt-profile (vt) %s\n", VT_VERSION);
			exit(EXIT_CLEAN);
		case ':':
			usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		usage_error("no trace given");
	if (optind + 1 < argc)
		usage_error("one trace at a time, got '%s' and '%s'", argv[optind],
			    argv[optind + 1]);
	*path = argv[optind];
}

int main(int argc, char **argv)
{
	struct vt_prof_options opt = {.format = VT_PROF_TEXT, .sort = VT_PROF_SORT_EXCL};
	struct vt_prof_trace tr = {0};
	char err[512];

	if (argc > 1 && strcmp(argv[1], "--compare") == 0)
		return vt_prof_compare_main(argc - 1, argv + 1);
	parse_args(argc, argv, &opt, &tr.path);
	if (vt_prof_read(&tr, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-profile: %s: %s\n", tr.path, err);
		vt_prof_free(&tr);
		return EXIT_USAGE;
	}
	vt_prof_report(&tr, &opt, stdout, stderr);
	int status = tr.total_problems ? EXIT_PROBLEMS : EXIT_CLEAN;
	vt_prof_free(&tr);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vt-profile: cannot write the report: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return status;
}
