/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e2e "vtrun": an MPI program built with plain mpicc (and its vtcc-built twin): a ring of
 * sends, an Allreduce, a Bcast and a Barrier; one line per rank.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v, got = -1, total = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	v = rank;
	MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
		     (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Allreduce(&v, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d got %d total %d\n", rank, got, total);
	MPI_Finalize();
	return 0;
}
