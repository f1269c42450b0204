/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI benchmark program: ping-pong of 8 bytes between ranks 0 and 1, MPI_Allreduce of 8 bytes
 * on all ranks, MPI_Iallreduce + MPI_Wait, MPI_Put of 8 bytes to the next rank with a fence
 * after each, MPI_File_write_at of 8 bytes (a tenth of the iterations, into argv[3] or
 * "bench-io.dat"), request-heavy patterns (1000 Isend + 1000 Irecv + Waitall, osu_bw's at 1
 * byte, MPI_Get + MPI_Win_flush_local); prints microseconds per operation, measured by rank 0.
 * Each timed pattern is a function of its own, so that callgrind names its instructions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

/* A round trip is two messages: microseconds per message (one-way latency). */
NOINLINE static double pingpong(int rank, int size, int iters)
{
	double x = 1.0, y = 0.0;
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters && size > 1; i++) {
		if (rank == 0) {
			MPI_Send(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(&y, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / iters / 2 * 1e6;
}

/* Ranks 0 and 1 each post 1000 MPI_Irecv from and 1000 MPI_Isend of 8 bytes to the other,
 * then one MPI_Waitall of the 2000 requests: microseconds per round. */
enum { REQS = 1000 };
NOINLINE static double reqs_round(int rank, int rounds)
{
	static MPI_Request q[2 * REQS];
	static double in[REQS], out[REQS];
	int peer = 1 - rank;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int r = 0; r < rounds && rank < 2; r++) {
		for (int i = 0; i < REQS; i++)
			MPI_Irecv(&in[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD, &q[i]);
		for (int i = 0; i < REQS; i++)
			MPI_Isend(&out[i], 1, MPI_DOUBLE, peer, i, MPI_COMM_WORLD, &q[REQS + i]);
		MPI_Waitall(2 * REQS, q, MPI_STATUSES_IGNORE);
	}
	return (MPI_Wtime() - t0) / rounds * 1e6;
}

/* osu_bw's pattern at 1 byte: rank 0 posts a window of 64 MPI_Isend, rank 1 as many
 * MPI_Irecv, each waits for its window with MPI_Waitall and rank 1 acknowledges it with a
 * 4-byte message: MB/s (10^6 bytes) from rank 0's view. */
enum { WINDOW = 64 };
NOINLINE static double bw1(int rank, int rounds)
{
	MPI_Request q[WINDOW];
	char buf[WINDOW] = {0};
	int ack = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int r = 0; r < rounds && rank < 2; r++) {
		for (int i = 0; i < WINDOW; i++) {
			if (rank == 0)
				MPI_Isend(&buf[i], 1, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &q[i]);
			else
				MPI_Irecv(&buf[i], 1, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &q[i]);
		}
		MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
	}
	return (double)rounds * WINDOW / (MPI_Wtime() - t0) / 1e6;
}

/* MPI_Get of 8 bytes from the next rank and MPI_Win_flush_local of it, in one passive
 * epoch (MPI_Win_lock_all): microseconds per Get and flush. */
NOINLINE static double getflush(int rank, int size, int iters)
{
	double winbuf[2] = {0}, x = 0;
	MPI_Win win;
	MPI_Win_create(winbuf, sizeof(winbuf), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_lock_all(0, win);
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		MPI_Get(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, 1, MPI_DOUBLE, win);
		MPI_Win_flush_local((rank + 1) % size, win);
	}
	double us = (MPI_Wtime() - t0) / iters * 1e6;
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	return us;
}

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
		double pp = pingpong(rank, size, iters);
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
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
	/* The request-heavy patterns, on 2 ranks or more (the others only take part in the
	 * window's collectives). */
	if (size > 1) {
		int rounds = iters / 100 > 0 ? iters / 100 : 1;
		double rq = reqs_round(rank, rounds);
		double bw = bw1(rank, iters / 10 > 0 ? iters / 10 : 1);
		double gf = getflush(rank, size, iters / 10 > 0 ? iters / 10 : 1);
		if (rank == 0)
			printf("reqs_us %.3f bw1_mbs %.4f getflush_us %.3f\n", rq, bw, gf);
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
