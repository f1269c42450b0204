// SPDX-License-Identifier: BSD-3-Clause
// e2e "buffers": NCALLS calls of tick() fill a tiny trace buffer many times over;
// test_buffers.py checks the flushes and that no event is lost, or that VT_MAX_FLUSHES
// stops recording cleanly.
#include <stdio.h>

#define NCALLS 200000

static volatile long sink;

__attribute__((noinline)) void tick(long i)
{
	sink += i;
}

int main(void)
{
	for (long i = 0; i < NCALLS; i++)
		tick(i);
	printf("calls = %d, sink = %ld\n", NCALLS, (long)sink);
	return 0;
}
