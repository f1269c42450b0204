/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-path model of a trace (vt-profile --call-tree, vt-report's call paths). */
#ifndef VT_PROF_CTREE_H
#define VT_PROF_CTREE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The orders of the profiles' rows: largest first, names breaking ties; NAME: by name only. */
enum vt_prof_sort { VT_PROF_SORT_EXCL, VT_PROF_SORT_INCL, VT_PROF_SORT_CALLS, VT_PROF_SORT_NAME };

/* One call path. id: its node (1...), parent 0: an outermost region; depth 1: outermost. */
struct vt_prof_path {
	uint32_t id, parent, depth, region;
	uint64_t calls, incl, excl;
};

struct vt_prof_ctree;

/* The call paths of the trace, read location by location in a pass of their own. NULL, with
 * a one-line reason in err, when the events cannot be read. */
struct vt_prof_ctree *vt_prof_ctree_read(const struct vt_prof_trace *tr, char *err, size_t errlen);

/* The same call paths built from events another reading hands over (vt-report's, merged in
 * time order: a stack per location): enter and leave as the layer's callbacks say. */
struct vt_prof_ctree *vt_prof_ctree_new(size_t nlocations);
void vt_prof_ctree_enter(struct vt_prof_ctree *c, const struct vtr_location *l, uint64_t time,
			 uint32_t region);
void vt_prof_ctree_leave(struct vt_prof_ctree *c, const struct vtr_location *l, uint64_t time,
			 uint32_t region, uint64_t enter);

/* The paths depth first, siblings in the order of key (--call-tree's order); *count of them,
 * the caller frees. */
struct vt_prof_path *vt_prof_ctree_paths(struct vt_prof_ctree *c, const struct vt_prof_trace *tr,
					 enum vt_prof_sort key, size_t *count);
void vt_prof_ctree_free(struct vt_prof_ctree *c);

#endif
