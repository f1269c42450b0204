/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of vt's environment variables and their parser. */
#include "base/vt_config.h"
#include "base/vt_log.h"

/* VT_REC_SAMPLE_MAX of vt_rec.h, which this table (shared with the tools) does not include. */
#define VT_REC_SAMPLE_MAX_CFG 256

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

struct vt_config vt_cfg;

static const char *const timer_choices[] = {"auto", "tsc", "monotonic", NULL};
static const char *const sampling_sources[] = {"cpu", "wall", "perf::cpu-clock", "perf::task-clock",
					       NULL};
static const char *const unwinders[] = {"cfi", "libunwind", "fp", NULL};
static const char *const openmp_runtimes[] = {"libomp", "libgomp", NULL};
static const char *const openmp_modes[] = {"off", "regions", "all", NULL};
static const char *const memtrace_modes[] = {"no", "yes", "events", "regions", NULL};
static const char *const unify_modes[] = {"tree", "gather", NULL};
static const char *const record_modes[] = {"file", "ring", NULL};
static const char *const ctl_signals[] = {"auto", "SIGUSR2", "SIGUSR1", "none", NULL};
static const char *const bool_words_true[] = {"yes", "true", "on", "1", NULL};
static const char *const bool_words_false[] = {"no", "false", "off", "0", NULL};

