/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal check macro for vt's unit tests. */
#ifndef VT_UNIT_H
#define VT_UNIT_H
#include <stdint.h>
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

/* A spread of test values (xorshift64*): the same sequence on every run. */
static inline uint64_t unit_rand(void)
{
	static uint64_t state = 0x9E3779B97F4A7C15u;
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1Du;
}

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
#endif
