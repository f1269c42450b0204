/* SPDX-License-Identifier: BSD-3-Clause */
/* Two threads call spin() without end while main calls it 100000 times and exits. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void spin(void)
{
	__asm__ volatile("");
}

static void *run(void *arg)
{
	for (;;)
		spin();
	return arg;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 2; i++)
		pthread_create(&t, NULL, run, NULL);
	for (int i = 0; i < 100000; i++)
		spin();
	puts("main done");
	exit(0);
}
