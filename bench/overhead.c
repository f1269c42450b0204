/* SPDX-License-Identifier: BSD-3-Clause */
/* The overhead benchmark's program: times N calls of an empty, non-inlined function. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void empty_function(void);

/*
 * The measured function. noinline keeps the call, the volatile asm keeps the body from being
 * proven empty, so every iteration is one call and, when instrumented, one enter and one exit.
 */
__attribute__((noinline)) void empty_function(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long calls = 10000000;
	struct timespec t0, t1;

	if (argc > 1) {
		char *end;
		calls = strtol(argv[1], &end, 10);
		if (*end != '\0' || calls <= 0) {
			fprintf(stderr, "usage: %s [CALLS]\n", argv[0]);
			return 2;
		}
	}

	/* One call before the clock starts: a tracer's lazy per-thread set-up is not timed. */
	empty_function();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < calls; i++)
		empty_function();
	clock_gettime(CLOCK_MONOTONIC, &t1);

	long long ns =
	    (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
	/* One line the harness parses; nothing else goes to stdout. */
	printf("calls=%ld loop_ns=%lld\n", calls, ns);
	return 0;
}
