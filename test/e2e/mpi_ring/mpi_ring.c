/* SPDX-License-Identifier: BSD-3-Clause */
/* Two ranks in ring mode: rounds of leaf calls, a message and a barrier; a snapshot midway. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vt/vt_user.h>

#define ROUNDS 50
#define CALLS  2000

static volatile long sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

/* "alone PATH": rank 0 alone asks, and goes on once PATH (its snapshot) exists. */
static int snapshot(int rank, int argc, char **argv)
{
	if (argc < 3 || strcmp(argv[1], "alone") != 0)
		return VT_USER_SNAPSHOT("round 25");
	if (rank != 0)
		return 0;
	int rc = VT_USER_SNAPSHOT("round 25");
	for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
		usleep(10000);
	return rc;
}

int main(int argc, char **argv)
{
	int rank, v = 0, snap = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int k = 0; k < ROUNDS; k++) {
		for (int i = 0; i < CALLS; i++)
			leaf(i);
		if (rank == 0)
			MPI_Send(&k, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
		if (k == ROUNDS / 2)
			snap = snapshot(rank, argc, argv);
	}
	printf("rank %d snapshot %d\n", rank, snap);
	MPI_Finalize();
	return 0;
}
