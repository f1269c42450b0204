/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints known lines from a few instrumented functions and exits 7. */
#include <stdio.h>

static int twice(int x)
{
	return 2 * x;
}

static int sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += twice(i);
	return s;
}

int main(void)
{
	printf("start\n");
	printf("sum %d\n", sum(10));
	printf("end\n");
	return 7;
}
