// SPDX-License-Identifier: BSD-3-Clause
// e2e "openmp_build": an OpenMP 5.1 error directive, which GCC 12 calls GOMP_warning for.
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int n = 0;

#pragma omp parallel num_threads(2) reduction(+ : n)
	n += 1;
#pragma omp error at(execution) severity(warning) message("omp_error: warned")
	printf("threads %d\n", n);
	return 0;
}
