/* SPDX-License-Identifier: BSD-3-Clause */
/* The program of bench/run-waits.py: messages and collectives that wait, for vt-profile --waits. */
/*
 * Per iteration and rank: 8 calls of a tiny function (one more per rank number, so that the
 * ranks drift apart), a message exchange between rank pairs (the even rank sends first, the
 * odd one receives first), an MPI_Allreduce every 4th iteration, an MPI_Bcast from rank 0
 * every 16th and an MPI_Barrier every 64th. Usage: waits-app ITER
 */
#include <mpi.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void tiny(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int rank, size, v = 1, sum;
	long iter = argc > 1 ? atol(argv[1]) : 1000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = rank ^ 1;
	for (long it = 0; it < iter; it++) {
		for (int i = 0; i < 8 + rank; i++)
			tiny(i);
		if (peer < size) {
			if (rank % 2 == 0) {
				MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
				MPI_Recv(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
			}
		}
		if (it % 4 == 0)
			MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (it % 16 == 0)
			MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (it % 64 == 0)
			MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
