/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The overhead benchmark's program: times N calls of an empty, non-inlined function.
 * Built with -DBENCH_USER the function is a user-API region (vtcc -vt:inst manual), with
 * -DBENCH_PERFSTUBS a perfstubs timer started and stopped through the tool's functions as a
 * perfstubs library in dynamic mode finds them (dlsym).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef BENCH_USER
#include <vt/vt_user.h>
#endif
#ifdef BENCH_PERFSTUBS
#include <dlfcn.h>
static void *(*ps_create)(const char *);
static void (*ps_start)(void *), (*ps_stop)(void *);
static void *ps_timer;
#endif

void empty_function(void);

/*
 * The measured function. noinline keeps the call, the volatile asm keeps the body from being
 * proven empty, so every iteration is one call and, when instrumented, one enter and one exit.
 */
__attribute__((noinline)) void empty_function(void)
{
#if defined(BENCH_USER)
	VT_USER_START("empty_function");
	__asm__ volatile("");
	VT_USER_END("empty_function");
#elif defined(BENCH_PERFSTUBS)
	ps_start(ps_timer);
	__asm__ volatile("");
	ps_stop(ps_timer);
#else
	__asm__ volatile("");
#endif
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

#ifdef BENCH_PERFSTUBS
	*(void **)&ps_create = dlsym(RTLD_DEFAULT, "ps_tool_timer_create");
	*(void **)&ps_start = dlsym(RTLD_DEFAULT, "ps_tool_timer_start");
	*(void **)&ps_stop = dlsym(RTLD_DEFAULT, "ps_tool_timer_stop");
	if (!ps_create || !ps_start || !ps_stop) {
		fprintf(stderr, "no perfstubs tool in this process\n");
		return 1;
	}
	ps_timer = ps_create("empty_function");
#endif
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
