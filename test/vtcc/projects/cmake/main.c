/* SPDX-License-Identifier: BSD-3-Clause */
/* The program of the vtcc CMake test project. */
#include <stdio.h>

#include "greet.h"

int main(void)
{
	printf("cmake hello %d\n", vtcc_proj_greet(42));
	return 0;
}
