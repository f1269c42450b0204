/* SPDX-License-Identifier: BSD-3-Clause */
/* A small serial program for vt-sim's tests: main calls work three times, and once more
 * with recording switched off; a marker after the second call. */
#include <stdio.h>

#include <vt/vt_user.h>

static volatile double sink;

void work(int n)
{
	for (int i = 0; i < n * 100000; i++)
		sink += i * 0.5;
}

int main(void)
{
	for (int i = 1; i <= 3; i++) {
		work(i);
		if (i == 2)
			VT_USER_MARKER("phase", "after work 2");
	}
	VT_USER_TRACE_OFF();
	work(5);
	VT_USER_TRACE_ON();
	printf("done\n");
	return 0;
}
