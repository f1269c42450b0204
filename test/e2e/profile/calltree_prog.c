/* SPDX-License-Identifier: BSD-3-Clause */
/* A known call tree for vt-profile --call-tree: main calls work 3 times (each calls leaf 4
 * times) and fib(3) once (fib recursing down to leaf). */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int work(int k)
{
	int s = 0;
	for (int i = 0; i < k; i++)
		s += leaf(i);
	return s;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(4);
	s += fib(3);
	printf("%d\n", s);
	return 0;
}
