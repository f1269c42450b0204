/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile: prints the profiles of an OTF2 trace; options, exit codes, error messages. */
/* One file per mode beside the flat profile (samples.c, calltree.c, mpi.c, imbalance.c, ...). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "profile.h"
#include "report.h"
#include "vtr_cli.h"
#include "waits_split.h"

#ifdef VT_PROFILE_MPI
#include <mpi.h>
#endif

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
    "  -c, --call-tree      the call-path profile instead: per path of regions its\n"
    "                       calls, inclusive and exclusive time\n"
    "  -d, --depth=N        with --call-tree: paths deeper than N folded into their\n"
    "                       ancestor at depth N (0: all, the default)\n"
    "  -m, --mpi            MPI statistics instead: messages and bytes per pair of\n"
    "                       ranks, instances and time per collective kind\n"
    "  -i, --imbalance      per region the min, mean and max of its inclusive time\n"
    "                       over the locations that entered it\n"
    "  -t, --threads        the thread model instead: per thread the time in\n"
    "                       OpenMP constructs, tasks, locks and pthread calls,\n"
    "                       and the OpenMP imbalance per parallel and barrier region\n"
    "  -I, --io             I/O instead (VT_IOTRACE=yes, MPI-IO): per file, and\n"
    "                       per file and process, the reads, writes, flushes,\n"
    "                       failed operations, bytes read and written, time in\n"
    "                       I/O; per file the request sizes in powers of two; the\n"
    "                       slowest operations (--top N, 10 by default)\n"
    "  -M, --memory         memory instead (VT_MEMTRACE=yes): per process the\n"
    "                       high-water mark, allocations and bytes allocated; per\n"
    "                       call path the allocations and net bytes between its\n"
    "                       Enters and Leaves, where the counters are recorded there\n"
    "  -w, --waits          wait states instead: per pattern (Late Sender and its\n"
    "                       Wrong Order part, Late Receiver, Wait at Barrier, Wait\n"
    "                       at NxN, Late Broadcast, Early Reduce, OpenMP barrier\n"
    "                       wait) the time lost, then per call path, location and\n"
    "                       communicator\n"
    "  -C, --critical-path  the critical path instead: its time per location and\n"
    "                       call path, then each MPI wait's delay cost per delaying\n"
    "                       rank and call path\n"
    "      --window=N       vt-profile-mpi --waits, --critical-path or --mpi on more\n"
    "                       than one process: each process exchanges about every N\n"
    "                       records it reads (default 32768; fewer: less memory,\n"
    "                       more exchanges)\n"
    "      --stats          vt-profile-mpi --waits, --critical-path or --mpi on more\n"
    "                       than one process: per process its records, exchanges,\n"
    "                       the most records it held at once and its peak RSS, on\n"
    "                       stderr\n"
    "  -q, --quiet          no progress line on stderr (a terminal's, after 1 s)\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 if the trace is consistent, 1 if it has problems (unbalanced\n"
    "Enter/Leave, decreasing timestamps; listed as warnings), 2 on a usage error or\n"
    "a trace that cannot be read or has no events.\n";

static int pick(const char *option, const char *value, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	vtr_usage_error("%s: unknown value '%s'", option, value);
}

static size_t parse_count(const char *option, const char *value)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-')
		vtr_usage_error("%s: '%s' is not a count", option, value);
	return (size_t)v;
}

static void parse_args(int argc, char **argv, struct vt_prof_options *opt, const char **path)
{
	// clang-format off
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"sort", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 'n'},
	    {"per-location", no_argument, NULL, 'l'},
	    {"samples", no_argument, NULL, 'S'},
	    {"call-tree", no_argument, NULL, 'c'},
	    {"depth", required_argument, NULL, 'd'},
	    {"mpi", no_argument, NULL, 'm'},
	    {"imbalance", no_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"threads", no_argument, NULL, 't'},
	    {"io", no_argument, NULL, 'I'},
	    {"memory", no_argument, NULL, 'M'},
	    {"waits", no_argument, NULL, 'w'},
	    {"critical-path", no_argument, NULL, 'C'},
	    {"version", no_argument, NULL, 'V'},
	    {"window", required_argument, NULL, 'W'},
	    {"stats", no_argument, NULL, 'T'},
	    {NULL, 0, NULL, 0},
	};
	// clang-format on
	/* Orders match the enums in report.h. */
	static const char *const formats[] = {"text", "csv", "json"};
	static const char *const sorts[] = {"excl", "incl", "calls", "name"};
	int c;
	size_t depth;
	bool quiet = false;

	opterr = 0; /* our own one-line messages instead of getopt's */
	while ((c = getopt_long(argc, argv, ":f:s:n:lScd:mitIMwCqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt->format = (enum vt_prof_format)pick("--format", optarg, formats, 3);
			break;
		case 's':
			opt->sort = (enum vt_prof_sort)pick("--sort", optarg, sorts, 4);
			opt->sort_given = true;
			break;
		case 'n':
			opt->top = parse_count("--top", optarg);
			break;
		case 'c':
			opt->call_tree = true;
			break;
		case 'd':
			depth = parse_count("--depth", optarg);
			if (depth > UINT32_MAX)
				vtr_usage_error("--depth: '%s' is too large", optarg);
			opt->depth = (uint32_t)depth;
			break;
		case 'm':
			opt->mpi = true;
			break;
		case 'i':
			opt->imbalance = true;
			break;
		case 't':
			opt->threads = true;
			break;
		case 'I':
			opt->io = true;
			break;
		case 'M':
			opt->memory = true;
			break;
		case 'w':
			opt->waits = true;
			break;
		case 'C':
			opt->critpath = true;
			break;
		case 'l':
			opt->per_location = true;
			break;
		case 'S':
			opt->samples = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'W':
			opt->window = parse_count("--window", optarg);
			if (!opt->window)
				vtr_usage_error("--window: '%s' is not a count of 1 or more",
						optarg);
			break;
		case 'T':
			opt->stats = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_CLEAN);
		case 'V':
			printf("vt-profile (vt) %s\n", VT_VERSION);
			exit(EXIT_CLEAN);
		default: /* '?' or ':' */
			vtr_cli_bad_option(c, argv);
		}
	}
	*path = vtr_cli_trace(argc, argv);
	vtr_progress_setup(quiet);
	if (opt->samples + opt->call_tree + opt->mpi + opt->imbalance + opt->threads + opt->io +
		opt->memory + opt->waits + opt->critpath >
	    1)
		vtr_usage_error("--samples, --call-tree, --mpi, --imbalance, --threads, --io, "
				"--memory, --waits and --critical-path exclude each other");
	if (opt->waits && (opt->per_location || opt->sort_given || opt->top))
		vtr_usage_error("--per-location, --sort and --top do not go with --waits");
	if (opt->critpath && (opt->per_location || opt->sort_given || opt->top))
		vtr_usage_error("--per-location, --sort and --top do not go with --critical-path");
	if (opt->depth && !opt->call_tree)
		vtr_usage_error("--depth goes with --call-tree");
	if ((opt->window || opt->stats) && !opt->waits && !opt->critpath && !opt->mpi)
		vtr_usage_error("--window and --stats go with --waits, --critical-path or --mpi");
}

