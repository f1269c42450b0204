/* SPDX-License-Identifier: BSD-3-Clause */
/* The -finstrument-functions adapter: the hot path of enter and exit. */
#include "vt_region.h"
#include "vt_thread.h"

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))

VT_EXPORT void __cyg_profile_func_enter(void *fn, void *site);
VT_EXPORT void __cyg_profile_func_exit(void *fn, void *site);

/*
 * Order, cheapest rejection first: thread recording? (one TLS load) -> region id from the
 * lock-free address table -> filtered? -> depth limit -> buffer room -> timestamp -> store.
 * errno is only touched on slow paths, which save it.
 */
VT_EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t))
		return;
	vt_thread_enter(t, vt_region_of_addr((uintptr_t)fn));
}

VT_EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t))
		return;
	vt_thread_leave(t, vt_region_of_addr((uintptr_t)fn));
}