/* Defaults are strings so that one parser handles them and the docs show them as typed. */
static const struct vt_cfg_entry table[] = {
    {"VT_ON", VT_CFG_BOOL, "yes", "no", "Record a trace at all (yes/no).", 0, 0, NULL, &vt_cfg.on},
    {"VT_PFORM_GDIR", VT_CFG_STRING, ".", "/scratch/traces",
     "Existing directory the trace archive is written to.", 0, 0, NULL, &vt_cfg.gdir},
    {"VT_FILE_PREFIX", VT_CFG_STRING, NULL, "run42",
     "Name of the archive (PREFIX.otf2); default: EXE.vt, EXE the executable's name.", 0, 0, NULL,
     &vt_cfg.prefix},
    {"VT_BUFFER_SIZE", VT_CFG_SIZE, "8M", "64M",
     "Event buffer per thread, in bytes (k, M, G suffixes); a full buffer is flushed.", 1024,
     1L << 34, NULL, &vt_cfg.buffer_size},
    {"VT_MAX_FLUSHES", VT_CFG_INT, "0", "10",
     "Flushes per thread before recording stops for that thread; 0 = unlimited.", 0, 1L << 30, NULL,
     &vt_cfg.max_flushes},
    {"VT_FLUSH_THREAD", VT_CFG_BOOL, "yes", "no",
     "Write full buffers from a background thread while the program fills the other half "
     "of VT_BUFFER_SIZE (yes), or in the thread whose buffer is full (no).",
     0, 0, NULL, &vt_cfg.flush_thread},
    {"VT_MODE", VT_CFG_ENUM, "file", "ring",
     "file: every event goes to the trace as buffers fill; ring: each thread keeps only its "
     "last VT_RING_SIZE bytes of events in memory, written at the end, on a fatal signal or "
     "on a snapshot (docs/ring.md).",
     0, 0, record_modes, &vt_cfg.mode},
    {"VT_RING_SIZE", VT_CFG_SIZE, "16M", "256M",
     "VT_MODE=ring: bytes of events each thread keeps (k, M, G suffixes), in whole halves of "
     "VT_BUFFER_SIZE, at least one.",
     1024, 1L << 36, NULL, &vt_cfg.ring_size},
    {"VT_SNAPSHOT_WAIT", VT_CFG_INT, "10", "60",
     "VT_MODE=ring, MPI programs: seconds a rank's snapshot waits for the other ranks' to "
     "write one snapshot of the job together; a rank whose partners do not all come writes "
     "its own window alone.",
     1, 3600, NULL, &vt_cfg.snapshot_wait},
    {"VT_MPITRACE", VT_CFG_BOOL, "yes", "no",
     "MPI programs: record MPI calls and messages (yes), or only the program's own "
     "functions (no).",
     0, 0, NULL, &vt_cfg.mpitrace},
    {"VT_MPI_GROUPS", VT_CFG_STRING, "DEFAULT", "DEFAULT,-P2P,+QUERY",
     "MPI programs: the groups of MPI functions recorded, ','-separated: group names (CG, "
     "COLL, ENV, ERR, EXT, IO, MISC, P2P, QUERY, RMA, SPAWN, TOPO, TYPE, XNONBLOCK, "
     "XREQTEST), DEFAULT (all but QUERY), ALL or NONE; +NAME adds a group, -NAME removes one "
     "(docs/mpi.md).",
     0, 0, NULL, &vt_cfg.mpi_groups},
    {"VT_UNIFY", VT_CFG_ENUM, "tree", "gather",
     "MPI programs: how the ranks' definitions are unified at the end: tree (a binomial "
     "reduction tree: each rank merges its subtree's, rank 0 gets what ranks share once) or "
     "gather (every rank's sent to rank 0, which merges them all); the trace is the same.",
     0, 0, unify_modes, &vt_cfg.unify},
    {"VT_FILTER_SPEC", VT_CFG_STRING, NULL, "/home/me/app.filter",
     "Filter file: lines 'pattern[;pattern...] -- LIMIT' (0 = never record).", 0, 0, NULL,
     &vt_cfg.filter_spec},
    {"VT_MAX_STACK_DEPTH", VT_CFG_INT, "0", "20",
     "Deepest call level recorded per thread; 0 = unlimited.", 0, 1L << 30, NULL,
     &vt_cfg.max_stack_depth},
    {"VT_TIMER", VT_CFG_ENUM, "auto", "monotonic",
     "Clock: auto (invariant TSC when the CPU has one), tsc, or monotonic.", 0, 0, timer_choices,
     &vt_cfg.timer},
    {"VT_PLUGIN_CNTR_METRICS", VT_CFG_STRING, NULL, "Random_counter:Sample_*",
     "Counters of VampirTrace-style counter plugins, ':'-separated: LIB_COUNTER loads "
     "libLIB.so and asks it for COUNTER (wildcards as the plugin allows); LIB ends at the "
     "first '_' after which a library is found (x_plugin_c: libx.so, else libx_plugin.so). "
     "Empty: none.",
     0, 0, NULL, &vt_cfg.plugin_metrics},
    {"VT_PLUGIN_CNTR_PATH", VT_CFG_STRING, NULL, "/opt/vt-plugins/lib",
     "':'-separated directories searched for counter plugins before the library path.", 0, 0, NULL,
     &vt_cfg.plugin_path},
    {"VT_PLUGIN_CNTR_CALLBACK_BUFFER", VT_CFG_SIZE, "1M", "16M",
     "Bytes buffered per counter of a callback plugin (16 per value); when full, the "
     "buffer is written out by the plugin's thread, or, before the trace is open, the "
     "plugin is told BUFFER_FULL.",
     64, 1L << 32, NULL, &vt_cfg.plugin_callback_buffer},
    {"SCOREP_METRIC_PLUGINS", VT_CFG_STRING, NULL, "my_plugin",
     "Score-P metric plugins, ','-separated: NAME loads libNAME.so; its metrics are read "
     "from SCOREP_METRIC_<NAME> (NAME upper-cased; ','-separated), as Score-P does. Empty: "
     "none.",
     0, 0, NULL, &vt_cfg.scorep_plugins},
    {"VT_METRICS", VT_CFG_STRING, NULL, "perf::PAGE-FAULTS:PAPI_TOT_INS",
     "PAPI events recorded per thread as counters at every event, separated by ':' "
     "(presets and native names; a native name's own '::' does not separate). Software-"
     "defined events: sde:::LIB::NAME, tagged [double] or [recorder] where vt-info "
     "--metrics LIB says (docs/counters.md).",
     0, 0, NULL, &vt_cfg.metrics},
    {"VT_RUSAGE", VT_CFG_STRING, NULL, "utime:minflt",
     "getrusage fields recorded per thread as counters, ':'-separated, or all: utime, "
     "stime, maxrss, minflt, majflt, inblock, oublock, nvcsw, nivcsw.",
     0, 0, NULL, &vt_cfg.rusage},
    {"VT_RUSAGE_INTV", VT_CFG_INT, "100", "0",
     "Milliseconds between two reads of the VT_RUSAGE fields on a thread (they are read "
     "with its events); 0 = at every event.",
     0, 1L << 30, NULL, &vt_cfg.rusage_intv},
    {"VT_SAMPLING", VT_CFG_BOOL, "no", "yes",
     "Take call-path samples on every thread, every VT_SAMPLING_PERIOD of "
     "VT_SAMPLING_SOURCE; written as calling-context samples (docs/sampling.md).",
     0, 0, NULL, &vt_cfg.sampling},
    {"VT_SAMPLING_PERIOD", VT_CFG_DURATION, "1ms", "250us",
     "Time between two samples of a thread, with its unit: ns, us, ms or s.", 10000, 10000000000L,
     NULL, &vt_cfg.sampling_period},
    {"VT_SAMPLING_SOURCE", VT_CFG_ENUM, "cpu", "wall",
     "What the period counts: cpu (the thread's CPU time), wall (elapsed time, also while "
     "the thread waits), perf::cpu-clock or perf::task-clock (perf_event_open).",
     0, 0, sampling_sources, &vt_cfg.sampling_source},
    {"VT_SAMPLING_DEPTH", VT_CFG_INT, "64", "128",
     "Deepest stack a sample keeps, in frames; deeper ones are cut and marked.", 1,
     VT_REC_SAMPLE_MAX_CFG, NULL, &vt_cfg.sampling_depth},
    {"VT_SAMPLING_UNWIND", VT_CFG_ENUM, "cfi", "fp",
     "How stacks are walked: cfi (vt's own reading of the unwind tables, safe in signal "
     "handlers), libunwind (also code that registers its tables at run time; it takes locks "
     "in the handler and can deadlock around dlopen), or fp (frame pointers: fastest, for "
     "code built with -fno-omit-frame-pointer).",
     0, 0, unwinders, &vt_cfg.sampling_unwind},
    {"VT_SAMPLING_SIGNAL", VT_CFG_INT, "27", "40",
     "Signal number that delivers samples (27: SIGPROF); pick another if the program uses "
     "it.",
     1, 64, NULL, &vt_cfg.sampling_signal},
    {"VT_OPENMP_RUNTIME", VT_CFG_ENUM, "libomp", "libgomp",
     "OpenMP runtime of a GCC-built program: libomp (LLVM's, whose OMPT reports OpenMP "
     "events: vtcc links it in place of libgomp, vtrun preloads it) or libgomp (GCC's, "
     "without OpenMP events); read by vtcc and vtrun (docs/openmp.md).",
     0, 0, openmp_runtimes, &vt_cfg.openmp_runtime},
    {"VT_IOTRACE", VT_CFG_BOOL, "no", "yes",
     "Record the program's POSIX I/O (open, read, write, lseek, close, dup...) and ISO C "
     "stdio (fopen, fread, fwrite, printf, fseek, fclose...): each call as a region with "
     "OTF2's I/O events on a handle per open file, and per stream (paradigm ISOC, over its "
     "descriptor's POSIX handle) (docs/io.md).",
     0, 0, NULL, &vt_cfg.iotrace},
    {"VT_MEMTRACE", VT_CFG_ENUM, "no", "events",
     "Count the program's allocations (malloc and its family): bytes allocated, their "
     "high-water mark and the allocations made; yes records them as counters of the process "
     "at the end, events also with every Enter and Leave of every thread, so that they show "
     "over time and per call path, regions also makes each call of malloc's family a region "
     "(docs/io.md).",
     0, 0, memtrace_modes, &vt_cfg.memtrace},
    {"VT_REPORT", VT_CFG_BOOL, "no", "yes",
     "At the end of the run, write an HTML report of the trace next to it (PREFIX.html) "
     "with vt-report (docs/vt-report.md); an existing PREFIX.html (file or link) is left as "
     "it is, with a warning.",
     0, 0, NULL, &vt_cfg.report},
    {"VT_OPENMP", VT_CFG_ENUM, "all", "regions",
     "OpenMP programs run by LLVM's libomp (OMPT): off (only the threads' own functions), "
     "regions (parallel regions, teams, barriers, worksharing constructs), or all (also "
     "tasks, locks, critical sections, atomics and ordered where the runtime reports them).",
     0, 0, openmp_modes, &vt_cfg.openmp},
    {"VT_PTHREAD", VT_CFG_BOOL, "yes", "no",
     "Record the program's pthread calls: thread creation and joins (OTF2 ThreadCreate, "
     "ThreadWait), mutexes and condition variables (regions, lock acquisitions and releases).",
     0, 0, NULL, &vt_cfg.pthread},
    {"VT_KOKKOS", VT_CFG_BOOL, "yes", "no",
     "Record what Kokkos reports when libvt is its tool library (KOKKOS_TOOLS_LIBS or "
     "KOKKOS_PROFILE_LIBRARY; vtrun sets both): kernels, fences, profile regions and sections "
     "as regions, deep copies as regions and a counter of bytes, allocations as counters per "
     "memory space (docs/kokkos.md).",
     0, 0, NULL, &vt_cfg.kokkos},
    {"VT_CTL_SIGNAL", VT_CFG_ENUM, "auto", "SIGUSR2",
     "Signal by which vt-ctl asks a running program to switch recording off or on, for a "
     "snapshot or for its status (docs/vt-ctl.md). auto: SIGUSR2 in ring mode (VT_MODE=ring), "
     "no channel otherwise (its thread costs about 1 ms at start and end, and makes the "
     "kernel's descriptor look-ups of a single-threaded program dearer); none: no channel. "
     "The channel is not set up when the program already handles that signal.",
     0, 0, ctl_signals, &vt_cfg.ctl_signal},
    {"VT_VERBOSE", VT_CFG_INT, "1", "2",
     "Messages: 0 errors only, 1 warnings and where the trace went, 2-5 more detail.", 0, 5, NULL,
     &vt_cfg.verbose},
};

