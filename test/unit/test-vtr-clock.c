/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' ticks-to-nanoseconds conversion (tools/lib/vtr_clock.c), against the plain
 * definition floor((ticks - offset) * 1e9 / resolution) computed with a 128-bit division:
 * the resolutions traces carry (1 GHz, TSC rates, odd ones), 1 tick per second, and ones too
 * large for the fast path; ticks at and around the offset, near multiples of the resolution
 * (where a rounding error would show), at random, and up to 2^64 - 1 (clamped).
 */
#include "unit.h"
#include "vtr_clock.h"

#include <stdint.h>

static uint64_t reference(uint64_t res, uint64_t offset, uint64_t ticks)
{
	if (ticks <= offset)
		return 0;
	unsigned __int128 ns = (unsigned __int128)(ticks - offset) * 1000000000u / res;
	return ns > VTR_NS_MAX ? VTR_NS_MAX : (uint64_t)ns;
}

static unsigned wrong;

static void one(const struct vtr_ns_clock *c, uint64_t ticks)
{
	uint64_t want = reference(c->resolution, c->offset, ticks);
	uint64_t got = vtr_ns_clock_convert(c, ticks);
	if (got != want && wrong++ < 10)
		fprintf(stderr, "res %llu offset %llu ticks %llu: %llu, want %llu\n",
			(unsigned long long)c->resolution, (unsigned long long)c->offset,
			(unsigned long long)ticks, (unsigned long long)got,
			(unsigned long long)want);
}

int main(void)
{
	static const uint64_t resolutions[] = {
	    1,		 3,	      999999937,   1000000000,	1000000007,
	    2596130195u, 2999999999u, 3000000000u, 4294967296u, (1ull << 34) - 1,
	    1ull << 34,	 1ull << 40,  1ull << 63,  UINT64_MAX,	10000000,
	    33333333,	 1193182,     2400000000u, 1ull << 33,	123456789012ull,
	};
	for (size_t r = 0; r < sizeof(resolutions) / sizeof(resolutions[0]); r++) {
		uint64_t res = resolutions[r];
		for (int o = 0; o < 3; o++) {
			uint64_t offset = o == 0 ? 0 : o == 1 ? 25020608998493u : unit_rand() >> 1;
			struct vtr_ns_clock c;
			vtr_ns_clock_init(&c, res, offset);
			CHECK(c.resolution == res && c.offset == offset);
			/* Before, at and just after the offset. */
			for (uint64_t d = 0; d < 3 && d <= offset; d++)
				one(&c, offset - d);
			for (uint64_t d = 1; d < 1000; d++)
				one(&c, offset + d);
			/* Around whole multiples of the resolution and of res / 1e9-ish steps. */
			for (uint64_t k = 1; k < 2000; k++) {
				unsigned __int128 at =
				    (unsigned __int128)res * (k * 7919u) + offset;
				for (int d = -1; d <= 1; d++)
					if (at + d <= UINT64_MAX)
						one(&c, (uint64_t)(at + d));
			}
			/* Random ticks of every magnitude, and the top of the range. */
			for (int i = 0; i < 200000; i++)
				one(&c, offset + (unit_rand() >> (unit_rand() % 64)) % (UINT64_MAX - offset));
			one(&c, UINT64_MAX);
			one(&c, UINT64_MAX - 1);
		}
	}
	/* Resolution 0 is taken as 1 (the trace layer refuses it; the helper does not divide
	 * by zero). */
	struct vtr_ns_clock c;
	vtr_ns_clock_init(&c, 0, 5);
	CHECK(vtr_ns_clock_convert(&c, 7) == 2000000000u);
	/* The fast path covers every realistic trace: 2^63 ticks at a 17 GHz clock. */
	vtr_ns_clock_init(&c, (1ull << 34) - 1, 0);
	CHECK(c.limit >= (1ull << 63));
	vtr_ns_clock_init(&c, 2596130195u, 0);
	CHECK(vtr_ns_clock_convert(&c, 2596130195u) == 1000000000u);
	CHECK(vtr_ns_clock_convert(&c, 2596130194u) == 999999999u);
	CHECK(wrong == 0);
	return unit_done();
}