/* The modes that read once more (call tree, MPI) or present the flat reading differently. The
 * flat reading's problems go to stderr, so standard output stays one format. */
static int other_mode(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
		      uint64_t *problems)
{
	char err[512];
	int rc = 0;
	vt_prof_print_problems(tr, stderr, "vt-profile: ");
	*problems = tr->total_problems;
	if (opt->call_tree) {
		rc = vt_prof_report_calltree(tr, opt, stdout, err, sizeof(err));
	} else if (opt->mpi) {
		uint64_t more = 0;
		rc = vt_prof_report_mpi(tr, opt, stdout, stderr, &more, err, sizeof(err));
		*problems += more;
	} else if (opt->threads) {
		rc = vt_prof_report_threads(tr, opt, stdout, err, sizeof(err));
	} else if (opt->io) {
		rc = vt_prof_report_io(tr, opt, stdout, err, sizeof(err));
	} else if (opt->memory) {
		rc = vt_prof_report_memory(tr, opt, stdout, err, sizeof(err));
	} else if (opt->waits) {
		uint64_t more = 0;
		rc = vt_prof_report_waits(tr, opt, stdout, stderr, &more, err, sizeof(err));
		*problems += more;
	} else if (opt->critpath) {
		uint64_t more = 0;
		rc = vt_prof_report_critpath(tr, opt, stdout, stderr, &more, err, sizeof(err));
		*problems += more;
	} else {
		vt_prof_report_imbalance(tr, opt, stdout);
	}
	if (rc < 0)
		fprintf(stderr, "vt-profile: %s: %s\n", tr->path, err);
	return rc;
}

/* nprocs: the processes of vt-profile-mpi's MPI_COMM_WORLD (vt-profile: 1). */
static int profile_main(int argc, char **argv, int nprocs)
{
	vtr_cli_tool = "vt-profile";
	struct vt_prof_options opt = {.format = VT_PROF_TEXT, .sort = VT_PROF_SORT_EXCL};
	struct vt_prof_trace tr = {0};
	char err[512];

	if (argc > 1 && strcmp(argv[1], "--compare") == 0) {
		if (nprocs > 1)
			vtr_usage_error("--compare runs on one process, not %d", nprocs);
		return vt_prof_compare_main(argc - 1, argv + 1);
	}
	parse_args(argc, argv, &opt, &tr.path);
	if (nprocs > 1) {
		if (!opt.waits && !opt.critpath && !opt.mpi)
			vtr_usage_error("only --waits, --critical-path and --mpi run on more than "
					"one process (here %d)",
					nprocs);
		return vt_prof_waits_mpi(tr.path, &opt);
	}
	if (vt_prof_read(&tr, err, sizeof(err)) != 0) {
		fprintf(stderr, "vt-profile: %s: %s\n", tr.path, err);
		vt_prof_free(&tr);
		return EXIT_USAGE;
	}
	if (tr.total_events == 0) {
		/* Nothing to profile: as bad an input as a file that is not a trace. */
		fprintf(stderr, "vt-profile: %s: the trace has no events\n", tr.path);
		vt_prof_free(&tr);
		return EXIT_USAGE;
	}
	uint64_t problems = tr.total_problems;
	if (opt.call_tree || opt.mpi || opt.imbalance || opt.threads || opt.io || opt.memory ||
	    opt.waits || opt.critpath) {
		if (other_mode(&tr, &opt, &problems) < 0) {
			vt_prof_free(&tr);
			return EXIT_USAGE;
		}
	} else {
		vt_prof_report(&tr, &opt, stdout, stderr);
	}
	int status = problems ? EXIT_PROBLEMS : EXIT_CLEAN;
	vt_prof_free(&tr);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vt-profile: cannot write the report: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return status;
}

int main(int argc, char **argv)
{
#ifdef VT_PROFILE_MPI
	/* vt-profile-mpi: on one process the serial vt-profile; on more, --waits, --critical-path
	 * and --mpi split. */
	MPI_Init(&argc, &argv);
	int nprocs = 1;
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	int status = profile_main(argc, argv, nprocs);
	MPI_Finalize();
	return status;
#else
	return profile_main(argc, argv, 1);
#endif
}
