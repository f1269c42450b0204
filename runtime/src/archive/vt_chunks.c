/* SPDX-License-Identifier: BSD-3-Clause */
/* libotf2's memory: a bounded chunk pool per writer and spare chunks reused across writers. */
#include "archive/vt_otf2_priv.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/*
 * Chunks that writers gave back, kept for the next writer. libotf2 fills a chunk's unused
 * rest when it writes it, so a fresh chunk costs a page fault per 4 KiB even for a definition
 * file of 200 bytes; on a paravirtualised VM that is ~30 us a fault, 30 ms for a 4 MiB
 * chunk. A reused chunk is resident already: the local definitions of every location, and
 * the event writers of threads that start after others ended, take no faults.
 */
#define SPARE_CHUNKS 4
static struct {
	pthread_mutex_t lock;
	void *p[SPARE_CHUNKS];
	uint64_t size[SPARE_CHUNKS];
	int n;
} spare = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct chunks {
	size_t n, cap;
	void **p;
	uint64_t size; /* of each: a buffer's chunks are all of one size */
};

/* Called by libotf2 under its own locking per writer; each buffer has its own list. */
static void *chunk_new(uint64_t size)
{
	void *m = NULL;
	pthread_mutex_lock(&spare.lock);
	for (int i = 0; i < spare.n; i++) {
		if (spare.size[i] == size) {
			m = spare.p[i];
			spare.n--;
			spare.p[i] = spare.p[spare.n];
			spare.size[i] = spare.size[spare.n];
			break;
		}
	}
	pthread_mutex_unlock(&spare.lock);
	return m ? m : malloc(size);
}

static void chunk_give_back(void *m, uint64_t size)
{
	pthread_mutex_lock(&spare.lock);
	if (spare.n < SPARE_CHUNKS) {
		spare.p[spare.n] = m;
		spare.size[spare.n++] = size;
		m = NULL;
	}
	pthread_mutex_unlock(&spare.lock);
	free(m);
}

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			 uint64_t size)
{
	struct chunks *c = *per_buffer;
	if (!c && !(c = *per_buffer = calloc(1, sizeof(*c))))
		return NULL;
	/* NULL makes libotf2 write the chunks out and free them, then ask again. */
	if (type == OTF2_FILETYPE_EVENTS && c->n >= EVT_CHUNKS_KEPT)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		void **p = realloc(c->p, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->p = p;
		c->cap = cap;
	}
	void *m = chunk_new(size);
	if (m) {
		c->size = size;
		c->p[c->n++] = m;
	}
	return m;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			   bool final)
{
	struct chunks *c = *per_buffer;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		chunk_give_back(c->p[i], c->size);
	c->n = 0;
	if (final) {
		free(c->p);
		free(c);
		*per_buffer = NULL;
	}
}

const OTF2_MemoryCallbacks vt_otf2_memory_callbacks = {chunk_alloc, chunk_free_all};

void vt_otf2_chunks_release(void)
{
	pthread_mutex_lock(&spare.lock);
	while (spare.n)
		free(spare.p[--spare.n]);
	pthread_mutex_unlock(&spare.lock);
}
