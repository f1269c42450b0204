// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_ompt": MPI + OpenMP (libomp): each rank runs REPS parallel loops of 2 threads and
// a critical section per thread, then an MPI_Allreduce of the sums on its main thread. With
// MPI_OMPT_MULTIPLE set, MPI_THREAD_MULTIPLE: before that, a parallel region in which both
// threads call MPI_Allreduce at once, each on a communicator of its own.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS  3
#define ITERS 8

int main(int argc, char **argv)
{
	int rank, provided, hits = 0, ok = 1;
	long sum = 0, all = 0;
	int multiple = getenv("MPI_OMPT_MULTIPLE") != NULL;

	MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED,
			&provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (multiple) {
		MPI_Comm comms[2];
		long got[2] = {0, 0};
		ok = provided == MPI_THREAD_MULTIPLE;
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
#pragma omp parallel num_threads(2)
		{
			int me = omp_get_thread_num();
			long mine = me + 1;
			MPI_Allreduce(&mine, &got[me], 1, MPI_LONG, MPI_SUM, comms[me]);
		}
		int size;
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		ok = ok && got[0] == size && got[1] == 2 * size;
		MPI_Comm_free(&comms[0]);
		MPI_Comm_free(&comms[1]);
	}
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
	printf("rank %d: sum %ld, all %ld, hits %d, ok %d\n", rank, sum, all, hits, ok);
	MPI_Finalize();
	return hits == 2 && ok ? 0 : 1;
}
