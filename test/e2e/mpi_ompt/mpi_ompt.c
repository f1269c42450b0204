// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_ompt": MPI + OpenMP (libomp): each rank runs REPS parallel loops of 2 threads and
// a critical section per thread, then an MPI_Allreduce of the sums on its main thread.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS  3
#define ITERS 8

int main(int argc, char **argv)
{
	int rank, provided, hits = 0;
	long sum = 0, all = 0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int r = 0; r < REPS; r++) {
#pragma omp parallel for num_threads(2) schedule(static) reduction(+ : sum)
		for (int i = 0; i < ITERS; i++)
			sum += i;
	}
#pragma omp parallel num_threads(2)
	{
#pragma omp critical
		hits++;
	}
	MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d: sum %ld, all %ld, hits %d\n", rank, sum, all, hits);
	MPI_Finalize();
	return hits == 2 ? 0 : 1;
}
