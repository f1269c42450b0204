/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads (main and one worker) each call touch() ROUNDS times on a fresh 1 MiB mapping
 * (mmap'd and unmapped each round, so every page faults), then print how many rounds ran.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 20
#define BLOCK (1 << 20)

__attribute__((noinline)) void touch(char *p, long n)
{
	memset(p, 1, (size_t)n);
}

static void *work(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		char *p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		touch(p, BLOCK);
		munmap(p, BLOCK);
	}
	return arg;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, work, NULL) != 0)
		return 1;
	work(NULL);
	pthread_join(t, NULL);
	printf("rounds %d per thread\n", ROUNDS);
	return 0;
}
