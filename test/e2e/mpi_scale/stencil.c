// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_scale": a small 1-D stencil on many ranks (the test runs 64, oversubscribed):
// STEPS iterations of a halo exchange with both neighbours on a periodic ring (MPI_Irecv,
// MPI_Isend, MPI_Waitall; N doubles each way), a local update, and every 5th step an
// MPI_Allreduce of the residual; last an MPI_Reduce of the checksum to rank 0. Each rank
// prints one line.
#include <mpi.h>
#include <stdio.h>

#define N 16
#define STEPS 20

static double u[N + 2], v[N + 2];

__attribute__((noinline)) static void exchange(int left, int right)
{
	MPI_Request q[4];
	MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &q[0]);
	MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &q[1]);
	MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &q[2]);
	MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &q[3]);
	MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
}

__attribute__((noinline)) static double update(void)
{
	double r = 0;
	for (int i = 1; i <= N; i++) {
		v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
		r += (v[i] - u[i]) * (v[i] - u[i]);
	}
	for (int i = 1; i <= N; i++)
		u[i] = v[i];
	return r;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	for (int i = 0; i < N + 2; i++)
		u[i] = rank == 0 && i == 1 ? 1000.0 : 0.0;
	double res = 0, sum = 0, total = 0;
	for (int s = 0; s < STEPS; s++) {
		exchange(left, right);
		double r = update();
		if (s % 5 == 4)
			MPI_Allreduce(&r, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	for (int i = 1; i <= N; i++)
		sum += u[i];
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	printf("rank %d: %s\n", rank, rank == 0 ? (total > 999.0 && total < 1001.0 ? "conserved" : "lost") : "done");
	MPI_Finalize();
	return 0;
}
