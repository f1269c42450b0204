/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-location tables of the modules (base/vt_loctab.h): chunks made once, never moved. */
#include "base/vt_loctab.h"

#include <stdbool.h>
#include <sys/mman.h>

/*
 * A chunk is mapped, not calloc'ed: the kernel's pages are zero already and only those a
 * location uses are ever touched (most processes use the first few entries of the first
 * chunk). calloc zeroed all of it, 22 KiB for the writer's table, at every run's start.
 */
static void *chunk_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *vt_loctab_get(struct vt_loctab *t, uint32_t index)
{
	uint32_t c = index / VT_LOCTAB_CHUNK;
	if (c >= VT_LOCTAB_CHUNKS)
		return NULL;
	char *chunk = __atomic_load_n(&t->chunks[c], __ATOMIC_ACQUIRE);
	if (!chunk) {
		size_t bytes = (size_t)VT_LOCTAB_CHUNK * t->size;
		char *fresh = chunk_map(bytes);
		if (!fresh)
			return NULL;
		void *expected = NULL;
		if (__atomic_compare_exchange_n(&t->chunks[c], &expected, fresh, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			chunk = fresh;
		} else {
			munmap(fresh, bytes); /* another thread made it first */
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
