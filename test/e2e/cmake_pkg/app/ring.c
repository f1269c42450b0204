/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program built by CMake with vt_instrument(ring MPI): per rank MPI_Init,
 * MPI_Comm_rank, MPI_Comm_size, MPI_Finalize once, 3 MPI_Sendrecv, 2 MPI_Allreduce, and
 * exchange() 3 times. */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) int exchange(int rank, int size, int v)
{
	int got = -1;
	MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT,
		     (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return got;
}

int main(int argc, char **argv)
{
	int rank, size, v, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	v = rank;
	for (int i = 0; i < 3; i++)
		v = exchange(rank, size, v);
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ring %d\n", sum);
	MPI_Finalize();
	return 0;
}
