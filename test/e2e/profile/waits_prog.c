/* SPDX-License-Identifier: BSD-3-Clause */
/* A Late Sender for vt-profile --waits: rank 1 sleeps 300 ms in late_work, then sends. */
#include <mpi.h>
#include <time.h>

static void late_work(void)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		late_work();
		MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	} else if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
