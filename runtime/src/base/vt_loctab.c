/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-location tables of the modules (base/vt_loctab.h): chunks made once, never moved. */
#include "base/vt_loctab.h"

#include <stdbool.h>
#include <stdlib.h>

void *vt_loctab_get(struct vt_loctab *t, uint32_t index)
{
	uint32_t c = index / VT_LOCTAB_CHUNK;
	if (c >= VT_LOCTAB_CHUNKS)
		return NULL;
	char *chunk = __atomic_load_n(&t->chunks[c], __ATOMIC_ACQUIRE);
	if (!chunk) {
		char *fresh = calloc(VT_LOCTAB_CHUNK, t->size);
		if (!fresh)
			return NULL;
		void *expected = NULL;
		if (__atomic_compare_exchange_n(&t->chunks[c], &expected, fresh, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			chunk = fresh;
		} else {
			free(fresh); /* another thread made it first */
			chunk = expected;
		}
	}
	return chunk + (size_t)(index % VT_LOCTAB_CHUNK) * t->size;
}

void *vt_loctab_peek(const struct vt_loctab *t, uint32_t index)
{
	uint32_t c = index / VT_LOCTAB_CHUNK;
	if (c >= VT_LOCTAB_CHUNKS)
		return NULL;
	char *chunk = __atomic_load_n(&t->chunks[c], __ATOMIC_ACQUIRE);
	return chunk ? chunk + (size_t)(index % VT_LOCTAB_CHUNK) * t->size : NULL;
}
