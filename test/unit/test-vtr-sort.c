/* SPDX-License-Identifier: BSD-3-Clause */
/* The tools' radix sort of 64-bit integers (tools/lib/vtr_sort.c) against qsort's result. */
#include "unit.h"
#include "vtr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return (a > b) - (a < b);
}

/* a sorted by vtr_sort_u64 equals a sorted by qsort. */
static void same_as_qsort(const uint64_t *a, size_t n)
{
	uint64_t *x = malloc((n ? n : 1) * sizeof(*x)), *y = malloc((n ? n : 1) * sizeof(*y));
	if (n) {
		memcpy(x, a, n * sizeof(*a));
		memcpy(y, a, n * sizeof(*a));
	}
	qsort(x, n, sizeof(*x), cmp);
	vtr_sort_u64(y, n);
	CHECK(n == 0 || memcmp(x, y, n * sizeof(*x)) == 0);
	free(x);
	free(y);
}

int main(void)
{
	enum { N = 100000 };
	uint64_t *a = malloc(N * sizeof(*a));
	a[0] = 7;
	same_as_qsort(a, 0);
	same_as_qsort(a, 1);
	/* edge values: 0, 1, 2^32 - 1, 2^32, 2^63, 2^64 - 1, repeated, in reverse */
	const uint64_t edge[] = {UINT64_MAX,	    1u << 31,	       0, UINT32_MAX, 1,
				 (uint64_t)1 << 63, (uint64_t)1 << 32, 0, UINT64_MAX, 1};
	same_as_qsort(edge, sizeof(edge) / sizeof(edge[0]));
	/* random over all bits, and over the low bits only (timestamps of one run: the high
	 * bytes equal, which take no pass) */
	for (size_t i = 0; i < N; i++)
		a[i] = unit_rand();
	same_as_qsort(a, N);
	for (size_t i = 0; i < N; i++)
		a[i] = 0x0123456700000000u | (unit_rand() & 0xffffff);
	same_as_qsort(a, N);
	/* sorted already, descending, all equal, two sorted runs interleaved */
	for (size_t i = 0; i < N; i++)
		a[i] = 1000 + 3 * i;
	same_as_qsort(a, N);
	for (size_t i = 0; i < N; i++)
		a[i] = (uint64_t)(N - i) << 20;
	same_as_qsort(a, N);
	for (size_t i = 0; i < N; i++)
		a[i] = 42;
	same_as_qsort(a, N);
	for (size_t i = 0; i < N; i++)
		a[i] = i % 2 ? 5 * i : 5 * i + 1000003;
	same_as_qsort(a, N);
	/* the input itself, unsorted, ends sorted in place */
	uint64_t b[] = {3, 1, 2};
	vtr_sort_u64(b, 3);
	CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3);
	free(a);
	return unit_done();
}
