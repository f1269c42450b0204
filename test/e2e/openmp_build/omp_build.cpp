// SPDX-License-Identifier: BSD-3-Clause
// e2e "openmp_build": omp_build.c compiled as C++ (g++ through vtcxx), with C names.
#include <omp.h>
#include <stdio.h>

extern "C" {
#include "omp_build.c"
}
