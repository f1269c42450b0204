// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": main of the mixed program, whose objects come from different instrumentation
// methods and compilers; test_passes.py knows the counts.
#include <stdio.h>

#include "mixed.h"

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += lib_compinst(i);
	for (int i = 0; i < 4; i++)
		s += lib_gcc(i);
	for (int i = 0; i < 5; i++)
		s += lib_llvm(i);
	printf("s = %d\n", s);
	return 0;
}
