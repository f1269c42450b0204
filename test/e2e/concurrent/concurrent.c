// SPDX-License-Identifier: BSD-3-Clause
// e2e "concurrent" and "symlinks": step() called N times (argv[1]) once the file argv[2]
// exists (several copies of the program started at once are let go together, or one is
// killed waiting; links are planted in the trace directory while it waits).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void step(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	for (int waited = 0; argc > 2 && access(argv[2], F_OK) != 0; waited++) {
		if (waited > 6000)
			return 2;
		usleep(10000);
	}
	for (long i = 0; i < n; i++)
		step(i);
	printf("sink = %ld\n", sink);
	return 0;
}
