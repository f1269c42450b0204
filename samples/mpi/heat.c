/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI sample of the main job: 1-D heat diffusion with halo exchange and a global norm. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 20000
#define STEPS 200

static void exchange_halos(double *u, int n, int left, int right, MPI_Comm comm)
{
	MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, comm,
		     MPI_STATUS_IGNORE);
	MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, comm,
		     MPI_STATUS_IGNORE);
}

static void relax(const double *u, double *v, int n)
{
	for (int i = 1; i <= n; i++)
		v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
}

static double norm(const double *u, int n, MPI_Comm comm)
{
	double local = 0, global;
	for (int i = 1; i <= n; i++)
		local += u[i] * u[i];
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
	return sqrt(global);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int n = CELLS / size;
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	double *u = calloc((size_t)n + 2, sizeof(double));
	double *v = calloc((size_t)n + 2, sizeof(double));
	if (rank == 0)
		u[1] = 1000.0;
	double nrm = 0;
	for (int step = 0; step < STEPS; step++) {
		exchange_halos(u, n, left, right, MPI_COMM_WORLD);
		relax(u, v, n);
		double *t = u;
		u = v;
		v = t;
		if (step % 50 == 49)
			nrm = norm(u, n, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%d ranks, %d steps: norm %.6f\n", size, STEPS, nrm);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
