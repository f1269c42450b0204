/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification: every process's definitions merged, id maps, the global definitions. */
/*
 * The unification: every process's definitions (vt_defs.h) merged into one global set, the
 * local -> global id maps each process writes as OTF2 mapping tables, and the one writer of
 * the global definitions. A single process is the unification of one.
 */
#ifndef VT_UNIFY_H
#define VT_UNIFY_H

#include "defs/vt_defs.h"

#include <otf2/otf2.h>

struct vt_unify_region {
	const char *name, *file; /* file "": not known */
	uint32_t line, paradigm, role;
};

struct vt_unify_comm {
	uint64_t key;
	uint32_t size;
	uint32_t *members;    /* process (rank) of each position; UINT32_MAX: not seen */
	uint32_t thread_rank; /* UINT32_MAX: an MPI comm; else the thread team of that rank */
	const char *name;     /* that of the lowest member that named it; NULL: none did */
	uint32_t name_rank;   /* that member's rank in the communicator */
};

struct vt_unify_loc {
	uint64_t ref;
	const char *name;
	uint64_t events;
	uint32_t rank;
};

struct vt_unify_inst {
	uint64_t recorder, events, owner;
	const char *name;
	uint32_t rank, metric, scope;
};

struct vt_unify_process {
	uint32_t pid;
	const char *host;
	uint32_t node; /* its system tree node: 1 + the host's index */
};

/* Names point into the streams, which must outlive the result. */
struct vt_unified {
	bool mpi;      /* location groups "MPI Rank N" and the MPI groups; else "Process PID" */
	uint32_t size; /* processes */
	/* The world rank of process 0: 0, but in the archive of an MPI rank that ended alone
	 * (vt_otf2_close_alone), which holds that rank only. */
	uint32_t base;
	struct vt_unify_process *procs;
	const char **hosts; /* node i + 1 */
	uint32_t n_hosts;
	uint64_t resolution, realtime, first, last;
	struct vt_unify_loc *locs;
	size_t n_locs;
	struct vt_unify_region *regions; /* global id = index */
	uint32_t n_regions;
	struct vt_unify_comm *comms;
	uint32_t n_comms;
	struct vt_def_metric *metrics; /* global id = index */
	uint32_t n_metrics;
	struct vt_unify_inst *insts; /* global metric id = n_metrics + index */
	uint32_t n_insts;
	struct vt_def_marker *markers; /* every process's, in rank order */
	size_t n_markers;
	struct vt_unify_property {
		const char *name, *value;
		uint32_t rank;
	} * props;
	size_t n_props;
	/* Samples: source code locations, calling contexts (parents first), their interrupt
	 * generators; global id = index. */
	struct vt_unify_scl {
		const char *file;
		uint32_t line;
	} * scls;
	uint32_t n_scls;
	struct vt_unify_ctx {
		uint32_t region, scl, parent; /* scl, parent: UINT32_MAX for none */
	} * ctxs;
	uint32_t n_ctxs;
	struct vt_def_igen *igens;
	uint32_t n_igens;
	/* RMA windows by key (comm: global), and groups of processes by members; global id =
	 * index (a group's OTF2 reference is vt_unify_group_base + index). */
	struct vt_unify_win {
		uint64_t key;
		uint32_t comm;
		const char *name; /* NULL: none given */
	} * wins;
	uint32_t n_wins;
	const char **groups; /* "0,2,5": world ranks */
	uint32_t n_groups;
	/* MPI-IO: files by name, handles by key; global id = index. */
	const char **files;
	uint32_t n_files;
	struct vt_unify_io {
		uint64_t key;	     /* 0: a process's own handle, never merged with another */
		uint32_t comm, file; /* comm UINT32_MAX: none */
		uint32_t paradigm;   /* defs/vt_mpi_defs.h: enum vt_io_paradigm */
		uint32_t parent;     /* global id of the handle it works on, UINT32_MAX: none */
	} * ios;
	uint32_t n_ios;
	/*
	 * Threads that make MPI calls (vt_def_commuse): each such location is a member of the
	 * MPI locations after the ranks' master threads (their OTF2 ids in mpi_extra); rank r's
	 * k-th thread on communicator c (k >= 1 in location order; the master is lane 0) is the
	 * member of the lane's own definition of c, whose global id is n_comms + the index in
	 * lanes. A rank with fewer threads on c has its master there.
	 */
	uint64_t *mpi_extra;
	uint32_t n_mpi_extra;
	struct vt_unify_lane {
		uint32_t comm, lane;
		uint64_t *locs; /* per member of comm: the location */
	} * lanes;
	uint32_t n_lanes;
	/* OpenMP thread teams (vt_def_team), every process's: global communicator id
	 * n_comms + n_lanes + index, after the lanes. */
	struct vt_unify_team {
		uint32_t rank, local; /* its process, and its local id there */
		const char *members;  /* "REF,REF": location ids in thread order */
	} * teams;
	uint32_t n_teams;
	struct vt_defs_buf *maps; /* per process: the id maps (vt_unify_maps_read) */
};

