/* SPDX-License-Identifier: BSD-3-Clause */
/* What VT_PTHREAD costs the program: uncontended lock/unlock pairs, thread create/join. */
/*
 * pthread-ops lock N: N pthread_mutex_lock/unlock pairs of one mutex on one thread in
 * lock_loop() (bench/run-pthread.py counts its instructions with callgrind's
 * --toggle-collect=lock_loop); prints the nanoseconds per pair.
 * pthread-ops create M: M threads created and joined one after the other in create_loop();
 * prints the microseconds per create and join.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void lock_loop(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&mutex);
		sink++;
		pthread_mutex_unlock(&mutex);
	}
}

static void *nothing(void *arg)
{
	return arg;
}

__attribute__((noinline)) void create_loop(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, nothing, NULL) != 0)
			exit(1);
		pthread_join(th, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = atol(argv[2]);
	double t0 = now();
	if (strcmp(argv[1], "lock") == 0) {
		lock_loop(n);
		printf("%.2f ns per lock/unlock pair\n", (now() - t0) * 1e9 / n);
	} else {
		create_loop(n);
		printf("%.2f us per create/join\n", (now() - t0) * 1e6 / n);
	}
	return 0;
}
