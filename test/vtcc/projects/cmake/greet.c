/* SPDX-License-Identifier: BSD-3-Clause */
/* The library of the vtcc CMake test project. */
#include "greet.h"

int vtcc_proj_greet(int n)
{
	return n + 1;
}
