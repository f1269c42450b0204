/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood collectives: the bytes a rank moves, from its communicator's topology. */
#include "vt_mpi_adapter.h"

#include <stdlib.h>
#include <string.h>

/*
 * A rank's neighbours in the order neighbourhood collectives use their buffers: sources
 * (out = 0) or destinations (out = 1). Cartesian: per dimension the lower then the upper
 * neighbour (MPI_PROC_NULL at a non-periodic border); graph: the neighbours, both ways;
 * distributed graph: its sources and destinations. Returns how many (at most max), -1 for a
 * communicator without a topology.
 */
static int neighbors(MPI_Comm comm, int out, int *nbr, int max)
{
	int topo = MPI_UNDEFINED, n = 0;
	if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
		return -1;
	if (topo == MPI_CART) {
		int dims = 0;
		PMPI_Cartdim_get(comm, &dims);
		for (int d = 0; d < dims; d++) {
			int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
			PMPI_Cart_shift(comm, d, 1, &lo, &hi);
			if (n < max)
				nbr[n] = lo;
			if (n + 1 < max)
				nbr[n + 1] = hi;
			n += 2;
		}
		return n;
	}
	if (topo == MPI_GRAPH) {
		int me = vtw_comm_rank(comm);
		PMPI_Graph_neighbors_count(comm, me, &n);
		if (n > 0 && n <= max)
			PMPI_Graph_neighbors(comm, me, n, nbr);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		int in = 0, outd = 0, weighted = 0;
		PMPI_Dist_graph_neighbors_count(comm, &in, &outd, &weighted);
		n = out ? outd : in;
		if (n > 0 && in <= max && outd <= max) {
			int *src = malloc(sizeof(int) * (size_t)(in + 1) * 2);
			int *dst = malloc(sizeof(int) * (size_t)(outd + 1) * 2);
			if (src && dst &&
			    PMPI_Dist_graph_neighbors(comm, in, src, src + in + 1, outd, dst,
						      dst + outd + 1) == MPI_SUCCESS)
				memcpy(nbr, out ? dst : src, sizeof(int) * (size_t)n);
			else
				n = -1;
			free(src);
			free(dst);
		}
		return n;
	}
	return -1;
}

uint64_t vtw_neighbor_bytes(MPI_Comm comm, int out, MPI_Count count, const int counts[],
			    MPI_Datatype type, const MPI_Datatype types[])
{
	int small[64], *nbr = small;
	int n = neighbors(comm, out, small, 64);
	if (n > 64) {
		nbr = malloc(sizeof(int) * (size_t)n);
		if (!nbr || neighbors(comm, out, nbr, n) != n) {
			free(nbr);
			return 0;
		}
	}
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		if (nbr[i] != MPI_PROC_NULL)
			total += vtw_bytes(counts ? counts[i] : count, types ? types[i] : type);
	if (nbr != small)
		free(nbr);
	return total;
}

int vtw_neighbor_max(MPI_Comm comm)
{
	int in = neighbors(comm, 0, NULL, 0), out = neighbors(comm, 1, NULL, 0);
	return in > out ? in : out;
}
