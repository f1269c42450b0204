// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_abort_trace", threads: rank 1 starts two threads, each calls work() 3 times and
// sends rank 0 one message (tag 30 + its number); once both are joined, rank 1 calls
// MPI_Abort(MPI_COMM_WORLD, 5). The other ranks wait in MPI_Recv.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void work(int i)
{
	sink += i;
}

static void *body(void *arg)
{
	int k = (int)(long)arg;
	for (int i = 0; i < 3; i++)
		work(i);
	MPI_Send(&k, 1, MPI_INT, 0, 30 + k, MPI_COMM_WORLD);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided, v;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (provided != MPI_THREAD_MULTIPLE)
		fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
	if (rank == 1) {
		pthread_t t[2];
		for (long k = 0; k < 2; k++)
			pthread_create(&t[k], NULL, body, (void *)k);
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		MPI_Abort(MPI_COMM_WORLD, 5);
	} else if (rank == 0) {
		for (int k = 0; k < 2; k++)
			MPI_Recv(&v, 1, MPI_INT, 1, 30 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Recv(&v, 1, MPI_INT, (rank + 1) % 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
