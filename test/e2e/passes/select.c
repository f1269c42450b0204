// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": functions for the plugins' selection (compile-time filter, file patterns,
// always_inline, inline, small functions, system headers); test_passes.py knows the counts.
#include <stdio.h>
#include <syshelper.h>

static volatile long sink;

void gen_alpha(long i);
void gen_beta(long i);

// Filtered out at compile time by name.
__attribute__((noinline)) void hot(long i)
{
	sink += i;
}

__attribute__((noinline)) void keep(long i)
{
	sink ^= i;
}

// Never instrumented by default: every copy is inlined, there is no function to enter.
static inline __attribute__((always_inline)) long ai_helper(long x)
{
	return x * 3;
}

// Declared inline; inlined at -O2, where its inlined copies still enter and leave it.
static inline long inl_helper(long x)
{
	return x + 7;
}

// Small: a handful of instructions; big: a loop and several calls.
__attribute__((noinline)) long tiny(long x)
{
	return x + 1;
}

__attribute__((noinline)) long big(long n)
{
	long acc = 0;
	for (long i = 0; i < n; i++) {
		acc += tiny(i) * (i & 3);
		if (acc > 1000)
			acc -= 999;
		sink += acc;
	}
	printf("big %ld\n", acc);
	return acc;
}

int main(void)
{
	long s = 0;

	for (long i = 0; i < 10; i++)
		hot(i);
	for (long i = 0; i < 4; i++)
		keep(i);
	for (long i = 0; i < 5; i++)
		s += ai_helper(i + sink);
	for (long i = 0; i < 6; i++)
		s += inl_helper(i + sink);
	for (long i = 0; i < 3; i++)
		sys_helper((int)i);
	for (long i = 0; i < 2; i++)
		gen_alpha(i);
	gen_beta(1);
	s += big(8);
	printf("s = %ld\n", s + sink);
	return 0;
}
