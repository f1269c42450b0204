/* SPDX-License-Identifier: BSD-3-Clause */
/* Call paths as (parent path, region) pairs, one number per distinct path, and their names. */
#ifndef VT_PROF_PATHS_H
#define VT_PROF_PATHS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vtr.h"

/*
 * The paths seen, numbered from 1 in the order first seen (0: no path, outside every
 * region); path p is nodes[p - 1], its region below its parent path. Found again through an
 * open-addressing table. Zero-initialised: empty.
 */
struct vt_prof_paths {
	struct vt_prof_pathnode {
		uint32_t parent, region;
	} * nodes;
	size_t n, cap;
	uint32_t *slots; /* path numbers; 0: free */
	size_t nslots;
};

/* A 64-bit mixing function for the tools' hash tables. */
uint64_t vt_prof_mix(uint64_t h);

/* The number of the path of region below path parent (0: at the top), made if new. */
uint32_t vt_prof_path_of(struct vt_prof_paths *p, uint32_t parent, uint32_t region);

/* The region of path (a number vt_prof_path_of gave, not 0). */
static inline uint32_t vt_prof_path_region(const struct vt_prof_paths *p, uint32_t path)
{
	return p->nodes[path - 1].region;
}

/*
 * Path's region names from the outermost (names from t): sep between them (text), or, when
 * sep is ";", as inside a quoted CSV field; json: a JSON array of strings. Path 0 prints
 * "(none)" (text, CSV) or []. At most 256 levels from the innermost.
 */
void vt_prof_path_print(FILE *out, const struct vt_prof_paths *p, const struct vtr_trace *t,
			uint32_t path, const char *sep, bool json);

void vt_prof_paths_free(struct vt_prof_paths *p);

/* Whether path's region (path not 0) is one of MPI's: the call an MPI event happens in. */
bool vt_prof_path_in_mpi(const struct vt_prof_paths *p, const struct vtr_trace *t, uint32_t path);

/*
 * The call path each member of a collective was in at its end, kept from the member's
 * MpiCollectiveEnd until the collective is matched: one per collective under way (its
 * reading's match slot points to it), in a list the report frees at the end.
 */
struct vt_prof_coll_paths {
	struct vt_prof_coll_paths *prev, *next;
	uint32_t paths[];
};

/* The collective's entry (*match, made for size members and listed when NULL). */
struct vt_prof_coll_paths *vt_prof_coll_paths_of(struct vt_prof_coll_paths **list, void **match,
						 uint32_t size);
/* Takes x (matched: not needed any more) out of the list and frees it; NULL: nothing. */
void vt_prof_coll_paths_drop(struct vt_prof_coll_paths **list, struct vt_prof_coll_paths *x);
void vt_prof_coll_paths_free(struct vt_prof_coll_paths **list);

#endif
