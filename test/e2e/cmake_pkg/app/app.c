/* SPDX-License-Identifier: BSD-3-Clause */
/* A C program with a C++ part, built by CMake through vt_instrument: main once, work 5
 * times, leaf 15 times, scale and (C++) twice(int) 5 times each, the user region "phase"
 * 2 times. */
#include <stdio.h>

#include <vt/vt_user.h>

int scale(int x);

static volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < 3; i++)
		leaf(n + i);
	sink += scale(n);
}

int main(void)
{
	for (int p = 0; p < 2; p++) {
		VT_USER_START("phase");
		for (int n = p; n < 5; n += 2)
			work(n);
		VT_USER_END("phase");
	}
	printf("app %d\n", sink);
	return 0;
}
