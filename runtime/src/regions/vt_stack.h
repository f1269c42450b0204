/* SPDX-License-Identifier: BSD-3-Clause */
/* The regions open on each location as its records are encoded: call limits and repairs. */
#ifndef VT_STACK_H
#define VT_STACK_H

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

/* An Enter of region id, pushed: whether it is recorded (its call limit). */
bool vt_stack_enter(struct vt_stack *s, uint32_t id);

/* A Leave of region id: the depth of its frame (the regions from there up are to be left,
 * those above it counted as repaired), or -1 when no open region matches (counted too). */
long vt_stack_leave(struct vt_stack *s, uint32_t id);

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
