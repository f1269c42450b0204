// SPDX-License-Identifier: BSD-3-Clause
// e2e "pthread_events": NTHREADS threads take one mutex K times each, the main thread takes
// it once with trylock first, and thread 0 hands a condition variable over to the main
// thread, which waits on it exactly once (thread 0 signals only once the main thread is
// inside pthread_cond_wait). test_pthread_events.py checks the events of every call.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define NTHREADS 4
#define K	 5

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t handoff = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int waiting, go;

__attribute__((noinline)) void add(long n)
{
	for (int i = 0; i < K; i++) {
		pthread_mutex_lock(&shared);
		counter += n;
		pthread_mutex_unlock(&shared);
	}
}

// The main thread holds handoff from setting waiting until pthread_cond_wait releases it,
// so once thread 0 has seen waiting and taken handoff, the main thread is waiting.
__attribute__((noinline)) void signal_main(void)
{
	while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE))
		sched_yield();
	pthread_mutex_lock(&handoff);
	go = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&handoff);
}

__attribute__((noinline)) void wait_for_thread0(void)
{
	pthread_mutex_lock(&handoff);
	__atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
	while (!go)
		pthread_cond_wait(&cond, &handoff);
	pthread_mutex_unlock(&handoff);
}

static void *thread_main(void *arg)
{
	long n = (long)arg;
	add(n + 1);
	if (n == 0)
		signal_main();
	return NULL;
}

int main(void)
{
	pthread_t threads[NTHREADS];

	if (pthread_mutex_trylock(&shared) != 0) {
		fprintf(stderr, "trylock of a free mutex failed\n");
		return 1;
	}
	counter = 100;
	pthread_mutex_unlock(&shared);
	for (long n = 0; n < NTHREADS; n++) {
		if (pthread_create(&threads[n], NULL, thread_main, (void *)n) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	wait_for_thread0();
	for (long n = 0; n < NTHREADS; n++)
		pthread_join(threads[n], NULL);
	printf("counter = %ld\n", counter);
	return 0;
}
