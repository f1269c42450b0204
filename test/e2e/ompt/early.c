// SPDX-License-Identifier: BSD-3-Clause
// e2e "ompt": OpenMP before main, from a constructor, then in main: libomp starts (and asks
// for its tool) before the program's first instrumented call.
#include <omp.h>
#include <stdio.h>

static int n;

__attribute__((constructor)) static void early(void)
{
#pragma omp parallel num_threads(2)
	{
#pragma omp atomic
		n++;
	}
}

int main(void)
{
#pragma omp parallel num_threads(2)
	{
#pragma omp atomic
		n++;
	}
	printf("n = %d\n", n);
	return n == 4 ? 0 : 1;
}
