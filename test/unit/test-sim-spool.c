/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim's spool of new times: values come back per location, in order, across chunks. */
#include <stdlib.h>

#include "unit.h"
#include "vts.h"

const char *const vts_prog = "test-sim-spool";

int main(void)
{
	/* Counts around the chunk size, the locations' puts interleaved as the replay does. */
	static const size_t counts[] = {
	    0, 1, VTS_CHUNK - 1, VTS_CHUNK, VTS_CHUNK + 1, 3 * VTS_CHUNK + 17};
	enum { N = sizeof(counts) / sizeof(*counts) };
	struct vts_spool s;
	vts_spool_init(&s, N);
	size_t most = 0;
	for (size_t i = 0; i < N; i++)
		most = counts[i] > most ? counts[i] : most;
	for (size_t k = 0; k < most; k++)
		for (size_t i = 0; i < N; i++)
			if (k < counts[i])
				vts_spool_put(&s, i, ((uint64_t)i << 40) + 3 * k);
	vts_spool_finish(&s);
	/* Read back in another order than written, one location twice. */
	static const size_t order[] = {5, 0, 3, 1, 4, 2, 5};
	for (size_t o = 0; o < sizeof(order) / sizeof(*order); o++) {
		size_t i = order[o];
		vts_spool_rewind(&s, i);
		size_t k = 0, wrong = 0;
		uint64_t t;
		while (vts_spool_next(&s, i, &t)) {
			wrong += t != ((uint64_t)i << 40) + 3 * k;
			k++;
		}
		CHECK(k == counts[i]);
		CHECK(wrong == 0);
		CHECK(!vts_spool_next(&s, i, &t)); /* stays at its end */
	}
	vts_spool_free(&s);
	return unit_done();
}
