// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": a C++ object with its own copy of shared_inline().
#include "mixed.h"

int cxx_two(int x)
{
	return shared_inline(x) + 1;
}
