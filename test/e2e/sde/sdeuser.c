/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Five steps of the SDE library, each a user-API region, built without vt and run with
 * libvt preloaded: the library's constructor registers its events before vt starts, so PAPI
 * counts its group too.
 */
#include <stdio.h>
#include <vt/vt_user.h>

void sdelib_step(int i);

int main(void)
{
	for (int i = 0; i < 5; i++) {
		VT_USER_START("step");
		sdelib_step(i);
		VT_USER_END("step");
	}
	printf("done\n");
	return 0;
}
