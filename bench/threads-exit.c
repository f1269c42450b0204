/* SPDX-License-Identifier: BSD-3-Clause */
/* argv[1] short-lived threads, one after the other (10 calls each); then prints the
 * process's virtual and resident size and the CLOCK_MONOTONIC time at the end of main,
 * from which bench/run-threads.py takes the time vt's finalisation adds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		if (pthread_create(&t, NULL, run, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmSize:", 7) == 0 || strncmp(line, "VmRSS:", 6) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("main end %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
