/* SPDX-License-Identifier: BSD-3-Clause */
/* A two-file C program for the vtcc build tests: main calls into greet.c. */
#include <stdio.h>

int vtcc_test_greet(int n);

static int twice(int x)
{
	return 2 * x;
}

int main(void)
{
	printf("hello %d\n", vtcc_test_greet(twice(21)));
	return 0;
}
