// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": a static helper gcc and clang -O2 inline and a recursive function (issue 30).
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

// Inlined at -O2 by gcc and clang: no function is left to enter.
static int sq(int x)
{
	return x * x;
}

// Recursive: 465 calls for fib(12) in the source; at -O2 gcc inlines it into itself and clang
// turns one of its two calls into a loop, so the binary calls it fewer times.
long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long s = 0;

	for (int i = 0; i < n; i++)
		s += sq(i + (int)sink);
	s += fib(12);
	printf("s = %ld\n", s + sink);
	return 0;
}
