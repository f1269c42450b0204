/* SPDX-License-Identifier: BSD-3-Clause */
/* Every environment variable of vt, declared once in a table, parsed and validated in one place. */
#ifndef VT_CONFIG_H
#define VT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest VT_FILE_PREFIX: PREFIX.9999.otf2 is still a file name (NAME_MAX). */
#define VT_PREFIX_MAX 240

enum vt_timer_kind { VT_TIMER_AUTO, VT_TIMER_TSC, VT_TIMER_MONOTONIC };

/* The values in force. Written once by vt_config_load() at init, read-only after. */
struct vt_config {
	bool on;
	const char *gdir;
	const char *prefix; /* NULL: the executable's basename */
	uint64_t buffer_size;
	long max_flushes;	 /* 0: unlimited */
	bool flush_thread;	 /* encode full buffers on a background thread */
	int mode;		 /* VT_MODE: enum vt_record_mode */
	uint64_t ring_size;	 /* VT_RING_SIZE: bytes of events a thread keeps in ring mode */
	long snapshot_wait;	 /* VT_SNAPSHOT_WAIT: seconds an MPI snapshot waits for the ranks */
	bool mpitrace;		 /* MPI events and regions (MPI programs) */
	const char *mpi_groups;	 /* VT_MPI_GROUPS */
	const char *filter_spec; /* NULL: no filter */
	long max_stack_depth;	 /* 0: unlimited */
	int timer;		 /* enum vt_timer_kind */
	long verbose;
	const char *plugin_metrics; /* VT_PLUGIN_CNTR_METRICS */
	const char *plugin_path;
	uint64_t plugin_callback_buffer;
	const char *scorep_plugins; /* SCOREP_METRIC_PLUGINS */
	const char *metrics;	    /* VT_METRICS: PAPI events, NULL none */
	const char *rusage;	    /* VT_RUSAGE: NULL none */
	long rusage_intv;	    /* VT_RUSAGE_INTV, milliseconds */
	bool sampling;		    /* VT_SAMPLING */
	uint64_t sampling_period;   /* nanoseconds */
	int sampling_source;	    /* enum vt_sampling_source */
	long sampling_depth;
	int sampling_unwind; /* enum vt_sampling_unwind */
	long sampling_signal;
	bool report;	    /* VT_REPORT: vt-report after the trace is written */
	bool pthread;	    /* VT_PTHREAD: pthread_create/join, mutexes, condition variables */
	bool kokkos;	    /* VT_KOKKOS: what Kokkos reports through its tools interface */
	bool iotrace;	    /* VT_IOTRACE: POSIX I/O calls (io/) */
	int memtrace;	    /* VT_MEMTRACE: enum vt_memtrace_mode (metrics/vt_metric_mem.c) */
	int openmp_runtime; /* enum vt_openmp_runtime: VT_OPENMP_RUNTIME (vtcc, vtrun) */
	int openmp;	    /* VT_OPENMP: enum vt_openmp_mode */
	int unify;	    /* VT_UNIFY: enum vt_unify_mode */
	int ctl_signal;	    /* VT_CTL_SIGNAL: enum vt_ctl_signal */
};

/* VT_MODE: events written as buffers fill, or each thread's last ones kept (record/vt_ring.c). */
enum vt_record_mode { VT_MODE_FILE, VT_MODE_RING };
/* VT_CTL_SIGNAL: the signal vt-ctl sends (lifecycle/vt_ctl.c), or no control channel. */
enum vt_ctl_signal { VT_CTL_AUTO, VT_CTL_SIGUSR2, VT_CTL_SIGUSR1, VT_CTL_NONE };

/* VT_UNIFY: the MPI ranks' definitions unified through a reduction tree, or all at rank 0. */
enum vt_unify_mode { VT_UNIFY_TREE, VT_UNIFY_GATHER };

/* VT_MEMTRACE: the memory counters not at all, once at the end, at every Enter and Leave, or
 * that and each call of malloc's family a region. */
