/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calls work() argv[1] times and checks, around each call, that errno is what the program
 * set: instrumentation (and the counter plugins it reads) must not change it. Prints how
 * many calls saw errno changed (0 when vt keeps it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static long sink;

__attribute__((noinline)) void work(long i)
{
	__atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10, changed = 0;
	for (long i = 0; i < n; i++) {
		errno = ERANGE;
		work(i);
		if (errno != ERANGE)
			changed++;
	}
	printf("calls %ld, errno changed in %ld\n", n, changed);
	return 0;
}
