// SPDX-License-Identifier: BSD-3-Clause
// e2e "existing": a small program traced several times into the same directory.
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) void step(int i)
{
	sink += i;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		step(i);
	printf("sink = %d\n", sink);
	return 0;
}
