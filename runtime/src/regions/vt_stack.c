/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-location stacks of open regions, with call limits and the repair of skipped Leaves. */
#include "regions/vt_stack.h"
#include "base/vt_compiler.h"
#include "base/vt_loctab.h"
#include "regions/vt_region.h"

#include <stdlib.h>

static struct vt_loctab stacks = VT_LOCTAB_INIT(struct vt_stack);

struct vt_stack *vt_stack_of(uint32_t index)
{
	return vt_loctab_get(&stacks, index);
}

static void push(struct vt_stack *s, uint32_t region, bool recorded)
{
	if (s->depth == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct vt_open_region *f = realloc(s->frames, cap * sizeof(*f));
		if (!f) {
			/* Out of memory deep in a recursion: keep the count, lose the detail. */
			s->repaired++;
			return;
		}
		s->frames = f;
		s->cap = cap;
	}
	s->frames[s->depth].region = region;
	s->frames[s->depth].recorded = recorded;
	s->depth++;
}

bool vt_stack_enter(struct vt_stack *s, uint32_t id)
{
	struct vt_region *reg = &vt_regtab.by_id[id];
	bool recorded = true;
	if (vt_unlikely(reg->limit > 0))
		recorded = __atomic_fetch_add(&reg->calls, 1, __ATOMIC_RELAXED) < reg->limit;
	push(s, id, recorded);
	return recorded;
}

long vt_stack_leave(struct vt_stack *s, uint32_t id)
{
	size_t d = s->depth;
	while (d > 0 && s->frames[d - 1].region != id)
		d--;
	if (d == 0) {
		s->repaired++;
		return -1;
	}
	s->repaired += s->depth - d;
	return (long)(d - 1);
}

void vt_stack_release(struct vt_stack *s)
{
	free(s->frames);
	s->frames = NULL;
	s->depth = s->cap = 0;
}
