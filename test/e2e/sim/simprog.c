/* SPDX-License-Identifier: BSD-3-Clause */
/* The program vt-sim's tests replay: a ping-pong, a stencil (Irecv/Isend, Waitall,
 * Waitsome, Allreduce), collectives and a second thread, with compute regions of known
 * relative length. Rank count: any >= 2. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;

/* A busy wait, as a macro so that the regions using it have no child region. */
#define SPIN(usec)                                                                                 \
	do {                                                                                       \
		struct timespec a_, b_;                                                            \
		clock_gettime(CLOCK_MONOTONIC, &a_);                                               \
		do {                                                                               \
			for (int i_ = 0; i_ < 100; i_++)                                           \
				sink += i_ * 0.5;                                                  \
			clock_gettime(CLOCK_MONOTONIC, &b_);                                       \
		} while ((b_.tv_sec - a_.tv_sec) * 1000000L + (b_.tv_nsec - a_.tv_nsec) / 1000 <   \
			 (usec));                                                                  \
	} while (0)

/* Compute phases: rank 0 works longest, so the others wait for it. */
void compute(int rank)
{
	SPIN(rank == 0 ? 3000 : 1000);
}

void pingpong(int rank)
{
	char buf[4096];
	for (int i = 0; i < 5; i++) {
		if (rank == 0) {
			MPI_Send(buf, 1000, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, 4096, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, 1000, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			SPIN(200);
			MPI_Send(buf, 4096, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
		}
	}
	/* A synchronous send, which completes only once its receive started (late). */
	if (rank == 0) {
		MPI_Ssend(buf, 100, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
	} else if (rank == 1) {
		SPIN(300);
		MPI_Recv(buf, 100, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

void stencil(int rank, int size)
{
	double left[256] = {0}, right[256] = {0}, mine[256] = {0};
	int l = (rank + size - 1) % size, r = (rank + 1) % size;
	for (int it = 0; it < 4; it++) {
		MPI_Request req[4];
		MPI_Irecv(left, 256, MPI_DOUBLE, l, 10, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(right, 128, MPI_DOUBLE, r, 11, MPI_COMM_WORLD, &req[1]);
		compute(rank);
		MPI_Isend(mine, 256, MPI_DOUBLE, r, 10, MPI_COMM_WORLD, &req[2]);
		MPI_Isend(mine, 128, MPI_DOUBLE, l, 11, MPI_COMM_WORLD, &req[3]);
		if (it % 2) {
			MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
		} else {
			int done = 0, idx[4];
			while (done < 4) {
				int n;
				MPI_Waitsome(4, req, &n, idx, MPI_STATUSES_IGNORE);
				done += n;
			}
		}
		double v = mine[0] + rank, sum;
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
}

void collectives(int rank)
{
	int v = rank, all[64];
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Reduce(&v, all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
}

void *helper(void *arg)
{
	(void)arg;
	SPIN(500);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	pthread_t th;
	pthread_create(&th, NULL, helper, NULL);
	pingpong(rank);
	stencil(rank, size);
	collectives(rank);
	pthread_join(th, NULL);
	MPI_Finalize();
	printf("rank %d of %d done\n", rank, size);
	return 0;
}
