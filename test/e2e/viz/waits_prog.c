/* SPDX-License-Identifier: BSD-3-Clause */
/* Known waits for vt-report's sections: rank 1 late at K barriers, rank 2 a late sender. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

/* Sleeps ms milliseconds; a macro, so that the time is the caller's own (a function of its own
 * would be a call path of its own). */
#define NAP(ms)                                                                                    \
	do {                                                                                       \
		struct timespec ts_ = {(ms) / 1000, ((ms) % 1000) * 1000 * 1000};                  \
		while (nanosleep(&ts_, &ts_) != 0)                                                 \
			;                                                                          \
	} while (0)

/* Every rank works 2 ms an iteration, rank 1 DELAY ms more. */
static __attribute__((noinline)) void work(int rank, long delay)
{
	NAP(rank == 1 ? 2 + delay : 2);
}

static __attribute__((noinline)) void produce(void)
{
	NAP(30L);
}

int main(int argc, char **argv)
{
	int rank, v = 1, sum = 0;
	int k = argc > 1 ? atoi(argv[1]) : 4;
	long delay = argc > 2 ? atol(argv[2]) : 40;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < k; i++) {
		work(rank, delay);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	/* Rank 0 waits in MPI_Recv while rank 2 produces. */
	if (rank == 2) {
		produce();
		MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	} else if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return sum == 3 ? 0 : 1;
}
