/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pattern that makes traces large: tiny functions called very often (tiny_add 200000
 * times, tiny_mul 100000 times) beside real work (work, 20 calls of about a millisecond) and
 * a user-API region that is small and frequent too (never filtered: the user asked for it).
 */
#include <stdio.h>
#include <vt/vt_user.h>

static volatile long sink;

__attribute__((noinline)) long tiny_add(long a, long b)
{
	return a + b;
}

__attribute__((noinline)) long tiny_mul(long a, long b)
{
	return a * b;
}

__attribute__((noinline)) void work(int n)
{
	for (long i = 0; i < 300000; i++)
		sink += i * n;
}

int main(void)
{
	long s = 0;
	for (long i = 0; i < 200000; i++)
		s = tiny_add(s, i);
	for (long i = 0; i < 100000; i++)
		s = tiny_mul(s, 3) % 1000003;
	for (int i = 0; i < 20; i++)
		work(i);
	for (int i = 0; i < 20000; i++) {
		VT_USER_START("user_step");
		sink += i;
		VT_USER_END("user_step");
	}
	printf("s %ld\n", s);
	return 0;
}
