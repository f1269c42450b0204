/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal check macro for vt's unit tests. */
#ifndef VT_UNIT_H
#define VT_UNIT_H
#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (cond) {                                                               \
			unit_passed++;                                                    \
		} else {                                                                  \
			unit_failed++;                                                    \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
				#cond);                                                   \
		}                                                                         \
	} while (0)

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
#endif
