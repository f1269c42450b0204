/* SPDX-License-Identifier: BSD-3-Clause */
/* Five steps of the SDE library (sdelib.c), each in a function of its own. */
#include <stdio.h>

void sdelib_step(int i);

__attribute__((noinline)) static void step(int i)
{
	sdelib_step(i);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	for (int i = 0; i < 5; i++)
		step(i);
	printf("done\n");
	return 0;
}
