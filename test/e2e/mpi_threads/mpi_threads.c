/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI calls from threads other than the master (MPI_THREAD_MULTIPLE): two pthreads, each on
 * its own duplicate of MPI_COMM_WORLD, run collectives and a ring of messages while the
 * master runs collectives on MPI_COMM_WORLD; then OpenMP thread 1 of a team of two runs
 * collectives on a third duplicate. Exits 77 when the MPI gives less than
 * MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

#define WORKERS 2
#define ROUNDS	5

static MPI_Comm comms[WORKERS], omp_comm;
static int rank, size;
static long sums[WORKERS];

static void *worker(void *arg)
{
	int t = (int)(long)arg;
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	for (int i = 0; i < ROUNDS; i++) {
		int v = rank + i + 10 * t, s = 0, got = -1;
		MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comms[t]);
		MPI_Sendrecv(&v, 1, MPI_INT, right, 100 + t, &got, 1, MPI_INT, left, 100 + t,
			     comms[t], MPI_STATUS_IGNORE);
		sums[t] += s + got;
	}
	double x[4] = {rank, t, 0, 0};
	MPI_Bcast(x, 4, MPI_DOUBLE, size - 1, comms[t]);
	MPI_Barrier(comms[t]);
	sums[t] += (long)x[0];
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("no MPI_THREAD_MULTIPLE\n");
		MPI_Finalize();
		return 77;
	}
	for (int t = 0; t < WORKERS; t++)
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
	MPI_Comm_dup(MPI_COMM_WORLD, &omp_comm);

	pthread_t th[WORKERS];
	for (int t = 0; t < WORKERS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	int one = 1, total = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (int t = 0; t < WORKERS; t++)
		pthread_join(th[t], NULL);

	long omp_sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : omp_sum)
	{
		if (omp_get_thread_num() == 1)
			for (int i = 0; i < 3; i++) {
				int v = rank * i, s = 0;
				MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, omp_comm);
				omp_sum += s;
			}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int t = 0; t < WORKERS; t++)
		MPI_Comm_free(&comms[t]);
	MPI_Comm_free(&omp_comm);
	printf("rank %d: total %d sums %ld %ld omp %ld\n", rank, total, sums[0], sums[1], omp_sum);
	MPI_Finalize();
	return 0;
}
