/* SPDX-License-Identifier: BSD-3-Clause */
/* A small deterministic MPI program whose ranks define regions all, some or one enter. */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static __attribute__((noinline)) double work(int rank)
{
	double x = 0;
	for (int i = 0; i < 1000; i++)
		x += (rank + 1) * 0.5 / (i + 1);
	return x;
}

static __attribute__((noinline)) void every_third(void)
{
	sink = sink + 3;
}

static __attribute__((noinline)) void last_rank(void)
{
	sink = sink + 1;
}

int main(int argc, char **argv)
{
	int rank, size, got = -1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	if (rank % 2 == 0)
		MPI_Comm_set_name(half, "evens");
	double x = work(rank), sum = 0;
	if (rank % 3 == 0)
		every_third();
	if (rank == size - 1)
		last_rank();
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
	MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT,
		     (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_free(&half);
	printf("rank %d got %d sum %.3f\n", rank, got, sum);
	MPI_Finalize();
	return 0;
}
