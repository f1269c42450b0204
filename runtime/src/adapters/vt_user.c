/* SPDX-License-Identifier: BSD-3-Clause */
/* The user API: regions named in the source (include/vt/vt_user.h). */
#define VT_USER 1 /* the prototypes, whatever the build flags */
#include "vt/vt_user.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "metrics/vt_metric.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#include <string.h>

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

/* ---- markers, counters, recording on/off, flush ---- */

VT_EXPORT void vt_user_marker(const char *category, int severity, const char *text)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !t->loc))
		return;
	if (severity < VT_USER_MARKER_NONE || severity > VT_USER_MARKER_HIGH)
		severity = VT_USER_MARKER_NONE;
	/* The values of VT_USER_MARKER_* are OTF2's severities. */
	vt_annot_marker(vt_clock_now(), t->loc->ref, category, (uint32_t)severity, text);
}

VT_EXPORT int vt_user_counter_def(const char *name, const char *unit, int type)
{
	if (type != VT_USER_COUNTER_INTEGER && type != VT_USER_COUNTER_DOUBLE) {
		vt_error("vt_user_counter_def(\"%s\"): type %d is neither VT_USER_COUNTER_INTEGER "
			 "nor VT_USER_COUNTER_DOUBLE; the counter is not recorded",
			 name ? name : "(null)", type);
		return -1;
	}
	/* vt starts here if it has not (a constructor); off (VT_ON=no, bad input): no counter.
	 * A thread that switched recording off still defines. */
	vt_thread_self();
	if (vt_core_state() != VT_STATE_ON)
		return -1;
	return vt_metric_define(name, unit, type == VT_USER_COUNTER_DOUBLE);
}

VT_EXPORT void vt_user_counter_set_int(int counter, int64_t value)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || counter < 0))
		return;
	vt_metric_set(t, counter, (uint64_t)value);
}

VT_EXPORT void vt_user_counter_set_double(int counter, double value)
{
	struct vt_tls *t = vt_thread_self();
	uint64_t bits;
	if (vt_unlikely(!t || counter < 0))
		return;
	memcpy(&bits, &value, sizeof(bits));
	vt_metric_set(t, counter, bits);
}

VT_EXPORT void vt_user_trace_off(void)
{
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_pause(t);
}

VT_EXPORT void vt_user_trace_on(void)
{
	vt_thread_resume(&vt_tls);
}

VT_EXPORT int vt_user_is_tracing(void)
{
	return vt_tls.pos != NULL;
}

VT_EXPORT void vt_user_flush(void)
{
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_flush_now(t);
}

/* ---- Fortran (vt_user.inc): names with their lengths, by gfortran's calling convention ---- */

void vt_user_start_f_(const char *name, size_t len);
void vt_user_end_f_(const char *name, size_t len);
void vt_user_marker_f_(const char *category, const char *text, size_t clen, size_t tlen);
void vt_user_counter_def_f_(int *id, const char *name, const char *unit, const int *type,
			    size_t nlen, size_t ulen);
void vt_user_counter_set_int_f_(const int *id, const int64_t *value);
void vt_user_counter_set_double_f_(const int *id, const double *value);
void vt_user_trace_off_f_(void);
void vt_user_trace_on_f_(void);
void vt_user_flush_f_(void);

static uint32_t fortran_region(const char *name, size_t len)
{
	while (len && name[len - 1] == ' ') /* Fortran pads with blanks */
		len--;
	return vt_region_of_string(name, len);
}

/* A Fortran string as a C string, truncated to size - 1 bytes, trailing blanks dropped. */
static const char *fortran_str(char *buf, size_t size, const char *s, size_t len)
{
	while (len && s[len - 1] == ' ')
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

VT_EXPORT void vt_user_start_f_(const char *name, size_t len)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name))
		return;
	vt_thread_enter(t, fortran_region(name, len));
}

VT_EXPORT void vt_user_end_f_(const char *name, size_t len)
{
	struct vt_tls *t = vt_thread_self();
	if (vt_unlikely(!t || !name))
		return;
	vt_thread_leave(t, fortran_region(name, len));
}

VT_EXPORT void vt_user_marker_f_(const char *category, const char *text, size_t clen, size_t tlen)
{
	char c[256], x[1024];
	vt_user_marker(fortran_str(c, sizeof(c), category, clen), VT_USER_MARKER_NONE,
		       fortran_str(x, sizeof(x), text, tlen));
}

VT_EXPORT void vt_user_counter_def_f_(int *id, const char *name, const char *unit, const int *type,
				      size_t nlen, size_t ulen)
{
	char n[256], u[64];
	*id = vt_user_counter_def(fortran_str(n, sizeof(n), name, nlen),
				  fortran_str(u, sizeof(u), unit, ulen), *type);
}

VT_EXPORT void vt_user_counter_set_int_f_(const int *id, const int64_t *value)
{
	vt_user_counter_set_int(*id, *value);
}

VT_EXPORT void vt_user_counter_set_double_f_(const int *id, const double *value)
{
	vt_user_counter_set_double(*id, *value);
}

VT_EXPORT void vt_user_trace_off_f_(void)
{
	vt_user_trace_off();
}

VT_EXPORT void vt_user_trace_on_f_(void)
{
	vt_user_trace_on();
}

VT_EXPORT void vt_user_flush_f_(void)
{
	vt_user_flush();
}
