/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints its arguments and exits with status 3: what vtrun must pass through. */
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
	return 3;
}
