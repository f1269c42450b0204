/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives over the ranks that opening, unifying and closing an archive need. */
#ifndef VT_MPI_OPS_H
#define VT_MPI_OPS_H

#include <stddef.h>

/*
 * Made by libvt-mpi with PMPI only (so that vt's own communication never shows in the
 * trace), and by archive/ for a process on its own (a group of one). The type lives with
 * the definitions, which are unified over it, below the archive and the MPI adapter that
 * both use it.
 */
/*
 * Collective operations over MPI_COMM_WORLD, made by the adapter with PMPI only, so that
 * vt's own communication never shows in the trace. Written once by vt_mpi_attach.
 */
struct vt_mpi_ops {
	int rank, size;
	void (*bcast)(void *buf, size_t n, int root);
	/* Gathers n bytes of each rank at rank 0: returns the concatenation (malloc'd) and
	 * each rank's size in *sizes (malloc'd), at rank 0 only; NULL elsewhere. */
	void *(*gather)(const void *buf, size_t n, size_t **sizes);
	/* Rank 0 gives each rank its buffer; returns this rank's (malloc'd), its size in *n. */
	void *(*scatter)(void *const *bufs, const size_t *sizes, size_t *n);
	/* Sets libotf2's collective callbacks of the archive (OTF2_Archive *). */
	void (*set_collectives)(void *archive);
	/* Point to point, for the unification's tree (vt_unify_tree.h): n bytes to rank to;
	 * the next message from rank from (malloc'd, NULL when memory ran out), its size in *n.
	 * NULL in a group of one. */
	void (*send)(const void *buf, size_t n, int to);
	void *(*recv)(int from, size_t *n);
};

#endif
