/* SPDX-License-Identifier: BSD-3-Clause */
/* Known MPI statistics for vt-profile --mpi: rank r sends r + 1 messages of 100 * (r + 1)
 * bytes to rank r + 1 (mod size), then 3 barriers, 2 allreduces of 2 ints and a broadcast
 * of 10 ints from rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v[2] = {1, 2}, sum[2], b[10] = {0};
	char buf[1000] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int to = (rank + 1) % size, from = (rank + size - 1) % size;
	/* Small messages go out eagerly: sending all before receiving cannot block. */
	for (int i = 0; i <= rank; i++)
		MPI_Send(buf, 100 * (rank + 1), MPI_BYTE, to, i, MPI_COMM_WORLD);
	for (int i = 0; i <= from; i++)
		MPI_Recv(buf, sizeof(buf), MPI_BYTE, from, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; i < 3; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < 2; i++)
		MPI_Allreduce(v, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(b, 10, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %d %d\n", sum[0], sum[1]);
	MPI_Finalize();
	return 0;
}
