/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi-read: what reading one PAPI event costs without vt, for the PAPI variants of the
 * overhead benchmark: an event set of this thread with the event, started, then N PAPI_read
 * calls timed. Linked with the benchmark's SDE library, so its events exist.
 *
 *   papi-read EVENT [N]      prints "read_ns=X" (ns per PAPI_read, N default 10^6)
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void benchsde_touch(void);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s EVENT [N]\n", argv[0]);
		return 2;
	}
	long n = argc > 2 ? atol(argv[2]) : 1000000L;
	int set = PAPI_NULL, rc;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    (rc = PAPI_create_eventset(&set)) != PAPI_OK ||
	    (rc = PAPI_add_named_event(set, argv[1])) != PAPI_OK ||
	    (rc = PAPI_start(set)) != PAPI_OK) {
		fprintf(stderr, "papi-read: %s cannot be counted here\n", argv[1]);
		return 1;
	}
	long long v[1];
	volatile long long sink = 0;
	benchsde_touch();
	PAPI_read(set, v);
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		PAPI_read(set, v);
		sink += v[0];
	}
	double t1 = now_ns();
	printf("read_ns=%.3f\n", (t1 - t0) / (double)n);
	return sink < 0;
}
