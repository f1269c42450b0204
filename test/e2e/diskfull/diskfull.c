// SPDX-License-Identifier: BSD-3-Clause
// e2e "diskfull": a program making tens of MB of events (a worker thread's calls of leaf,
// then a thread that starts after the disk filled, then the main thread's) with its own
// output and exit status, traced onto a small disk.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

static void *worker(void *arg)
{
	long n = *(long *)arg;
	for (long i = 0; i < n; i++)
		leaf(i);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1500000, few = 3;
	pthread_t t;
	pthread_create(&t, NULL, worker, &n);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, worker, &few);
	pthread_join(t, NULL);
	for (long i = 0; i < n; i++)
		leaf(i);
	printf("sink = %ld\n", sink);
	fprintf(stderr, "program's own line\n");
	return 3;
}
