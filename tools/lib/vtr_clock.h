/* SPDX-License-Identifier: BSD-3-Clause */
/* Trace ticks to nanoseconds after the clock's offset, exact and without a division per call. */
#ifndef VTR_CLOCK_H
#define VTR_CLOCK_H

#include <stdint.h>

/* The largest nanosecond value given: sums and differences of two of them never overflow. */
#define VTR_NS_MAX (UINT64_MAX / 2)

/* A clock's conversion, made once from its resolution (ticks per second) and offset. */
struct vtr_ns_clock {
	uint64_t offset, resolution;
	uint64_t mul_hi, mul_lo; /* ceil(2^97 * 1e9 / resolution), 128 bits */
	uint64_t limit;		 /* the fast path is exact for ticks - offset <= limit */
};

/* resolution 0 is taken as 1. */
void vtr_ns_clock_init(struct vtr_ns_clock *c, uint64_t resolution, uint64_t offset);

/* The slow path, beyond c->limit: a 128-bit division. */
uint64_t vtr_ns_clock_slow(const struct vtr_ns_clock *c, uint64_t rel);

/* floor((ticks - offset) * 1e9 / resolution), 0 before the offset, at most VTR_NS_MAX.
 * Exact: with m = ceil(2^97 * 1e9 / res), rel * m / 2^97 exceeds rel * 1e9 / res by less than
 * rel / 2^97 <= 1 / res while rel * res < 2^97, and the exact quotient's fraction is a whole
 * number of 1/res below 1, so the floor is the same. That holds for every rel below 2^63 when
 * the resolution is below 2^34 (17 GHz). */
static inline uint64_t vtr_ns_clock_convert(const struct vtr_ns_clock *c, uint64_t ticks)
{
	uint64_t rel = ticks > c->offset ? ticks - c->offset : 0;
	if (__builtin_expect(rel > c->limit, 0))
		return vtr_ns_clock_slow(c, rel);
	unsigned __int128 lo = (unsigned __int128)rel * c->mul_lo;
	unsigned __int128 hi = (unsigned __int128)rel * c->mul_hi + (uint64_t)(lo >> 64);
	hi >>= 33; /* 97 - 64 */
	return hi > VTR_NS_MAX ? VTR_NS_MAX : (uint64_t)hi;
}

#endif
