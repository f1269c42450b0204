/* SPDX-License-Identifier: BSD-3-Clause */
/* The program of bench/run-sim.py: ITER iterations per rank of 48 calls of a tiny function,
 * a ring MPI_Sendrecv every 10th iteration and an MPI_Allreduce every 500th: with vt about
 * 100 events per iteration. Usage: sim-app ITER */
#include <mpi.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void tiny(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int rank, size;
	long iter = argc > 1 ? atol(argv[1]) : 1000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (long it = 0; it < iter; it++) {
		for (int i = 0; i < 48; i++)
			tiny(i);
		if (it % 10 == 0) {
			int a = rank, b;
			MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % size, 0, &b, 1, MPI_INT,
				     (rank + size - 1) % size, 0, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
		}
		if (it % 500 == 0) {
			double v = rank, s;
			MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
