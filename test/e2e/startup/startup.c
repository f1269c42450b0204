/* SPDX-License-Identifier: BSD-3-Clause */
/* A short program for e2e startup: three calls of one function, then it ends. */
#include <stdio.h>

__attribute__((noinline)) int work(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s = work(s);
	printf("%d\n", s);
	return 0;
}
