/* SPDX-License-Identifier: BSD-3-Clause */
/* Two threads at once: each writes a file of its own through stdio and prints to stdout. */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t start;

static void *work(void *arg)
{
	long i = (long)arg;
	char path[32];
	snprintf(path, sizeof(path), "s%ld.txt", i);
	pthread_barrier_wait(&start);
	printf("thread %ld starts\n", i); /* both at once: the first use of stdout */
	FILE *f = fopen(path, "w");
	int sum = 0;
	for (int k = 0; k < 10; k++)
		sum += fprintf(f, "%09d\n", k);
	fclose(f);
	return (void *)(long)sum;
}

int main(void)
{
	pthread_t th[2];
	pthread_barrier_init(&start, NULL, 2);
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	long total = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("written %ld\n", total);
	return 0;
}
