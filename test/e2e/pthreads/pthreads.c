// SPDX-License-Identifier: BSD-3-Clause
// e2e "pthreads": the main thread and NTHREADS threads call work() a known number of times
// (thread i: (i + 1) * K calls, all threads alive at once). The last thread ends with
// pthread_exit() and the program with exit(), both from inside a function, so the runtime
// must close those regions itself. test_pthreads.py checks one location per thread with
// exact counts.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define K 10
#define MAIN_CALLS 2

static pthread_barrier_t barrier;
/* Atomic: the threads add at once, and the output must not depend on their timing. */
static long sink;

__attribute__((noinline)) void work(long i)
{
	__atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

// Ends the calling thread while finish() and thread_main() are open.
static __attribute__((noinline)) void finish(void)
{
	pthread_barrier_wait(&barrier);
	pthread_exit(NULL);
}

static void *thread_main(void *arg)
{
	long n = (long)arg;

	// Every thread has produced its first event before any of them goes on.
	pthread_barrier_wait(&barrier);
	for (long i = 0; i < (n + 1) * K; i++)
		work(i);
	if (n == NTHREADS - 1)
		finish();
	pthread_barrier_wait(&barrier);
	return NULL;
}

// Ends the program while quit() and main() are open.
static __attribute__((noinline)) void quit(int status)
{
	printf("threads = %d, sink = %ld\n", NTHREADS, (long)sink);
	exit(status);
}

int main(void)
{
	pthread_t threads[NTHREADS];

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (long n = 0; n < NTHREADS; n++) {
		if (pthread_create(&threads[n], NULL, thread_main, (void *)n) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (long i = 0; i < MAIN_CALLS; i++)
		work(i);
	for (long n = 0; n < NTHREADS; n++)
		pthread_join(threads[n], NULL);
	pthread_barrier_destroy(&barrier);
	quit(0);
}
