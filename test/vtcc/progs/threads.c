/* SPDX-License-Identifier: BSD-3-Clause */
/* A threaded C program for the vtcc build tests (-vt:mt). */
#include <pthread.h>
#include <stdio.h>

static int results[4];

static void *work(void *arg)
{
	int i = *(int *)arg;

	results[i] = i * i;
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	int ids[4], sum = 0;

	for (int i = 0; i < 4; i++) {
		ids[i] = i;
		pthread_create(&t[i], NULL, work, &ids[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		sum += results[i];
	}
	printf("threads %d\n", sum);
	return 0;
}
