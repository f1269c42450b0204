// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": one object of the mixed program, built with -vt:inst gcc.
#include "mixed.h"

static volatile int sink_gcc;

__attribute__((noinline)) static int helper_gcc(int x)
{
	sink_gcc += x;
	return x + 1;
}

int lib_gcc(int x)
{
	return helper_gcc(x) * 2;
}
