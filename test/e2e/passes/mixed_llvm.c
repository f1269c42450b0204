// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": one object of the mixed program, built with -vt:inst llvm.
#include "mixed.h"

static volatile int sink_llvm;

__attribute__((noinline)) static int helper_llvm(int x)
{
	sink_llvm += x;
	return x + 1;
}

int lib_llvm(int x)
{
	return helper_llvm(x) * 2;
}
