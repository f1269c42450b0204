/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argv[1] short-lived threads, one after the other (10 calls each); then prints the
 * process's virtual and resident size, the time the threads took and the CLOCK_MONOTONIC
 * time at the end of main, from which bench/run-threads.py takes the time vt's finalisation
 * adds.
 *
 * --floor N B1 [B2 ...]: the floor of OTF2's file-per-location layout on the file system of
 * the current directory, without threads or vt: for each of N locations, one file of B1
 * bytes, one of B2 bytes, ... created, written with one write and closed in ./floor (as
 * libotf2 writes a location's small event and local definition files), timed per location.
 * --floor-link N B: one file of B bytes, then N - 1 hard links to it (a directory entry
 * without an inode of its own).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int one_file(const char *path, const char *bytes, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write(fd, bytes, n) != (ssize_t)n) {
		perror(path);
		return -1;
	}
	return close(fd);
}

static int floor_run(int argc, char **argv, int link_mode)
{
	int n = atoi(argv[2]);
	int k = argc - 3;
	static char bytes[1 << 20];
	char path[64], first[64];
	if (n < 1 || k < 1 || (link_mode && k != 1)) {
		fprintf(stderr, "usage: %s --floor N BYTES... | --floor-link N BYTES\n", argv[0]);
		return 2;
	}
	memset(bytes, 0x5a, sizeof(bytes));
	if (mkdir("floor", 0777) != 0) {
		perror("floor");
		return 1;
	}
	double t0 = now();
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < k; j++) {
			size_t b = (size_t)atol(argv[3 + j]);
			snprintf(path, sizeof(path), "floor/%d.%d", i, j);
			if (b > sizeof(bytes))
				b = sizeof(bytes);
			if (link_mode && i > 0) {
				if (link(first, path) != 0) {
					perror(path);
					return 1;
				}
			} else if (one_file(path, bytes, b) != 0) {
				return 1;
			}
			if (i == 0)
				snprintf(first, sizeof(first), "%s", path);
		}
	}
	double t = now() - t0;
	printf("floor %d locations %d files: %.1f us per location\n", n, k, t * 1e6 / n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[1], "--floor") == 0)
		return floor_run(argc, argv, 0);
	if (argc > 3 && strcmp(argv[1], "--floor-link") == 0)
		return floor_run(argc, argv, 1);
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	double t0 = now();
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	double t1 = now();
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmSize:", 7) == 0 || strncmp(line, "VmRSS:", 6) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
	printf("threads took %.9f\n", t1 - t0);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("main end %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
