// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_coll": collectives whose events test_mpi_coll.py derives by hand (any number of
// ranks >= 2): on MPI_COMM_WORLD Barrier, Bcast (root 0), Reduce (root size - 1),
// Allreduce, Gather (root 0), Scatter (root 0), Allgather, Alltoall, Scan; then
// MPI_Comm_split by parity (key: the world rank) with an Allreduce and a Bcast rooted at the
// sub-communicator's last rank; MPI_Comm_dup of the world with a Barrier on it; both freed;
// last a Barrier on MPI_COMM_SELF. Counts are of MPI_INT (4 bytes). Each rank prints one
// line of results.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BCAST_N 10
#define REDUCE_N 3
#define ALLREDUCE_N 6
#define GATHER_N 2
#define SCATTER_N 5
#define ALLGATHER_N 3
#define ALLTOALL_N 4
#define SCAN_N 1
#define SUB_ALLREDUCE_N 4
#define SUB_BCAST_N 2

static int rank, size;

__attribute__((noinline)) static long world_collectives(void)
{
	int b[BCAST_N], in[8], out[8], *all = malloc(sizeof(int) * 8 * (size_t)size),
				       *all2 = malloc(sizeof(int) * 8 * (size_t)size);
	long sum = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < BCAST_N; i++)
		b[i] = rank == 0 ? i + 1 : 0;
	MPI_Bcast(b, BCAST_N, MPI_INT, 0, MPI_COMM_WORLD);
	sum += b[BCAST_N - 1];
	for (int i = 0; i < 8; i++)
		in[i] = rank + i, out[i] = 0;
	MPI_Reduce(in, out, REDUCE_N, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
	sum += out[0] * 10;
	MPI_Allreduce(in, out, ALLREDUCE_N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	sum += out[ALLREDUCE_N - 1] * 100;
	MPI_Gather(in, GATHER_N, MPI_INT, all, GATHER_N, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		sum += all[GATHER_N * (size - 1)] * 1000;
	for (int i = 0; i < SCATTER_N * size; i++)
		all[i] = i;
	MPI_Scatter(all, SCATTER_N, MPI_INT, out, SCATTER_N, MPI_INT, 0, MPI_COMM_WORLD);
	sum += out[0] * 10000;
	MPI_Allgather(in, ALLGATHER_N, MPI_INT, all, ALLGATHER_N, MPI_INT, MPI_COMM_WORLD);
	sum += all[ALLGATHER_N * size - 1] * 100000;
	for (int i = 0; i < ALLTOALL_N * size; i++)
		all[i] = rank * 100 + i;
	MPI_Alltoall(all, ALLTOALL_N, MPI_INT, all2, ALLTOALL_N, MPI_INT, MPI_COMM_WORLD);
	sum += all2[ALLTOALL_N * size - 1] * 1000000L;
	MPI_Scan(in, out, SCAN_N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	sum += out[0] * 100000000L;
	free(all);
	free(all2);
	return sum;
}

__attribute__((noinline)) static long sub_collectives(void)
{
	MPI_Comm sub, dup;
	int srank, ssize, in[SUB_ALLREDUCE_N], out[SUB_ALLREDUCE_N], b[SUB_BCAST_N];
	long sum = 0;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
	MPI_Comm_rank(sub, &srank);
	MPI_Comm_size(sub, &ssize);
	for (int i = 0; i < SUB_ALLREDUCE_N; i++)
		in[i] = rank;
	MPI_Allreduce(in, out, SUB_ALLREDUCE_N, MPI_INT, MPI_SUM, sub);
	sum += out[0];
	for (int i = 0; i < SUB_BCAST_N; i++)
		b[i] = srank == ssize - 1 ? rank : -1;
	MPI_Bcast(b, SUB_BCAST_N, MPI_INT, ssize - 1, sub);
	sum += b[0] * 100;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Barrier(dup);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&sub);
	return sum * 10000 + srank * 100 + ssize;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long w = world_collectives();
	long s = sub_collectives();
	MPI_Barrier(MPI_COMM_SELF);
	printf("rank %d of %d: world %ld sub %ld\n", rank, size, w, s);
	MPI_Finalize();
	return 0;
}
