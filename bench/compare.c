/* SPDX-License-Identifier: BSD-3-Clause */
/* The tracer comparison's program: T threads each time N calls of an empty function. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * The measured function, as in overhead.c: noinline keeps the call, the volatile asm keeps
 * the body from being proven empty, so each call is one entry and one exit for any tracer.
 */
__attribute__((noinline)) void empty_function(void);
__attribute__((noinline)) void empty_function(void)
{
	__asm__ volatile("");
}

#ifdef COMPARE_EMPTY_HOOKS
/* -finstrument-functions' hooks that do nothing: the cost of the calls alone. */
#define HOOK __attribute__((no_instrument_function, noipa, used))
HOOK void __cyg_profile_func_enter(void *fn, void *site);
HOOK void __cyg_profile_func_exit(void *fn, void *site);
HOOK void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("");
}
HOOK void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("");
}
#endif

struct worker {
	pthread_t tid;
	long calls;
	pthread_barrier_t *start;
	long long ns;
};

/*
 * One thread's loop. A call before the barrier lets a tracer set the thread up untimed; the
 * barrier starts the threads' loops together, so that they compete for the CPUs and for the
 * tracer's writer as a parallel region's threads do.
 */
static void *run(void *arg)
{
	struct worker *w = arg;
	struct timespec t0, t1;

	empty_function();
	pthread_barrier_wait(w->start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < w->calls; i++)
		empty_function();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	w->ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
	return NULL;
}

static long arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end != '\0' || v <= 0) {
		fprintf(stderr, "compare: %s must be a positive integer, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Usage: compare [CALLS [THREADS]]; prints "threads=T calls=N max_ns=M sum_ns=S". */
int main(int argc, char **argv)
{
	long calls = argc > 1 ? arg(argv[1], "CALLS") : 10000000;
	long threads = argc > 2 ? arg(argv[2], "THREADS") : 1;
	struct worker *w;
	pthread_barrier_t start;
	long long max = 0, sum = 0;

	if (threads > 1024) {
		fprintf(stderr, "compare: THREADS must be at most 1024, not %ld\n", threads);
		return 2;
	}
	w = calloc((size_t)threads, sizeof(*w));
	if (!w)
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	/* Thread 0 is the main thread, as in an OpenMP parallel region. */
	for (long t = 0; t < threads; t++) {
		w[t].calls = calls;
		w[t].start = &start;
		if (t > 0 && pthread_create(&w[t].tid, NULL, run, &w[t]) != 0) {
			fprintf(stderr, "compare: cannot start thread %ld\n", t);
			return 1;
		}
	}
	run(&w[0]);
	for (long t = 0; t < threads; t++) {
		if (t > 0)
			pthread_join(w[t].tid, NULL);
		max = w[t].ns > max ? w[t].ns : max;
		sum += w[t].ns;
	}
	printf("threads=%ld calls=%ld max_ns=%lld sum_ns=%lld\n", threads, calls, max, sum);
	free(w);
	return 0;
}
