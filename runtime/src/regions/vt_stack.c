/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-location stacks of open regions, with call limits and the repair of skipped Leaves. */
#include "regions/vt_stack.h"
#include "base/vt_loctab.h"

#include <stdlib.h>

static struct vt_loctab stacks = VT_LOCTAB_INIT(struct vt_stack);

struct vt_stack *vt_stack_of(uint32_t index)
{
	return vt_loctab_get(&stacks, index);
}

void vt_stack_push_slow(struct vt_stack *s, uint32_t region, bool recorded)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	struct vt_open_region *f = realloc(s->frames, cap * sizeof(*f));
	if (!f) {
		/* Out of memory deep in a recursion: keep the count, lose the detail. */
		s->repaired++;
		return;
	}
	s->frames = f;
	s->cap = cap;
	s->frames[s->depth].region = region;
	s->frames[s->depth].recorded = recorded;
	s->depth++;
}

void vt_stack_release(struct vt_stack *s)
{
	free(s->frames);
	s->frames = NULL;
	s->depth = s->cap = 0;
}
