/* SPDX-License-Identifier: BSD-3-Clause */
/* Exits from four calls deep: vt writes the Leaves of main and of each open inner itself. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void inner(int depth)
{
	if (depth == 0) {
		printf("bye\n");
		exit(0);
	}
	inner(depth - 1);
}

int main(void)
{
	inner(3);
	return 1;
}
