/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of libvttrace share, and no tool sees. */
#ifndef VTR_PRIV_H
#define VTR_PRIV_H

#include "vtr.h"

#include <otf2/otf2.h>

/*
 * Strings, regions, groups, nodes and communicators live in tables indexed by their id,
 * because OTF2 writers number them densely from 0. An id beyond this bound means a damaged
 * archive; refusing it keeps one bad record from allocating gigabytes.
 */
#define VTR_MAX_DENSE_ID (UINT32_C(1) << 26)

/* A copy of s that lives as long as the trace. */
const char *vtr_intern(struct vtr_trace *tr, const char *s);
void vtr_free_interned(struct vtr_trace *tr);

/* The id -> location index, built once the locations are known. */
void vtr_index_locations(struct vtr_trace *tr);

#endif
