/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI benchmark program: ping-pong of 8 bytes between ranks 0 and 1, MPI_Allreduce of 8 bytes
 * on all ranks, MPI_Iallreduce + MPI_Wait, MPI_Put of 8 bytes to the next rank with a fence
 * after each, MPI_File_write_at of 8 bytes (a tenth of the iterations, into argv[3] or
 * "bench-io.dat"); prints microseconds per operation, measured by rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20000;
	double x = 1.0, y = 0.0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Ping-pong: a round trip is two messages; one-way latency = round trip / 2. */
	for (int warm = 0; warm < 2; warm++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < iters && size > 1; i++) {
			if (rank == 0) {
				MPI_Send(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(&y, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
			}
		}
		double pp = (MPI_Wtime() - t0) / iters / 2 * 1e6;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < iters; i++)
			MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double ar = (MPI_Wtime() - t0) / iters * 1e6;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < iters; i++) {
			MPI_Request q;
			MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
		}
		double iar = (MPI_Wtime() - t0) / iters * 1e6;
		if (rank == 0 && warm)
			printf("pingpong_us %.3f allreduce_us %.3f iallreduce_us %.3f\n", pp, ar,
			       iar);
	}
	/* One-sided: a Put to the next rank and a fence, per iteration. */
	{
		double winbuf[2] = {0};
		MPI_Win win;
		MPI_Win_create(winbuf, sizeof(winbuf), sizeof(double), MPI_INFO_NULL,
			       MPI_COMM_WORLD, &win);
		MPI_Win_fence(0, win);
		double t0 = MPI_Wtime();
		for (int i = 0; i < iters; i++) {
			MPI_Put(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, 1, MPI_DOUBLE, win);
			MPI_Win_fence(0, win);
		}
		double pf = (MPI_Wtime() - t0) / iters * 1e6;
		MPI_Win_free(&win);
		/* MPI-IO: each rank writes its own 8-byte slots. */
		MPI_File fh;
		int n = iters / 10 > 0 ? iters / 10 : 1;
		MPI_File_open(MPI_COMM_WORLD, argc > 3 ? argv[3] : "bench-io.dat",
			      MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
			      MPI_INFO_NULL, &fh);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_File_write_at(fh, ((MPI_Offset)rank * n + i) * 8, &x, 1, MPI_DOUBLE,
					  MPI_STATUS_IGNORE);
		double wa = (MPI_Wtime() - t0) / n * 1e6;
		MPI_File_close(&fh);
		if (rank == 0)
			printf("putfence_us %.3f writeat_us %.3f\n", pf, wa);
	}
	/* MPI_Waitall over many outstanding requests (argv[2], default 65536): rank 1 posts
	 * that many Isends to rank 0, which posts as many Irecvs; each rank waits for all its
	 * requests in one call. What vt adds here is its request bookkeeping. */
	int nreq = argc > 2 ? atoi(argv[2]) : 65536;
	if (size > 1 && rank < 2 && nreq > 0) {
		MPI_Request *reqs = malloc((size_t)nreq * sizeof(*reqs));
		double *bufs = malloc((size_t)nreq * sizeof(*bufs));
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (int i = 0; i < nreq; i++) {
			if (rank == 0)
				MPI_Irecv(&bufs[i], 1, MPI_DOUBLE, 1, i % 32768, MPI_COMM_WORLD,
					  &reqs[i]);
			else
				MPI_Isend(&x, 1, MPI_DOUBLE, 0, i % 32768, MPI_COMM_WORLD,
					  &reqs[i]);
		}
		double t1 = MPI_Wtime();
		MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
		double t2 = MPI_Wtime();
		if (rank == 0)
			printf("post_s %.6f waitall_s %.6f\n", t1 - t0, t2 - t1);
		free(reqs);
		free(bufs);
	} else if (size > 1) {
		MPI_Barrier(MPI_COMM_WORLD);
	}
	/* How long MPI_Finalize takes on rank 0 (with vt: clock sync, unification, writing). */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	MPI_Finalize();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rank == 0)
		printf("finalize_s %.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
