// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": longjmp out of instrumented frames, tail calls and a noreturn function;
// test_passes.py knows the exact counts and which Leave events vt has to repair.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int sink;

// deep(n) recurses n levels below itself, then jumps back to guarded(): n + 1 frames of
// deep are left without their exit.
__attribute__((noinline)) void deep(int n)
{
	sink += n;
	if (n == 0)
		longjmp(env, 1);
	deep(n - 1);
	sink -= n; // not reached; keeps the recursive call from being a tail call
}

// Returns after the jump: its Leave is where vt closes the abandoned deep() frames.
__attribute__((noinline)) int guarded(int n)
{
	if (setjmp(env))
		return -1;
	deep(n);
	return 0;
}

__attribute__((noinline)) int tail_target(int x)
{
	return x + sink;
}

// A call in tail position, a sibling call at -O2 without instrumentation.
__attribute__((noinline)) int tail_caller(int x)
{
	return tail_target(2 * x);
}

// Never returns: its region and main's are closed when the program ends.
__attribute__((noinline, noreturn)) void finish(int total)
{
	printf("total = %d\n", total);
	fflush(stdout);
	exit(0);
}

int main(void)
{
	int total = 0;

	for (int i = 0; i < 2; i++)
		total += guarded(3);
	for (int i = 0; i < 5; i++)
		total += tail_caller(i);
	finish(total);
}
