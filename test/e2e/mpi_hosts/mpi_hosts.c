/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs across hosts: a ring of 3 messages per rank, then an Allreduce and the host names. */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) void ring(int rank, int size)
{
	int v = rank, w;
	for (int k = 0; k < 3; k++) {
		int right = (rank + 1) % size, left = (rank + size - 1) % size;
		if (rank % 2 == 0) {
			MPI_Send(&v, 1, MPI_INT, right, 60 + k, MPI_COMM_WORLD);
			MPI_Recv(&w, 1, MPI_INT, left, 60 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&w, 1, MPI_INT, left, 60 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, right, 60 + k, MPI_COMM_WORLD);
		}
	}
}

int main(int argc, char **argv)
{
	int rank, size, sum, len;
	char host[MPI_MAX_PROCESSOR_NAME];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ring(rank, size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Get_processor_name(host, &len);
	printf("rank %d on %s: sum %d\n", rank, host, sum);
	MPI_Finalize();
	return 0;
}
