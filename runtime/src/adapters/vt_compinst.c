/* SPDX-License-Identifier: BSD-3-Clause */
/* The -finstrument-functions adapter: the hot path of enter and exit. */
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))

VT_EXPORT void __cyg_profile_func_enter(void *fn, void *site);
VT_EXPORT void __cyg_profile_func_exit(void *fn, void *site);

/* Everything that is not the common case: a new or stopped thread, a full buffer, an
 * address not in its first slot, the monotonic clock. Out of line, so that the fast path
 * below needs no stack frame and ends in a tail call when it gives up. */
__attribute__((noinline, cold)) static void slow(uintptr_t fn, uint32_t kind)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t))
		return;
	uint32_t val = vt_region_of_addr(fn);
	if (kind == VT_REC_ENTER)
		vt_thread_enter(t, val);
	else
		vt_thread_leave(t, val);
}

/*
 * Order, cheapest rejection first: thread recording (a TLS load) -> region id from the first
 * slot of the lock-free address table -> filtered? -> depth limit -> reserve a record (room
 * in the buffer, not inside another producer) -> timestamp -> three stores -> commit. errno
 * is only touched on slow paths, which save it.
 */
static inline __attribute__((always_inline)) void fast(uintptr_t fn, uint32_t kind)
{
	struct vt_tls *t = &vt_tls;
	const struct vt_addr_slot *s = &vt_regtab.by_addr[vt_slot_index(fn)];
	if (vt_unlikely(!t->pos)) {
		/* Not recording: off (VT_ON=no, stopped) costs this test only. */
		if (t->state == VT_TLS_OFF)
			return;
		return slow(fn, kind);
	}
	if (vt_unlikely(!vt_clock_tsc || __atomic_load_n(&s->key, __ATOMIC_ACQUIRE) != fn))
		return slow(fn, kind);
	uint32_t val = s->val;
	vt_thread_event_tsc(t, val, kind);
}

VT_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	fast((uintptr_t)fn, VT_REC_ENTER);
}

VT_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	fast((uintptr_t)fn, VT_REC_LEAVE);
}
