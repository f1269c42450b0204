/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode's snapshot latency: fills the ring with calls, then times each VT_USER_SNAPSHOT. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vt/vt_user.h>

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

/* ring-snap CALLS SNAPSHOTS: CALLS calls of leaf before each snapshot; one line per
 * snapshot with the time the program waited for it (ms). */
int main(int argc, char **argv)
{
	long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	int snaps = argc > 2 ? atoi(argv[2]) : 5;
	for (int k = 0; k < snaps; k++) {
		for (long i = 0; i < calls; i++)
			leaf(i);
		double t0 = now_ms();
		int rc = VT_USER_SNAPSHOT("bench");
		double t1 = now_ms();
		printf("snapshot %d rc=%d pause_ms=%.3f\n", k + 1, rc, t1 - t0);
	}
	return 0;
}
