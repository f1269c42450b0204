/* SPDX-License-Identifier: BSD-3-Clause */
/* The user API: regions named in the source with VT_USER_START/VT_USER_END. */
#define VTRACE 1 /* the prototypes, whatever the build flags */
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
