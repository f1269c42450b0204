/* SPDX-License-Identifier: BSD-3-Clause */
/* Phases A, B, C with known call counts, for ring mode's window; "segv" ends in SIGSEGV. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define NA 5000
#define NB 20000
#define NC 2000

static volatile long sink;

__attribute__((noinline)) static void work_a(int i)
{
	sink += i;
}

__attribute__((noinline)) static void work_b(int i)
{
	sink ^= i;
}

__attribute__((noinline)) static void work_c(int i)
{
	sink -= i;
}

__attribute__((noinline)) static void phase_a(void)
{
	for (int i = 0; i < NA; i++)
		work_a(i);
}

__attribute__((noinline)) static void phase_b(void)
{
	for (int i = 0; i < NB; i++)
		work_b(i);
}

__attribute__((noinline)) static void phase_c(int segv)
{
	for (int i = 0; i < NC; i++)
		work_c(i);
	if (segv) {
		fflush(stdout);
		raise(SIGSEGV);
	}
}

int main(int argc, char **argv)
{
	int segv = argc > 1 && strcmp(argv[1], "segv") == 0;
	phase_a();
	phase_b();
	phase_c(segv);
	printf("phases done: %ld\n", (long)sink);
	return 0;
}
