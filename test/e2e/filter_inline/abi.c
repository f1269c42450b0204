/* SPDX-License-Identifier: BSD-3-Clause */
/* e2e filter_inline: descriptors of ABI 1 (still read) and of an unknown ABI (refused). */
#include <stdlib.h>

#include "vt/vt_inst.h"

/* ABI 1: the layout of ABI 2, code that always calls. */
static struct vt_inst_desc abi1 = {0, 1, "abi1_function", NULL, 0, 0};
static struct vt_inst_desc later = {0, VT_INST_ABI + 1, "later_function", NULL, 0, 0};

int main(int argc, char **argv)
{
	struct vt_inst_desc *d = argc > 1 && atoi(argv[1]) ? &later : &abi1;
	for (int i = 0; i < 7; i++) {
		vt_inst_enter(d);
		vt_inst_exit(d);
	}
	return 0;
}
