/* SPDX-License-Identifier: BSD-3-Clause */
/* The program's markers and named values, kept until they go with the definitions. */
/*
 * What the program annotates its trace with besides events: markers (user API) and named
 * values (perfstubs metadata and parameters). They are rare, so they are kept in process
 * memory under a lock and travel with the definitions (vt_defs.h): the unification writes
 * the markers to the archive's marker file and the values as trace properties.
 */
#ifndef VT_ANNOT_H
#define VT_ANNOT_H

#include "defs/vt_defs.h"

#include <stddef.h>
#include <stdint.h>

/* A marker at ts on thread location index (its OTF2 id is known only when the archive is
 * open); severity is an OTF2_MarkerSeverity. */
void vt_annot_marker(uint64_t ts, uint32_t index, const char *category, uint32_t severity,
		     const char *text);

/* Sets property name (already in OTF2's form, NAMESPACE::NAME) to value; the last value set
 * is the one written. */
void vt_annot_property(const char *name, const char *value);

/* Appends every marker and property to this process's definitions; ref_of gives a thread
 * location's OTF2 id. */
void vt_annot_put_defs(struct vt_defs_buf *b, uint64_t (*ref_of)(uint32_t index));

#endif
