/* SPDX-License-Identifier: BSD-3-Clause */
/* The compiler-plugin adapter: descriptor-based enter and exit, no address look-up. */
#include "vt/vt_inst.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))

/* First call of a descriptor, or not recording: the general path, out of line. */
__attribute__((noinline, cold)) static void slow(struct vt_inst_desc *d, uint32_t kind)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t))
		return;
	uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
	if (!h)
		h = vt_region_register_desc(d);
	if (kind == VT_REC_ENTER)
		vt_thread_enter(t, h - 1);
	else
		vt_thread_leave(t, h - 1);
}

/* The same order as the -finstrument-functions hot path, with the table probe replaced by
 * one load of the descriptor's cached handle ((id | filtered bit) + 1). */
static inline __attribute__((always_inline)) void fast(struct vt_inst_desc *d, uint32_t kind)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
	if (vt_unlikely(!t->pos)) {
		if (t->state == VT_TLS_OFF)
			return;
		return slow(d, kind);
	}
	if (vt_unlikely(!h || !vt_clock_tsc))
		return slow(d, kind);
	uint32_t val = h - 1;
	vt_thread_event_tsc(t, val, kind);
}

VT_EXPORT void vt_inst_enter(struct vt_inst_desc *d)
{
	fast(d, VT_REC_ENTER);
}

VT_EXPORT void vt_inst_exit(struct vt_inst_desc *d)
{
	fast(d, VT_REC_LEAVE);
}
