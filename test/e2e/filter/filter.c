// SPDX-License-Identifier: BSD-3-Clause
// e2e "filter": functions with known call counts for the filter and the stack-depth limit;
// test_filter.py knows the counts (main is at depth 1, rec() starts at depth 2).
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void hot(long i)
{
	sink += i;
}

__attribute__((noinline)) void lib_alpha(long i)
{
	sink += 2 * i;
}

__attribute__((noinline)) void lib_beta(long i)
{
	sink += 3 * i;
}

__attribute__((noinline)) void limited(long i)
{
	sink -= i;
}

__attribute__((noinline)) void keep(long i)
{
	sink ^= i;
}

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

// rec(n) recurses down to rec(1) and calls leaf() once: n calls of each. The recursive call
// is no tail call: the plugins instrument after the optimiser, which makes a loop of one.
__attribute__((noinline)) void rec(long n)
{
	if (n > 1)
		rec(n - 1);
	leaf(n);
}

int main(void)
{
	for (long i = 0; i < 1000; i++)
		hot(i);
	for (long i = 0; i < 3; i++)
		lib_alpha(i);
	for (long i = 0; i < 4; i++)
		lib_beta(i);
	for (long i = 0; i < 20; i++)
		limited(i);
	for (long i = 0; i < 6; i++)
		keep(i);
	rec(5);
	printf("sink = %ld\n", (long)sink);
	return 0;
}
