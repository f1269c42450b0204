/* SPDX-License-Identifier: BSD-3-Clause */
/* Two ranks, a job's snapshot whose window cuts a message and a broadcast at each end. */
#include <mpi.h>
#include <stdio.h>
#include <vt/vt_user.h>

#define WORK 20000 /* rank 0's leaf calls: several rings of 128k, its window starts in them */

static volatile long sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

/*
 * The window: from rank 0's oldest kept record (in its work) to rank 1's snapshot (rank 0
 * asks after rank 1 has, tag 6). Sent and broadcast before it, received in it: tag 1 and the
 * first broadcast; sent and broadcast in it, received after it: tag 4 and the second one.
 * Tags 2, 5 and 3 are sent and received in it.
 */
int main(int argc, char **argv)
{
	int rank, v = 7, snap;
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(w, &rank);
	if (rank == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 1, w);
		MPI_Bcast(&v, 1, MPI_INT, 0, w);
		for (int i = 0; i < WORK; i++)
			leaf(i);
		MPI_Send(&v, 1, MPI_INT, 1, 2, w);
		MPI_Recv(&v, 1, MPI_INT, 1, 5, w, MPI_STATUS_IGNORE);
		MPI_Send(&v, 1, MPI_INT, 1, 4, w);
		MPI_Bcast(&v, 1, MPI_INT, 0, w);
		MPI_Send(&v, 1, MPI_INT, 1, 3, w);
		MPI_Recv(&v, 1, MPI_INT, 1, 6, w, MPI_STATUS_IGNORE);
		snap = VT_USER_SNAPSHOT("cut");
	} else {
		MPI_Recv(&v, 1, MPI_INT, 0, 2, w, MPI_STATUS_IGNORE);
		MPI_Recv(&v, 1, MPI_INT, 0, 1, w, MPI_STATUS_IGNORE);
		MPI_Bcast(&v, 1, MPI_INT, 0, w);
		MPI_Send(&v, 1, MPI_INT, 0, 5, w);
		MPI_Recv(&v, 1, MPI_INT, 0, 3, w, MPI_STATUS_IGNORE);
		snap = VT_USER_SNAPSHOT("cut");
		MPI_Send(&v, 1, MPI_INT, 0, 6, w);
		MPI_Recv(&v, 1, MPI_INT, 0, 4, w, MPI_STATUS_IGNORE);
		MPI_Bcast(&v, 1, MPI_INT, 0, w);
	}
	MPI_Barrier(w);
	printf("rank %d snapshot %d\n", rank, snap);
	MPI_Finalize();
	return 0;
}
