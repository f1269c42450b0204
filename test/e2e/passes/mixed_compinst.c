// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": one object of the mixed program, built with -vt:inst compinst.
#include "mixed.h"

static volatile int sink_compinst;

__attribute__((noinline)) static int helper_compinst(int x)
{
	sink_compinst += x;
	return x + 1;
}

int lib_compinst(int x)
{
	return helper_compinst(x) * 2;
}
