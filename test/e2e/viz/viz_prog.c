/* SPDX-License-Identifier: BSD-3-Clause */
/* The program the viewers' tests trace (vt-export, vt-report): on every rank 2 threads call
 * kernel 4 times each while the master thread sends 64 * (rank + 1) bytes to the next rank and
 * receives from the previous one; then a barrier and an allreduce. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define CALLS	4

__attribute__((noinline)) double kernel(int n)
{
	volatile double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	return s;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int k = 0; k < CALLS; k++)
		kernel(200000);
	return NULL;
}

__attribute__((noinline)) void exchange(int rank, int size)
{
	char buf[512] = {0};
	int to = (rank + 1) % size, from = (rank + size - 1) % size;
	MPI_Send(buf, 64 * (rank + 1), MPI_BYTE, to, 1, MPI_COMM_WORLD);
	MPI_Recv(buf, sizeof(buf), MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, size, one = 1, sum = 0;
	pthread_t th[THREADS];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	exchange(rank, size);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ranks %d\n", sum);
	MPI_Finalize();
	return 0;
}
