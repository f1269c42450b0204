/* SPDX-License-Identifier: BSD-3-Clause */
/* The program plugins built against an installed vt are recorded with: 42 Enter and Leave
 * events on one thread (main once, work 5 times, leaf 15 times). */
#include <stdio.h>

static volatile int sink;

void leaf(int i)
{
	sink += i;
}

void work(int n)
{
	for (int i = 0; i < 3; i++)
		leaf(n + i);
}

int main(void)
{
	for (int n = 0; n < 5; n++)
		work(n);
	printf("sdk %d\n", sink);
	return 0;
}