const struct vt_cfg_entry *vt_config_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const char *vt_config_raw(const struct vt_cfg_entry *e)
{
	return secure_getenv(e->name);
}

bool vt_config_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

static int word_in(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (strcasecmp(s, words[i]) == 0)
			return i;
	return -1;
}

int vt_config_parse_size(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int vt_config_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double n = v * units[i].ns;
			if (n < 1 || n > 1e18)
				return -1;
			*ns = (uint64_t)(n + 0.5);
			return 0;
		}
	}
	return -1;
}

static int parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* Parses one value into the entry's field; on failure says what was expected in why. */
static int parse_entry(const struct vt_cfg_entry *e, const char *s, char *why, size_t len)
{
	switch (e->type) {
	case VT_CFG_BOOL: {
		if (word_in(s, bool_words_true) >= 0)
			*(bool *)e->dst = true;
		else if (word_in(s, bool_words_false) >= 0)
			*(bool *)e->dst = false;
		else {
			snprintf(why, len, "expected yes or no");
			return -1;
		}
		return 0;
	}
	case VT_CFG_SIZE: {
		uint64_t v;
		if (vt_config_parse_size(s, &v) < 0 || v < (uint64_t)e->min ||
		    (e->max && v > (uint64_t)e->max)) {
			char lo[32];
			if (e->min >= 1024)
				snprintf(lo, sizeof(lo), "%ldk", e->min >> 10);
			else
				snprintf(lo, sizeof(lo), "%ld", e->min);
			snprintf(why, len,
				 "expected a size in bytes with an optional k, M or G suffix, "
				 "from %s to %ldG (e.g. %s)",
				 lo, e->max >> 30, e->example);
			return -1;
		}
		*(uint64_t *)e->dst = v;
		return 0;
	}
	case VT_CFG_INT: {
		long v;
		if (parse_long(s, &v) < 0 || v < e->min || v > e->max) {
			snprintf(why, len, "expected a whole number from %ld to %ld (e.g. %s)",
				 e->min, e->max, e->example);
			return -1;
		}
		*(long *)e->dst = v;
		return 0;
	}
	case VT_CFG_STRING:
		/* An empty plugin list is no plugin, as Score-P has it. */
		if (*s == '\0' &&
		    (e->dst == &vt_cfg.plugin_metrics || e->dst == &vt_cfg.scorep_plugins)) {
			*(const char **)e->dst = NULL;
			return 0;
		}
		if (*s == '\0') {
			snprintf(why, len, "expected a non-empty value (e.g. %s)", e->example);
			return -1;
		}
		if (e->dst == &vt_cfg.prefix && strchr(s, '/')) {
			snprintf(why, len, "expected a file name without '/' (e.g. %s)",
				 e->example);
			return -1;
		}
		/* PREFIX.9999.otf2 must be a file name (NAME_MAX, 255 bytes): a longer prefix
		 * is refused rather than cut, and '.' or '..' would name directories. */
		if (e->dst == &vt_cfg.prefix && strlen(s) > VT_PREFIX_MAX) {
			snprintf(
			    why, len,
			    "expected a file name of at most %d bytes (e.g. %s), got %zu bytes",
			    VT_PREFIX_MAX, e->example, strlen(s));
			return -1;
		}
		if (e->dst == &vt_cfg.prefix && (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)) {
			snprintf(why, len, "expected a file name, not a directory (e.g. %s)",
				 e->example);
			return -1;
		}
		*(const char **)e->dst = s;
		return 0;
	case VT_CFG_DURATION: {
		uint64_t v;
		if (vt_config_parse_duration(s, &v) < 0 || v < (uint64_t)e->min ||
		    v > (uint64_t)e->max) {
			snprintf(why, len,
				 "expected a duration with its unit (ns, us, ms or s) from %ldus "
				 "to %lds (e.g. %s)",
				 e->min / 1000, e->max / 1000000000L, e->example);
			return -1;
		}
		*(uint64_t *)e->dst = v;
		return 0;
	}
	case VT_CFG_ENUM: {
		int i = word_in(s, e->choices);
		if (i < 0) {
			size_t n = (size_t)snprintf(why, len, "expected one of");
			for (int k = 0; e->choices[k] && n < len; k++)
				n += (size_t)snprintf(why + n, len - n, "%s %s", k ? "," : "",
						      e->choices[k]);
			return -1;
		}
		*(int *)e->dst = i;
		return 0;
	}
	}
	return -1;
}

