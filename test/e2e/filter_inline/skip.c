/* SPDX-License-Identifier: BSD-3-Clause */
/* e2e filter_inline: run-time-filtered functions, recursion through them, two threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
#include <stdexcept>
extern "C" {
#endif

/* The filter file drops hot, down and (C++) thrower; the rest is recorded. The threads
 * add to sink atomically: a plain += loses updates when they overlap, which they do when a
 * loaded machine or vt slows them, and the output would differ from the plain run's. A macro,
 * not a function: a function would be instrumented at -O0 and add regions. */
static long sink;
#define ADD(v) __atomic_fetch_add(&sink, (long)(v), __ATOMIC_RELAXED)

__attribute__((noinline)) void hot(int i)
{
	ADD(i);
}

void up(int n);

/* Filtered, between two unfiltered calls of up: up(n) -> down(n) -> up(n - 1). */
__attribute__((noinline)) void down(int n)
{
	ADD(n);
	up(n - 1);
	ADD(-1);
}

__attribute__((noinline)) void up(int n)
{
	if (n > 0)
		down(n);
	ADD(2);
}

#ifdef __cplusplus
/* Filtered: its exception passes through it to an unfiltered caller. */
__attribute__((noinline)) void thrower(int n)
{
	ADD(n);
	if (n % 2)
		throw std::runtime_error("odd");
}

__attribute__((noinline)) void catcher(int n)
{
	try {
		thrower(n);
	} catch (const std::exception &) {
		ADD(1);
	}
}
#endif

#define HOT_CALLS 1000
#define DEPTH	  5
#define THROWS	  10

/* Each thread: hot HOT_CALLS times, up(DEPTH), catcher THROWS times (C++). */
__attribute__((noinline)) void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < HOT_CALLS; i++)
		hot(i);
	up(DEPTH);
#ifdef __cplusplus
	for (int i = 0; i < THROWS; i++)
		catcher(i);
#endif
	return NULL;
}

int main(void)
{
	/* The first calls, alone: each filtered descriptor is registered by its first call. */
	work(NULL);
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, work, NULL) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("sink %ld\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
	return 0;
}

#ifdef __cplusplus
}
#endif
