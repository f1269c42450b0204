/* SPDX-License-Identifier: BSD-3-Clause */
/* A small serial program for vt-sim's bad-simulator cases: main calls work three times. */
#include <stdio.h>

static volatile double sink;

void work(int n)
{
	for (int i = 0; i < n * 100000; i++)
		sink += i * 0.5;
}

int main(void)
{
	for (int i = 1; i <= 3; i++)
		work(i);
	printf("done\n");
	return 0;
}
