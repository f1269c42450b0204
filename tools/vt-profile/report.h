/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile's outputs: the text table, CSV and JSON. */
#ifndef VT_PROF_REPORT_H
#define VT_PROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "critpath.h"
#include "ctree.h"

enum vt_prof_format { VT_PROF_TEXT, VT_PROF_CSV, VT_PROF_JSON };

struct vt_prof_options {
	enum vt_prof_format format;
	enum vt_prof_sort sort;
	size_t top; /* rows per table; 0 for all */
	bool per_location;
	bool samples;	 /* the sampled profiles instead of the regions' (samples.c) */
	bool sort_given; /* --sort on the command line (the call tree's default differs) */
	bool call_tree;	 /* the call-path profile instead (calltree.c) */
	uint32_t depth;	 /* call tree: deepest path shown, 0: all */
	bool mpi;	 /* MPI statistics instead (mpi.c) */
	bool imbalance;	 /* per-region spread over locations instead (imbalance.c) */
	bool threads;	 /* the thread model and OpenMP imbalance instead (threads.c) */
	bool io;	 /* I/O per file and process instead (io.c) */
	bool memory;	 /* memory counters per process and call path instead (memory.c) */
	bool waits;	 /* wait states per pattern, call path, location, comm (waits.c) */
	bool critpath;	 /* the critical path and delay costs (critpath.c) */
	size_t window;	 /* vt-profile-mpi --waits: records per process between exchanges */
	bool stats;	 /* vt-profile-mpi --waits: each process's exchanges on stderr */
};

/* Writes the report to out; problems go to out too, except in CSV where they go to err. */
void vt_prof_report(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		    FILE *err);

/* The sampled flat and call-path profiles (--samples). */
void vt_prof_report_samples(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out);

/* The call-path profile (--call-tree), read in a pass of its own. 0, or -1 with err. */
int vt_prof_report_calltree(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, char *err, size_t errlen);

/* The MPI statistics (--mpi), read in merged order; unmatched messages and collectives are
 * written to warn and counted in *problems. 0, or -1 with err. */
int vt_prof_report_mpi(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		       FILE *warn, uint64_t *problems, char *err, size_t errlen);

/* The per-region spread of inclusive time over locations (--imbalance). */
void vt_prof_report_imbalance(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			      FILE *out);

/* The thread model (--threads): per thread the time in parallel regions, barriers, tasks and
 * locks, per parallel and barrier region the spread over the threads. 0, or -1 with err. */
int vt_prof_report_threads(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			   FILE *out, char *err, size_t errlen);

/* I/O (--io): per file and process the operations, bytes and time, request sizes, the
 * slowest operations (top of them, 10 when 0). 0, or -1 with err. */
int vt_prof_report_io(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		      char *err, size_t errlen);

/* Memory (--memory): per process the VT_MEMTRACE counters, per call path the allocations made
 * and net bytes between its Enters and Leaves where the counters are recorded there. 0, or
 * -1 with err. */
int vt_prof_report_memory(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			  FILE *out, char *err, size_t errlen);

/* Wait states (--waits), read in merged order: per pattern (libvtprof's waits.h) the time
 * and instances, per call path, location and communicator. Unmatched messages and
 * collectives are written to warn and counted in *problems. 0, or -1 with err. */
int vt_prof_report_waits(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			 FILE *out, FILE *warn, uint64_t *problems, char *err, size_t errlen);

/* The critical path and the delay costs of MPI waits (--critical-path), read in merged order:
 * the path's time per location and call path, the costs per delaying location, call path,
 * pattern and waiting call path. Unmatched messages and collectives are written to warn and
 * counted in *problems. 0, or -1 with err. */
int vt_prof_report_critpath(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, FILE *warn, uint64_t *problems, char *err, size_t errlen);

/* The MPI waits --critical-path finds, each with the location that delayed it, and every
 * location's line (libvtprof's critpath.h), handed to fn before they are freed; in_mpi tells
 * whether a call path of the lines is in an MPI call. Unmatched messages and collectives are
 * written to warn and counted in *problems. 0, or -1 with err. */
struct vt_prof_cp_found {
	const void *cp;
	const struct vt_prof_cp_line *lines;
	size_t nlines;
	const struct vt_prof_cp_wait *waits;
	size_t nwaits;
	bool (*in_mpi)(const struct vt_prof_cp_found *f, uint32_t path);
};
int vt_prof_critpath_waits(struct vtr_trace *t, FILE *warn,
			   void (*fn)(void *user, const struct vt_prof_cp_found *found), void *user,
			   uint64_t *problems, char *err, size_t errlen);

/* vt-profile-mpi --critical-path: the report from sums made elsewhere (cpath_mpi.c): the
 * delay costs (location: the delayer's) and the path's time per location and call path
 * (pattern VT_WAIT_PATTERNS), paths numbered as in paths; the path's length, the waits it
 * followed, the unmatched messages and collectives. The same bytes as the serial report. */
struct vt_prof_paths;
struct vt_prof_cp_sum {
	uint32_t loc, path, pattern, wait_path;
	uint64_t time, count;
};
void vt_prof_critpath_print(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out, const struct vt_prof_paths *paths,
			    const struct vt_prof_cp_sum *costs, size_t ncosts,
			    const struct vt_prof_cp_sum *path, size_t npath, uint64_t length,
			    size_t followed, uint64_t problems);

/* The problems of the flat reading, one "warning: ..." line each, after prefix. */
void vt_prof_print_problems(const struct vt_prof_trace *tr, FILE *out, const char *prefix);

/* Shared by the reports: a duration of ticks at resolution ticks per second with a unit that
 * keeps 3 decimals meaningful (ns, us, ms or s). */
void vt_prof_format_time(char *buf, size_t len, double ticks, uint64_t resolution);

/* Shared by the reports: CSV fields (JSON strings: vtr_json_string of vtr_out.h). */
void vt_prof_csv_field(FILE *out, const char *s);

#endif
