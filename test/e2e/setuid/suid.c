/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that is made setuid/setgid root by the test: a few instrumented calls, one line. */
#include <stdio.h>

static int step(int i)
{
	return i * 3 + 1;
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 5; i++)
		sum += step(i);
	printf("sum %d\n", sum);
	return 3;
}
