// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_rankfail": rank R calls leaf 1000 * (R + 1) times; each rank prints one line.
#include <mpi.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (long i = 0; i < 1000L * (rank + 1); i++)
		leaf(i);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	printf("rank %d: sink = %ld\n", rank, sink);
	return 0;
}
