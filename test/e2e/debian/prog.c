/* SPDX-License-Identifier: BSD-3-Clause */
/* The program built with the vtcc of the unpacked Debian packages: main once, work 4 times,
 * leaf 12 times, and the user region "phase" (vt/vt_user.h of libvt-dev) twice. */
#include <stdio.h>
#include <vt/vt_user.h>

static volatile int sink;

void leaf(int i)
{
	sink += i;
}

void work(int n)
{
	for (int i = 0; i < 3; i++)
		leaf(n + i);
}

int main(void)
{
	for (int p = 0; p < 2; p++) {
		VT_USER_START("phase");
		for (int n = 0; n < 2; n++)
			work(n + 2 * p);
		VT_USER_END("phase");
	}
	printf("deb %d\n", sink);
	return 0;
}
