// SPDX-License-Identifier: BSD-3-Clause
// e2e "nofd": a program that takes every file descriptor its limit allows (64), makes a
// few MB of events, and then gives its descriptors back before it ends, or keeps them
// ("keep"); or ("low") gives back only those below 10 before it makes its events; or
// ("late") makes its events first and takes every descriptor just before it ends.
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	bool keep = argc > 2 && strcmp(argv[2], "keep") == 0;
	bool low = argc > 2 && strcmp(argv[2], "low") == 0;
	bool late = argc > 2 && strcmp(argv[2], "late") == 0;
	struct rlimit rl = {64, 64};
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 2;
	int fds[64], k = 0, fd;
	for (long i = 0; late && i < n; i++)
		leaf(i);
	while (k < 64 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fds[k++] = fd;
	for (int i = 0; low && i < k; i++)
		if (fds[i] < 10)
			close(fds[i]);
	for (long i = 0; !late && i < n; i++)
		leaf(i);
	while (!keep && !late && !low && k > 0)
		close(fds[--k]);
	printf("sink = %ld\n", sink);
	return 0;
}
