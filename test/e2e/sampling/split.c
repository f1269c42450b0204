/* SPDX-License-Identifier: BSD-3-Clause */
/* A program whose CPU time splits by construction: heavy() does three times the work of
 * light(), on the main thread and, with an argument, on a second thread too. Built without
 * vt; the sampling test runs it under vtrun. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void heavy(long n)
{
	double s = 0;
	for (long i = 0; i < 3 * n; i++) s += (double)i * 0.5; /* HEAVY LOOP */
	sink = s;
}

__attribute__((noinline)) void light(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++) s += (double)i * 0.5; /* LIGHT LOOP */
	sink = s;
}

__attribute__((noinline)) void work(long rounds)
{
	for (long k = 0; k < rounds; k++) {
		heavy(2000000);
		light(2000000);
	}
}

static void *thread_main(void *arg)
{
	work(*(long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	if (argc > 2) {
		pthread_t t;
		pthread_create(&t, NULL, thread_main, &rounds);
		work(rounds);
		pthread_join(t, NULL);
	} else {
		work(rounds);
	}
	printf("done %ld\n", rounds);
	return 0;
}
