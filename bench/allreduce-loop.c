/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instruction-count benchmark's MPI program (bench/run-callgrind.py): N calls of
 * MPI_Allreduce of one double, in a function of their own so that callgrind can count that
 * loop alone (--toggle-collect=allreduce_loop): MPI_Init, the first call (vt registers the
 * region and the communicator there) and MPI_Finalize (where vt writes the trace) are not
 * counted. Run on one rank, where an allreduce is a local copy and nothing waits.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void allreduce_loop(long n, double *x, double *y);

__attribute__((noinline)) void allreduce_loop(long n, double *x, double *y)
{
	for (long i = 0; i < n; i++)
		MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	double x = 1.0, y = 0.0;

	MPI_Init(&argc, &argv);
	/* One call outside the counted loop: any first-call set-up is not in it. */
	MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	allreduce_loop(n, &x, &y);
	MPI_Finalize();
	printf("calls=%ld y=%g\n", n, y);
	return 0;
}
