/* SPDX-License-Identifier: BSD-3-Clause */
/* A helper of the vtcc autoconf-style test project: integer square root. */
#include "config.h"
#include "util.h"

#ifdef HAVE_SQRT
#include <math.h>
#endif

int vtcc_proj_root(int n)
{
#ifdef HAVE_SQRT
	return (int)sqrt((double)n);
#else
	int r = 0;

	while ((r + 1) * (r + 1) <= n)
		r++;
	return r;
#endif
}
