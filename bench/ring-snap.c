/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode's snapshot latency: fills the ring with calls, then times each VT_USER_SNAPSHOT. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <vt/vt_user.h>
#ifdef RING_SNAP_MPI
#include <mpi.h>
#endif

static volatile long sink;

__attribute__((noinline)) static void leaf(long i)
{
	sink += i;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ring-snap CALLS SNAPSHOTS [ANCHOR_FORMAT]: CALLS calls of leaf before each snapshot; one
 * line per snapshot with the time the program waited for it (ms). Built with
 * -DRING_SNAP_MPI, every rank asks at once (a job's snapshot), and rank 0 also waits for the
 * archive ANCHOR_FORMAT (a printf format of K) to exist: the time until it is written. */
int main(int argc, char **argv)
{
	long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	int snaps = argc > 2 ? atoi(argv[2]) : 5, rank = 0;
#ifdef RING_SNAP_MPI
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
	for (int k = 0; k < snaps; k++) {
		for (long i = 0; i < calls; i++)
			leaf(i);
#ifdef RING_SNAP_MPI
		MPI_Barrier(MPI_COMM_WORLD);
#endif
		double t0 = now_ms();
		int rc = VT_USER_SNAPSHOT("bench");
		double t1 = now_ms();
		printf("snapshot %d rc=%d pause_ms=%.3f", k + 1, rc, t1 - t0);
		if (argc > 3 && rank == 0) {
			char anchor[4096];
			snprintf(anchor, sizeof(anchor), argv[3], k + 1);
			while (access(anchor, F_OK) != 0 && now_ms() - t0 < 60000)
				usleep(200);
			printf(" written_ms=%.3f", now_ms() - t0);
		}
		printf("\n");
	}
#ifdef RING_SNAP_MPI
	MPI_Finalize();
#endif
	return 0;
}
