/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The user API in C: "phase" started and ended ITER times from two call sites each, a
 * function region, and the annotated library's lib_sum (its "lib_step" region n times).
 */
#include <stdio.h>
#include <vt/vt_user.h>

#define ITER 100

long lib_sum(long n);

static long work(long i)
{
	VT_USER_FUNCTION_BEGIN();
	long r = i * 2;
	if (i % 2) {
		VT_USER_FUNCTION_END();
		return r + 1;
	}
	VT_USER_FUNCTION_END();
	return r;
}

int main(void)
{
	long total = 0;
	for (long i = 0; i < ITER; i++) {
		if (i < ITER / 2) {
			VT_USER_START("phase");
			total += work(i);
			VT_USER_END("phase");
		} else {
			VT_USER_START("phase");
			total += work(i);
			VT_USER_END("phase");
		}
	}
	total += lib_sum(10);
	printf("total %ld\n", total);
	return 0;
}
