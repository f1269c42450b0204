/* SPDX-License-Identifier: BSD-3-Clause */
/* A delay for vt-profile --critical-path: rank 1's solve sleeps 300 ms more before an Allreduce. */
#include <mpi.h>
#include <time.h>

/* The sleep in solve itself (a function of its own would be a call path of its own). */
static void solve(int rank)
{
	struct timespec ts = {0, (rank == 1 ? 350 : 50) * 1000 * 1000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int rank, v = 1, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	solve(rank);
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return sum == 3 ? 0 : 1;
}
