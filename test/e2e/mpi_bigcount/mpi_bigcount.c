/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI 4.0's large-count forms (MPICH 4.0; Open MPI 4.1 has none): on 2 ranks, rank 0
 * MPI_Send_c's 1000 doubles to rank 1's MPI_Recv_c (tag 1); both MPI_Sendrecv_c 10 ints
 * (tag 2); both MPI_Sendrecv_replace_c 3 ints (tag 3); rank 1 MPI_Isend_c's 5 ints to rank
 * 0's MPI_Irecv_c (tag 4), each completed by MPI_Wait; MPI_Allreduce_c of 4 doubles and
 * MPI_Bcast_c of 6 ints from rank 1. One line per rank.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			printf("needs 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	int peer = 1 - rank;
	static double big[1000];
	for (int i = 0; i < 1000; i++)
		big[i] = rank + i;
	if (rank == 0)
		MPI_Send_c(big, 1000, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
	else
		MPI_Recv_c(big, 1000, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	int out[10], in[10], three[3] = {rank, rank, rank};
	for (int i = 0; i < 10; i++)
		out[i] = rank * 100 + i;
	MPI_Sendrecv_c(out, 10, MPI_INT, peer, 2, in, 10, MPI_INT, peer, 2, MPI_COMM_WORLD,
		       MPI_STATUS_IGNORE);
	MPI_Sendrecv_replace_c(three, 3, MPI_INT, peer, 3, peer, 3, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE);

	int five[5] = {rank, 1, 2, 3, 4};
	MPI_Request req;
	if (rank == 1)
		MPI_Isend_c(five, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
	else
		MPI_Irecv_c(five, 5, MPI_INT, 1, 4, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	double d[4] = {rank, rank, rank, rank}, sum[4];
	MPI_Allreduce_c(d, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	int six[6] = {rank, rank, rank, rank, rank, rank};
	MPI_Bcast_c(six, 6, MPI_INT, 1, MPI_COMM_WORLD);

	printf("rank %d: %g %d %d %d %g %d\n", rank, big[999], in[9], three[0], five[0], sum[3],
	       six[5]);
	MPI_Finalize();
	return 0;
}
