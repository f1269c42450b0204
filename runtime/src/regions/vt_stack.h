/* SPDX-License-Identifier: BSD-3-Clause */
/* The regions open on each location as its records are encoded: call limits and repairs. */
#ifndef VT_STACK_H
#define VT_STACK_H

#include "base/vt_compiler.h"
#include "regions/vt_region.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Call limits are applied when records are encoded, not on the hot path (the encoder keeps
 * the stack anyway), so a dropped Enter drops exactly its Leave. A Leave that does not match
 * the innermost open region (longjmp, exceptions) closes the regions above it: every
 * location of a vt trace is balanced. The encoder writes the events; this module decides.
 * A location's stack is touched only with its lock held (by the thread that encodes it).
 */
struct vt_open_region {
	uint32_t region;
	bool recorded; /* false: dropped by a call limit, so its Leave is dropped too */
};

struct vt_stack {
	struct vt_open_region *frames;
	size_t depth, cap;
	uint64_t repaired; /* Leaves added or dropped to keep the stack balanced */
};

/* The stack of location index (made empty on first use); NULL when memory ran out. */
struct vt_stack *vt_stack_of(uint32_t index);

/* Pushes a frame where the stack is full: grows it (out of memory: counted as repaired). */
void vt_stack_push_slow(struct vt_stack *s, uint32_t id, bool recorded);

/* An Enter of region id, pushed: whether it is recorded (its call limit). Inline: the
 * encoder runs it for every Enter. */
static inline bool vt_stack_enter(struct vt_stack *s, uint32_t id)
{
	struct vt_region *reg = vt_region_at(id);
	bool recorded = true;
	if (vt_unlikely(reg->limit > 0))
		recorded = __atomic_fetch_add(&reg->calls, 1, __ATOMIC_RELAXED) < reg->limit;
	if (vt_unlikely(s->depth == s->cap)) {
		vt_stack_push_slow(s, id, recorded);
		return recorded;
	}
	s->frames[s->depth].region = id;
	s->frames[s->depth].recorded = recorded;
	s->depth++;
	return recorded;
}

/* A Leave of region id: the depth of its frame (the regions from there up are to be left,
 * those above it counted as repaired), or -1 when no open region matches (counted too). */
static inline long vt_stack_leave(struct vt_stack *s, uint32_t id)
{
	size_t d = s->depth;
	while (d > 0 && s->frames[d - 1].region != id)
		d--;
	if (vt_unlikely(d == 0)) {
		s->repaired++;
		return -1;
	}
	s->repaired += s->depth - d;
	return (long)(d - 1);
}

/* Pops the innermost open region: its id in *region, and whether it was recorded. */
static inline bool vt_stack_pop(struct vt_stack *s, uint32_t *region)
{
	struct vt_open_region *o = &s->frames[--s->depth];
	*region = o->region;
	return o->recorded;
}

/* The location ended: its frames are given back (the repaired count stays). */
void vt_stack_release(struct vt_stack *s);

#endif
