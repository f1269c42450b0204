/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the ranks of an MPI run are: gathered once at MPI_Init, shared by every user. */
#ifndef VT_TOPO_H
#define VT_TOPO_H

#include <stdbool.h>
#include <stdint.h>

struct vt_mpi_ops;

/* Written once by vt_topo_gather, read-only after. */
struct vt_topo {
	int rank, size;
	uint32_t n_hosts;
	const char **hosts; /* n_hosts names, in the order of their first rank */
	uint32_t *host_of;  /* per rank: its index in hosts */
	bool host_first;    /* this rank is the lowest of its host */
};

/* Collective over MPI_COMM_WORLD (PMPI, through ops): every rank learns every rank's host.
 * Returns the topology, or NULL when memory ran out (every rank still took part). */
const struct vt_topo *vt_topo_gather(const struct vt_mpi_ops *ops);

/* The topology of this run: NULL before MPI_Init, and in a program without MPI. */
const struct vt_topo *vt_topo(void);

#endif
