// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_nofinalize": after a barrier and an allreduce, rank 1 returns from main without
// calling MPI_Finalize; the other ranks finalize. Open MPI reports the rank that ended
// without finalizing and mpirun exits non-zero. (Nothing is printed after MPI_Finalize: whether
// a rank gets there before mpirun ends it is a race.)
#include <mpi.h>
#include <stdio.h>

static int work(int rank)
{
	int in = rank + 1, sum = 0;
	MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return sum;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: sum %d\n", rank, work(rank));
	fflush(stdout);
	if (rank == 1)
		return 0;
	MPI_Finalize();
	return 0;
}
