// SPDX-License-Identifier: BSD-3-Clause
// e2e "hostid": a few calls; with an argument the program prints its own gethostid().
#include <stdio.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void step(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	for (long i = 0; i < 5; i++)
		step(i);
	if (argc > 1)
		printf("hostid %08lx\n", (unsigned long)gethostid() & 0xffffffffUL);
	printf("sink = %ld\n", sink);
	return 0;
}
