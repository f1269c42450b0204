/* SPDX-License-Identifier: BSD-3-Clause */
/* Uses vt's user API: a region only with -DVTRACE (vtcc's compinst and manual methods). */
#include <stdio.h>

#include <vt/vt_user.h>

int main(void)
{
	VT_USER_START("vtcc_test_phase");
	printf("user api\n");
	VT_USER_END("vtcc_test_phase");
	return 0;
}
