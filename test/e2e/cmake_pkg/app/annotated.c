/* SPDX-License-Identifier: BSD-3-Clause */
/* A program built without vtcc, with vt::user and vt::vt: only the region "step", 3 times. */
#include <stdio.h>

#include <vt/vt_user.h>

static volatile int sink;

static void step(int i)
{
	VT_USER_START("step");
	sink += i;
	VT_USER_END("step");
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		step(i);
	printf("annotated %d\n", sink);
	return 0;
}
