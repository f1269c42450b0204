/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs a command; writes its wall and CPU time, peak resident size and exit status to a file. */

/*
 * Usage: bench-run RESULT_FILE PROGRAM [ARG...]
 * The harness cannot take ru_maxrss from its own children: Linux keeps the parent's resident
 * size across fork and exec in the child's maximum, so a child of a 20 MiB Python would never
 * report less than 20 MiB. This small program is the parent instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s RESULT_FILE PROGRAM [ARG...]\n", argv[0]);
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (out == NULL) {
		perror(argv[1]);
		return 2;
	}

	long long t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}

	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	long long wall = now_ns() - t0;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	long long cpu = ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;

	fprintf(out, "wall_ns=%lld cpu_ns=%lld maxrss_kib=%ld exit=%d\n", wall, cpu, ru.ru_maxrss,
		code);
	return fclose(out) == 0 ? 0 : 2;
}