static void set_defaults(void)
{
	char why[256];

	memset(&vt_cfg, 0, sizeof(vt_cfg));
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].def)
			parse_entry(&table[i], table[i].def, why, sizeof(why));
}

/* What loads code into the process: never taken from the administrator's file either. */
static bool loads_code(const struct vt_cfg_entry *e)
{
	return e->dst == &vt_cfg.plugin_metrics || e->dst == &vt_cfg.plugin_path ||
	       e->dst == &vt_cfg.scorep_plugins || e->dst == &vt_cfg.metrics;
}

/* The administrator's file, kept for the run: the settings point into it. */
static char admin_text[16384];

int vt_config_load_admin(const char *path)
{
	char why[256];

	/* O_NOFOLLOW: a link is refused, whoever planted it; O_NONBLOCK: a FIFO never blocks. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		vt_error("%s: cannot open (%s); no trace", path, strerror(errno));
		return -1;
	}
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size < (off_t)sizeof(admin_text))
		n = read(fd, admin_text, sizeof(admin_text) - 1);
	close(fd);
	if (n < 0 || n != (ssize_t)st.st_size) {
		vt_error("%s: expected a regular file owned by root, writable by root alone, of "
			 "less than %zu bytes; no trace",
			 path, sizeof(admin_text));
		return -1;
	}
	admin_text[n] = '\0';
	int lineno = 0;
	for (char *line = admin_text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '\0' || *line == '#')
			continue;
		char *eq = strchr(line, '=');
		const struct vt_cfg_entry *e = NULL;
		if (eq) {
			*eq = '\0';
			for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
				if (strcmp(table[i].name, line) == 0)
					e = &table[i];
		}
		if (!e || loads_code(e)) {
			vt_error(
			    "%s:%d: expected NAME=VALUE with NAME a VT_ variable that loads no "
			    "code (docs/security.md); no trace",
			    path, lineno);
			return -1;
		}
		if (parse_entry(e, eq + 1, why, sizeof(why)) < 0) {
			vt_error("%s:%d: %s: %s; no trace", path, lineno, e->name, why);
			return -1;
		}
		if (e->dst == &vt_cfg.verbose)
			vt_log_level = (int)vt_cfg.verbose;
	}
	return 1;
}

/* A setuid/setgid program: the environment belongs to the user who started it, and vt
 * runs with the program's privileges. */
static int load_secure(void)
{
	int rc = vt_config_load_admin(VT_SETUID_CONF);
	if (rc == 0)
		vt_notice(
		    "setuid/setgid program: vt ignores the environment, loads no plugin and "
		    "writes no trace (an administrator allows traces in %s; docs/security.md)",
		    VT_SETUID_CONF);
	else if (rc > 0)
		vt_notice("setuid/setgid program: vt ignores the environment and loads no "
			  "plugin; settings from %s",
			  VT_SETUID_CONF);
	return rc > 0 ? 0 : -1;
}

int vt_config_load(void)
{
	char why[256];
	int rc = 0;

	set_defaults();
	if (vt_config_secure())
		return load_secure();
	/* VT_VERBOSE first, so that it governs the messages about the others. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			const struct vt_cfg_entry *e = &table[i];
			if ((e->dst == &vt_cfg.verbose) != (pass == 0))
				continue;
			const char *s = secure_getenv(e->name);
			if (!s)
				continue;
			if (parse_entry(e, s, why, sizeof(why)) < 0) {
				vt_error("%s='%s': %s; tracing is off", e->name, s, why);
				if (e->def)
					parse_entry(e, e->def, why, sizeof(why));
				rc = -1;
			}
			if (e->dst == &vt_cfg.verbose)
				vt_log_level = (int)vt_cfg.verbose;
		}
	}
	return rc;
}

/* SCOREP_METRIC_<NAME>, NAME upper-cased, plus suffix. */
static void scorep_var(char *var, size_t size, const char *name, const char *suffix)
{
	size_t n = (size_t)snprintf(var, size, "SCOREP_METRIC_");
	for (const char *c = name; *c && n + strlen(suffix) + 1 < size; c++)
		var[n++] = (char)toupper((unsigned char)*c);
	snprintf(var + n, size - n, "%s", suffix);
}

const char *vt_config_scorep_plugin(const char *name, char *var, size_t size)
{
	/* Score-P's rule: the plugin's name as SCOREP_METRIC_PLUGINS gives it, upper-cased
	 * (perf_plugin: SCOREP_METRIC_PERF_PLUGIN). */
	scorep_var(var, size, name, "");
	const char *v = secure_getenv(var);
	if (v)
		return v;
	/* Some plugins' READMEs name the plugin without its _plugin (nec for libnec.so) and
	 * set SCOREP_METRIC_NEC_PLUGIN: read, and said by the caller. */
	char alt[300];
	scorep_var(alt, sizeof(alt), name, "_PLUGIN");
	v = secure_getenv(alt);
	if (v)
		snprintf(var, size, "%s", alt);
	else
		scorep_var(var, size, name, "");
	return v;
}

void vt_config_format(const struct vt_cfg_entry *e, char *buf, size_t len)
{
	switch (e->type) {
	case VT_CFG_BOOL:
		snprintf(buf, len, "%s", *(bool *)e->dst ? "yes" : "no");
		break;
	case VT_CFG_SIZE: {
		uint64_t v = *(uint64_t *)e->dst;
		if (v && !(v & ((1u << 30) - 1)))
			snprintf(buf, len, "%" PRIu64 "G", v >> 30);
		else if (v && !(v & ((1u << 20) - 1)))
			snprintf(buf, len, "%" PRIu64 "M", v >> 20);
		else if (v && !(v & ((1u << 10) - 1)))
			snprintf(buf, len, "%" PRIu64 "k", v >> 10);
		else
			snprintf(buf, len, "%" PRIu64, v);
		break;
	}
	case VT_CFG_INT:
		snprintf(buf, len, "%ld", *(long *)e->dst);
		break;
	case VT_CFG_STRING: {
		const char *s = *(const char **)e->dst;
		snprintf(buf, len, "%s", s ? s : "(unset)");
		break;
	}
	case VT_CFG_ENUM:
		snprintf(buf, len, "%s", e->choices[*(int *)e->dst]);
		break;
	case VT_CFG_DURATION: {
		uint64_t v = *(uint64_t *)e->dst;
		if (v && v % 1000000000u == 0)
			snprintf(buf, len, "%" PRIu64 "s", v / 1000000000u);
		else if (v && v % 1000000u == 0)
			snprintf(buf, len, "%" PRIu64 "ms", v / 1000000u);
		else if (v && v % 1000u == 0)
			snprintf(buf, len, "%" PRIu64 "us", v / 1000u);
		else
			snprintf(buf, len, "%" PRIu64 "ns", v);
		break;
	}
	}
}
