/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that spends its time on the edges of a function: tiny() is called so often and
 * does so little that many samples interrupt it on its first instructions or on its ret,
 * where its frame is not in the frame-pointer chain. Built without vt (gcc -O0
 * -fno-omit-frame-pointer); the sampling test runs it under vtrun with frame pointers. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long tiny(long x)
{ /* TINY ENTRY */
	return x + 1;
} /* TINY EXIT */

__attribute__((noinline)) long loop(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s = tiny(s);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	printf("done %ld\n", loop(n));
	return 0;
}
