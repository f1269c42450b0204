/* SPDX-License-Identifier: BSD-3-Clause */
/* The sync_group test's program: main calls work() CALLS times and a thread calls it twice. */
#include <pthread.h>
#include <stdio.h>

#define CALLS 5

__attribute__((noinline)) int work(int x)
{
	__asm__ volatile("");
	return x + 1;
}

static void *thread_main(void *arg)
{
	long n = 0;
	for (int i = 0; i < 2; i++)
		n += work(i);
	return (void *)n;
}

int main(void)
{
	pthread_t th;
	void *ret;
	int n = 0;
	for (int i = 0; i < CALLS; i++)
		n += work(i);
	if (pthread_create(&th, NULL, thread_main, NULL) != 0 || pthread_join(th, &ret) != 0)
		return 1;
	printf("%d %ld\n", n, (long)ret);
	return 0;
}
