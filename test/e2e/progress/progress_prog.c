/* SPDX-License-Identifier: BSD-3-Clause */
/* Many short calls: a trace of about 2.4 M events for the tools' progress test. */
#include <stdio.h>

static volatile long sink;

static void __attribute__((noinline)) step(long i)
{
	sink += i;
}

int main(void)
{
	for (long i = 0; i < 1200000; i++)
		step(i);
	printf("%ld\n", sink);
	return 0;
}
