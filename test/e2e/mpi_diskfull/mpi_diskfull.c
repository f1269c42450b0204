// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_diskfull": rank 0 makes tens of MB of events, the others a few; each prints one
// line.
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
	long n = rank == 0 ? 3000000 : 1000;
	for (long i = 0; i < n; i++)
		leaf(i);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	printf("rank %d: sink = %ld\n", rank, sink);
	return 0;
}
