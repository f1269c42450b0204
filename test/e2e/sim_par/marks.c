/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_par's ranks with markers: each rank marks its steps, the ranks' work uneven. */
#include <mpi.h>
#include <stdio.h>

#include <vt/vt_user.h>

static volatile double sink;

void work(int n)
{
	for (int i = 0; i < n * 20000; i++)
		sink += i * 0.5;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int step = 0; step < 3; step++) {
		work(1 + rank * (step + 1));
		char text[64];
		snprintf(text, sizeof(text), "rank %d after step %d", rank, step);
		VT_USER_MARKER("step", text);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		VT_USER_MARKER("end", "rank 0 done");
	MPI_Finalize();
	return 0;
}
