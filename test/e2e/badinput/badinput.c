// SPDX-License-Identifier: BSD-3-Clause
// e2e "badinput": a program that prints a known line and exits with status 3, so
// test_badinput.py can see that bad vt settings change neither its output nor its status.
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) int work(int i)
{
	sink += i;
	return sink;
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 10; i++)
		r = work(i);
	printf("result = %d\n", r);
	fprintf(stderr, "badinput: a line of the program's own on stderr\n");
	return 3;
}
