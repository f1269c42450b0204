/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --mpi's sums, for vt-profile-mpi: fed by the split matching, merged at process 0. */
/*
 * vt-profile-mpi --mpi on N processes: the split reading of --waits (waits_split.h) matches
 * each message at its receiver's process and each collective at one process; its callbacks
 * (vt_prof_mpi_split_callbacks) add them here. Every process's pairs and collective kinds go
 * to process 0 (waits_mpi.c), which adds them up and prints them as the serial --mpi does.
 */
#ifndef VT_PROFILE_MPI_STATS_H
#define VT_PROFILE_MPI_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "waits_split.h"

/* Messages and bytes from one rank to another (VTR_NONE: a location outside MPI). */
struct vt_prof_mpi_pair {
	uint32_t from, to;
	uint64_t count, bytes;
};

/* One collective kind: its instances, its members' time in them and their bytes. */
struct vt_prof_mpi_kind {
	uint64_t instances, time, sent, received;
};

/* The kinds: OTF2's collective operations, then one for those this build does not know. */
#define VT_PROF_MPI_KINDS (VTR_COLL_OPS + 1)

struct vt_prof_mpi_stats;

/* t: the trace whose locations the split records index. */
struct vt_prof_mpi_stats *vt_prof_mpi_new(const struct vtr_trace *t);
void vt_prof_mpi_free(struct vt_prof_mpi_stats *m);
/* Sums made elsewhere added in: count messages of bytes from a rank to another; a kind's. */
void vt_prof_mpi_add_pair(struct vt_prof_mpi_stats *m, const struct vt_prof_mpi_pair *p);
void vt_prof_mpi_add_kind(struct vt_prof_mpi_stats *m, size_t kind,
			  const struct vt_prof_mpi_kind *k);
/* The sums so far: the pairs (in no order), the VT_PROF_MPI_KINDS kinds. */
const struct vt_prof_mpi_pair *vt_prof_mpi_pairs(const struct vt_prof_mpi_stats *m, size_t *n);
const struct vt_prof_mpi_kind *vt_prof_mpi_kinds(const struct vt_prof_mpi_stats *m);
/* The report in opt's format, problems: the unmatched messages and collectives. */
void vt_prof_mpi_print(struct vt_prof_mpi_stats *m, const struct vt_prof_trace *tr,
		       const struct vt_prof_options *opt, FILE *out, uint64_t problems);

/* The split matching's callbacks that add its messages and collectives to m (user). */
const struct vt_prof_wsplit_cp *vt_prof_mpi_split_callbacks(void);

#endif
