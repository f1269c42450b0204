/* SPDX-License-Identifier: BSD-3-Clause */
/* The program of the vtcc autoconf-style test project. */
#include <stdio.h>

#include "config.h"
#include "util.h"

int main(void)
{
#ifdef HAVE_SQRT
	printf("autoconf hello %d (sqrt)\n", vtcc_proj_root(1849));
#else
	printf("autoconf hello %d\n", vtcc_proj_root(1849));
#endif
	return 0;
}
