/* SPDX-License-Identifier: BSD-3-Clause */
/* The ticks-to-nanoseconds conversion's constants and its slow path (vtr_clock.h). */
#include "vtr_clock.h"

void vtr_ns_clock_init(struct vtr_ns_clock *c, uint64_t resolution, uint64_t offset)
{
	uint64_t res = resolution ? resolution : 1;
	/* 1e9 * 2^97 < 2^127: the numerator fits, and so does m for any res >= 1. */
	unsigned __int128 num = (unsigned __int128)1000000000u << 97;
	unsigned __int128 m = num / res + (num % res != 0);
	c->offset = offset;
	c->resolution = res;
	c->mul_hi = (uint64_t)(m >> 64);
	c->mul_lo = (uint64_t)m;
	/* rel * res < 2^97, and rel < 2^64 so that rel * mul_hi fits in 128 bits. */
	unsigned __int128 limit = ((((unsigned __int128)1) << 97) - 1) / res;
	c->limit = limit > UINT64_MAX ? UINT64_MAX : (uint64_t)limit;
}

uint64_t vtr_ns_clock_slow(const struct vtr_ns_clock *c, uint64_t rel)
{
	unsigned __int128 ns = (unsigned __int128)rel * 1000000000u / c->resolution;
	return ns > VTR_NS_MAX ? VTR_NS_MAX : (uint64_t)ns;
}
