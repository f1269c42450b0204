// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_vtoff": user functions around a few MPI calls, for VT_MPITRACE=no (the user
// functions are traced, MPI is not) against the default. main calls compute() COMPUTE times
// and exchange() once (an MPI_Sendrecv around the ring and an MPI_Allreduce), then
// MPI_Barrier.
#include <mpi.h>
#include <stdio.h>

#define COMPUTE 5
#define N 4
#define TAG 5

static volatile double sink;

__attribute__((noinline)) static double compute(int i)
{
	double x = 0;
	for (int k = 0; k <= i * 1000; k++)
		x += k * 0.5;
	sink = x;
	return x;
}

__attribute__((noinline)) static double exchange(int rank, int size, double mine)
{
	int out[N], in[N];
	double all = 0;
	for (int i = 0; i < N; i++)
		out[i] = rank + i;
	MPI_Sendrecv(out, N, MPI_INT, (rank + 1) % size, TAG, in, N, MPI_INT,
		     (rank + size - 1) % size, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mine += in[0];
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return all;
}

int main(int argc, char **argv)
{
	int rank, size;
	double mine = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < COMPUTE; i++)
		mine += compute(i);
	double all = exchange(rank, size, mine);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d of %d: %.1f\n", rank, size, all);
	MPI_Finalize();
	return 0;
}
