// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_abort": every rank prints a line, all meet in a barrier, then rank 1 calls
// MPI_Abort(MPI_COMM_WORLD, 3) from inside a function while the others wait in MPI_Recv for
// a message that never comes. MPI then ends every rank; mpirun exits non-zero.
#include <mpi.h>
#include <stdio.h>

static void give_up(int rank)
{
	printf("rank %d: aborting\n", rank);
	fflush(stdout);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

static void wait_forever(int rank)
{
	int x;
	MPI_Recv(&x, 1, MPI_INT, (rank + 1) % 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d: never printed\n", rank);
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d: started\n", rank);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		give_up(rank);
	else
		wait_forever(rank);
	MPI_Finalize();
	return 0;
}
