/* SPDX-License-Identifier: BSD-3-Clause */
/* The user API: regions named in the source (include/vt/vt_user.h). */
#define VT_USER 1 /* the prototypes, whatever the build flags */
#include "vt/vt_user.h"
#include "vt_region.h"
#include "vt_thread.h"

#define VT_EXPORT __attribute__((visibility("default"), no_instrument_function))

VT_EXPORT void vt_user_start(const char *name, const char *file, int line)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name))
		return;
	uint32_t val = vt_region_of_name(name);
	vt_region_set_source(val, file, line);
	vt_thread_enter(t, val);
}

VT_EXPORT void vt_user_end(const char *name)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name))
		return;
	vt_thread_leave(t, vt_region_of_name(name));
}

/* The call site's region, looked up once: (value | filtered bit) + 1 in *site. Sites are
 * statics of the program; a race between two threads' first calls stores the same value. */
static uint32_t site_region(unsigned *site, const char *name, const char *file, int line)
{
	uint32_t val = __atomic_load_n(site, __ATOMIC_RELAXED);
	if (vt_likely(val))
		return val - 1;
	val = vt_region_of_name(name);
	if (file)
		vt_region_set_source(val, file, line);
	__atomic_store_n(site, val + 1, __ATOMIC_RELAXED);
	return val;
}

VT_EXPORT void vt_user_start_cached(unsigned *site, const char *name, const char *file, int line)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name || !site))
		return;
	vt_thread_enter(t, site_region(site, name, file, line));
}

VT_EXPORT void vt_user_end_cached(unsigned *site, const char *name)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name || !site))
		return;
	vt_thread_leave(t, site_region(site, name, NULL, 0));
}