enum vt_memtrace_mode { VT_MEMTRACE_NO, VT_MEMTRACE_YES, VT_MEMTRACE_EVENTS, VT_MEMTRACE_REGIONS };

/* VT_OPENMP: what the OMPT tool records (threads/vt_ompt.c). */
enum vt_openmp_mode { VT_OPENMP_OFF, VT_OPENMP_REGIONS, VT_OPENMP_ALL };

enum vt_sampling_source {
	VT_SAMPLING_CPU,       /* the thread's CPU time (timer_create) */
	VT_SAMPLING_WALL,      /* wall-clock time (timer_create) */
	VT_SAMPLING_PERF_CPU,  /* perf::cpu-clock (perf_event_open) */
	VT_SAMPLING_PERF_TASK, /* perf::task-clock */
};
enum vt_openmp_runtime { VT_OPENMP_LIBOMP, VT_OPENMP_LIBGOMP };
enum vt_sampling_unwind { VT_UNWIND_CFI, VT_UNWIND_LIBUNWIND, VT_UNWIND_FP };
extern struct vt_config vt_cfg;

/* VT_CFG_DURATION: a time with its unit (ns, us, ms, s), into a uint64_t of nanoseconds;
 * min and max in nanoseconds. */
enum vt_cfg_type {
	VT_CFG_BOOL,
	VT_CFG_SIZE,
	VT_CFG_INT,
	VT_CFG_STRING,
	VT_CFG_ENUM,
	VT_CFG_DURATION
};

struct vt_cfg_entry {
	const char *name;
	enum vt_cfg_type type;
	const char *def; /* default, as a user would write it; NULL: unset */
	const char *example;
	const char *help;
	long min, max;		    /* VT_CFG_INT and VT_CFG_SIZE (max 0: none) */
	const char *const *choices; /* VT_CFG_ENUM, NULL-terminated */
	void *dst;		    /* field of vt_cfg */
};

/* The table, for vt-info and the docs. */
const struct vt_cfg_entry *vt_config_table(size_t *n);

/* Returns the environment's value of an entry, or NULL when the default is in force. */
const char *vt_config_raw(const struct vt_cfg_entry *e);

/* Formats the value in force of an entry (after vt_config_load) into buf. */
void vt_config_format(const struct vt_cfg_entry *e, char *buf, size_t len);

/*
 * Reads and validates every variable. Each bad value gets one error line naming the
 * variable, the value and what was expected. Returns 0, or -1 when a value was bad (the
 * defaults stay in force for those, and the caller switches tracing off).
 */
int vt_config_load(void);

/*
 * True in a setuid/setgid (or otherwise privilege-changing) program: the kernel's AT_SECURE.
 * Then vt reads no environment variable at all (secure_getenv), loads no plugin, and traces
 * only when the administrator's file (meson option setuid_conf, default
 * /etc/vt/setuid.conf) exists, is a regular file owned by root and writable by root alone;
 * its NAME=VALUE lines then stand for the environment (docs/security.md).
 */
bool vt_config_secure(void);

/* Reads the administrator's file at path into vt_cfg (after the defaults). Returns 1 when
 * it allows tracing, 0 when it is absent (no trace, not an error), -1 when it is unusable
 * or holds a bad line (said in one error line naming the file). */
int vt_config_load_admin(const char *path);

/* The metrics a Score-P metric plugin is asked for: SCOREP_METRIC_<NAME> (NAME upper-cased),
 * as Score-P reads it, else SCOREP_METRIC_<NAME>_PLUGIN, which some plugins' READMEs set;
 * NULL when neither is set. var gets the variable's name (the one read, or Score-P's). */
const char *vt_config_scorep_plugin(const char *name, char *var, size_t size);

/* Parses "1ms"-style durations (ns, us, ms, s; a decimal fraction allowed) into
 * nanoseconds. Returns 0 or -1. */
int vt_config_parse_duration(const char *s, uint64_t *ns);

/* Parses "64M"-style sizes (k, M, G: powers of 1024). Returns 0 or -1. */
int vt_config_parse_size(const char *s, uint64_t *out);

#endif
