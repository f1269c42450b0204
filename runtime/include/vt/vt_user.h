/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt's user API: name regions of your code in the trace.
 *
 *     #include <vt/vt_user.h>
 *     VT_USER_START("solve");
 *     ...
 *     VT_USER_END("solve");
 *
 * The macros record only when VTRACE is defined (vtcc defines it) and compile to nothing
 * otherwise, so the same source builds with and without vt. Regions with the same name are
 * the same region, wherever they are started. An END closes the innermost open region of
 * that name; regions left open are closed when the thread or program ends.
 */
#ifndef VT_VT_USER_H
#define VT_VT_USER_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VTRACE) && !defined(VTRACE_NO_USER)

/* Enters the region called name (a string that lives as long as the program). */
void vt_user_start(const char *name, const char *file, int line);
/* Leaves the innermost open region called name. */
void vt_user_end(const char *name);

#define VT_USER_START(name) vt_user_start((name), __FILE__, __LINE__)
#define VT_USER_END(name)   vt_user_end(name)

#else

#define VT_USER_START(name) ((void)0)
#define VT_USER_END(name)   ((void)0)

#endif

#ifdef __cplusplus
}
#endif

#endif