/* The local id of a process's thread team communicator (its threads' ThreadBegin/End). */
#define VT_UNIFY_THREAD_COMM_LOCAL 0xFFFFFF00u

/* VT_MODE=ring: the one attribute of the trace (global id, no mapping), on the Enter of a
 * frame open at the start of a location's window; its value is when the frame was entered
 * (record/vt_ring.h). */
#define VT_UNIFY_ATTR_ENTERED	   0u
#define VT_UNIFY_ATTR_ENTERED_NAME "vt::entered_before_window"
/* VT_MODE=ring, a job's snapshot: on a message or collective end whose other end the
 * window left out (type UINT8): 1 a receive whose send was before the window, 2 a send
 * received after it, 3 a collective's end that other members ended outside it. */
#define VT_UNIFY_ATTR_CUT      1u
#define VT_UNIFY_ATTR_CUT_NAME "vt::outside_window"

/* Merges the streams of n processes (all: their concatenation, sizes: each one's length,
 * in rank order). 0, or -1 after an error line (a stream did not decode). */
int vt_unify_merge(struct vt_unified *u, const char *all, const size_t *sizes, uint32_t n,
		   bool mpi);

/* The one writer of global definitions. */
void vt_unify_write_global(OTF2_GlobalDefWriter *gw, const struct vt_unified *u);

/* The markers (the archive's marker file) and the trace properties: each property by its
 * name as given, or NAME::RANK<r> for a rank whose value differs from the first rank's. */
void vt_unify_write_annotations(OTF2_Archive *archive, const struct vt_unified *u);

void vt_unify_free(struct vt_unified *u);

/* One process's id maps, as merge made them: local -> global pairs; then the communicators
 * that differ for one of its threads: (location id low, high 32 bits, local, global). Merge
 * sends each map as runs of consecutive ids (local start, global start, length); reading one
 * expands its pairs. */
struct vt_unify_maps {
	uint32_t n_regions, n_comms, n_metrics, n_ctxs, n_igens, n_wins, n_groups, n_ios;
	const uint32_t *regions, *comms, *metrics, *ctxs, *igens, *wins, *groups, *ios; /* pairs */
	/* I/O files: a handle's local id (vt_mpi_defs_io_file) -> its global file. */
	uint32_t n_files;
	const uint32_t *files;
	uint32_t n_thread_comms;
	const uint32_t *thread_comms; /* quadruples */
	uint32_t *mem;		      /* the expanded pairs (vt_unify_maps_free) */
};

/* The OTF2 reference of the first group of processes (after the paradigms' and the
 * communicators' groups). */
uint32_t vt_unify_group_base(const struct vt_unified *u);

/* Reads the maps of map (n bytes; must stay alive), expanding their runs into pairs. 0, or
 * -1 when damaged or memory ran out (out then holds nothing). */
int vt_unify_maps_read(const char *map, size_t n, struct vt_unify_maps *out);

/* Frees what vt_unify_maps_read expanded. */
void vt_unify_maps_free(struct vt_unify_maps *m);

#endif
