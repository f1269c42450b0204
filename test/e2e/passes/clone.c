// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": a function gcc -O2 clones for a constant argument (scale.constprop.0), recorded as itself.
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long scale(long x, int k)
{
	for (int i = 0; i < k; i++)
		x = x * 3 + sink;
	return x;
}

int main(void)
{
	long s = 0;

	for (int i = 0; i < 4; i++)
		s += scale(i, 7);
	printf("s = %ld\n", s);
	return 0;
}
