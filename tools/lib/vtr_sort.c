/* SPDX-License-Identifier: BSD-3-Clause */
/* Sorting arrays of 64-bit integers (timestamps) by their bytes, for the tools' large arrays. */
#include "vtr.h"

#include <stdlib.h>
#include <string.h>

/*
 * An LSD radix sort, a byte a pass: the eight bytes' counts in one pass over the array, then
 * one pass per byte in which the values differ (a run's timestamps share their high bytes,
 * which take no pass), back and forth between the array and one scratch of n values.
 * Integers have no ties to order, so the result is the comparison sort's, in a time linear in
 * n: the critical path sorted each location's ~650,000 synchronisation points with qsort,
 * 10% of its run (perf, bench/waits-app.c's trace of 20 M events).
 */
void vtr_sort_u64(uint64_t *a, size_t n)
{
	size_t i = 1;
	while (i < n && a[i - 1] <= a[i])
		i++;
	if (i >= n)
		return;
	size_t(*count)[256] = vtr_xcalloc(8, sizeof(*count));
	for (i = 0; i < n; i++)
		for (unsigned b = 0; b < 8; b++)
			count[b][(a[i] >> (8 * b)) & 0xff]++;
	uint64_t *tmp = vtr_xcalloc(n, sizeof(*tmp));
	uint64_t *from = a, *to = tmp;
	for (unsigned b = 0; b < 8; b++) {
		size_t *c = count[b];
		if (c[(a[0] >> (8 * b)) & 0xff] == n)
			continue; /* every value has this byte: the order stays */
		size_t sum = 0;
		for (unsigned d = 0; d < 256; d++) {
			size_t k = c[d];
			c[d] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			to[c[(from[i] >> (8 * b)) & 0xff]++] = from[i];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
	free(tmp);
	free(count);
}
