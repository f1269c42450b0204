// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": main of the C++ program whose objects all have a copy of shared_inline().
#include <cstdio>

#include "mixed.h"

int main()
{
	int s = shared_inline(1);
	for (int i = 0; i < 2; i++)
		s += cxx_one(i);
	for (int i = 0; i < 3; i++)
		s += cxx_two(i);
	std::printf("s = %d\n", s);
	return 0;
}
