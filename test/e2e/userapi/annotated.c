/* SPDX-License-Identifier: BSD-3-Clause */
/* A library annotated with the user API, built with plain cc -DVT_USER (never with vtcc). */
#include <vt/vt_user.h>

long lib_sum(long n)
{
	long s = 0;
	VT_USER_FUNCTION_BEGIN();
	for (long i = 0; i < n; i++) {
		VT_USER_START("lib_step");
		s += i;
		VT_USER_END("lib_step");
	}
	VT_USER_FUNCTION_END();
	return s;
}
