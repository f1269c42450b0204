/* SPDX-License-Identifier: BSD-3-Clause */
/* argv[1] threads, one after the other, each calling work() 10 times; then the process's
 * virtual size is compared with the limit the test set (RLIMIT_AS). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

static void work(int i)
{
	sink += i;
}

static void *run(void *arg)
{
	for (int i = 0; i < 10; i++)
		work(i);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0) {
			printf("thread %d could not be created\n", i);
			return 1;
		}
		pthread_join(t, NULL);
	}
	printf("%d threads\n", n);
	return 0;
}
