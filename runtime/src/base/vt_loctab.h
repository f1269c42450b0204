/* SPDX-License-Identifier: BSD-3-Clause */
/* A module's own state per location: one zeroed entry per location index, made on first use. */
#ifndef VT_LOCTAB_H
#define VT_LOCTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Each module keeps what it knows of a location in a table of its own, indexed by the
 * location's index, instead of a field in struct vt_loc: the record layer then hands on
 * "location, records" and knows nothing of the writer, the metrics or sampling.
 *
 * Entries never move (chunks of VT_LOCTAB_CHUNK, made with a compare-and-swap and kept to
 * the end of the process), so a pointer to one stays valid without a lock; what is in an
 * entry is guarded as its owner says (most: the location's lock). Not on the hot path.
 */
#define VT_LOCTAB_CHUNK	 256u
#define VT_LOCTAB_CHUNKS 1024u /* 262,144 locations per process */

struct vt_loctab {
	size_t size; /* bytes per entry */
	void *chunks[VT_LOCTAB_CHUNKS];
};

#define VT_LOCTAB_INIT(type)                                                                       \
	{                                                                                          \
		.size = sizeof(type)                                                               \
	}

/* Location index's entry, zeroed when new; NULL when memory ran out or index is too large. */
void *vt_loctab_get(struct vt_loctab *t, uint32_t index);

/* The entry if it was ever made, else NULL (never allocates). */
void *vt_loctab_peek(const struct vt_loctab *t, uint32_t index);

#endif
