/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's user API for C and C++: regions, markers, counters, tracing off and on. */
/*
 * vt's user API: name regions of your code in the trace.
 *
 *     #include <vt/vt_user.h>
 *     VT_USER_START("solve");
 *     ...
 *     VT_USER_END("solve");
 *
 *     void step(void)
 *     {
 *             VT_USER_FUNCTION_BEGIN();      the function itself, by its name
 *             ...
 *             VT_USER_FUNCTION_END();        before every return
 *     }
 *
 *     { VT_USER_SCOPE("assemble"); ... }     C++: the region lasts as long as the scope
 *
 *     VT_USER_MARKER("phase", "converged");  a marker in the trace's marker file
 *     int c = VT_USER_COUNTER_DEF("residual", "1", VT_USER_COUNTER_DOUBLE);
 *     VT_USER_COUNTER_SET_DOUBLE(c, r);      a value, now, on this thread
 *     VT_USER_TRACE_OFF(); ... VT_USER_TRACE_ON();   this thread records nothing between
 *     VT_USER_FLUSH();                       hand this thread's buffer to the writer now
 *     VT_USER_SNAPSHOT("why");               VT_MODE=ring: write every thread's window now
 *
 * The macros record only when VT_USER (or VTRACE, which vtcc defines) is defined, and compile
 * to nothing otherwise, so the same source builds with and without vt. The functions they
 * call are weak: a library annotated with this header links and runs in a program without
 * vt, and records when the program runs with libvt. Each call site keeps its region in a
 * static variable, so a region costs one look-up per call site, not one per call.
 *
 * Regions with the same name are the same region, wherever they are started. An END closes
 * the innermost open region of that name; regions left open are closed when the thread or
 * program ends. Names must be strings that live as long as the program (literals).
 *
 * Counters are defined once by name (the same name gives the same counter, on any thread)
 * and set as often as needed; each value is an OTF2 Metric event at its time on the
 * setting thread. VT_USER_COUNTER_DEF answers -1 without vt; setting -1 does nothing.
 * Recording off and on is per thread: the trace marks the gap with MeasurementOnOff events,
 * and regions entered before it stay open across it. Fortran: vt_user.inc (vtfort).
 */
#ifndef VT_VT_USER_H
#define VT_VT_USER_H

#include <stdint.h>

/* A counter's type, for VT_USER_COUNTER_DEF. */
#define VT_USER_COUNTER_INTEGER 0
#define VT_USER_COUNTER_DOUBLE	1

/* A marker's severity (OTF2's), for VT_USER_MARKER_SEVERITY. */
#define VT_USER_MARKER_NONE   0
#define VT_USER_MARKER_LOW    1
#define VT_USER_MARKER_MEDIUM 2
#define VT_USER_MARKER_HIGH   3

#if (defined(VT_USER) || defined(VTRACE)) && !defined(VTRACE_NO_USER)

#ifdef __cplusplus
extern "C" {
#endif

/* Enters the region called name. */
void vt_user_start(const char *name, const char *file, int line) __attribute__((weak));
/* Leaves the innermost open region called name. */
void vt_user_end(const char *name) __attribute__((weak));
/* The same, with the call site's cache of the region (a static, 0 before the first call). */
void vt_user_start_cached(unsigned *site, const char *name, const char *file, int line)
    __attribute__((weak));
void vt_user_end_cached(unsigned *site, const char *name) __attribute__((weak));
/* A marker now on this thread: category names its kind (one definition per category). */
void vt_user_marker(const char *category, int severity, const char *text) __attribute__((weak));
/* A counter of type VT_USER_COUNTER_*: its id, or -1 (not recorded). */
int vt_user_counter_def(const char *name, const char *unit, int type) __attribute__((weak));
void vt_user_counter_set_int(int counter, int64_t value) __attribute__((weak));
void vt_user_counter_set_double(int counter, double value) __attribute__((weak));
/* Recording on this thread: off, on again, and whether it records. */
void vt_user_trace_off(void) __attribute__((weak));
void vt_user_trace_on(void) __attribute__((weak));
int vt_user_is_tracing(void) __attribute__((weak));
/* Hands this thread's recorded events to the writer now. */
void vt_user_flush(void) __attribute__((weak));
/* VT_MODE=ring: writes every thread's window to NAME.snap-K while the program goes on
 * (docs/ring.md); 0, or -1 after one line. */
int vt_user_snapshot(const char *why) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#define VT_USER_START(name)                                                                        \
	do {                                                                                       \
		static unsigned vt_user_site_;                                                     \
		if (vt_user_start_cached)                                                          \
			vt_user_start_cached(&vt_user_site_, (name), __FILE__, __LINE__);          \
	} while (0)
#define VT_USER_END(name)                                                                          \
	do {                                                                                       \
		static unsigned vt_user_site_;                                                     \
		if (vt_user_end_cached)                                                            \
			vt_user_end_cached(&vt_user_site_, (name));                                \
	} while (0)
#define VT_USER_FUNCTION_BEGIN() VT_USER_START(__func__)
#define VT_USER_FUNCTION_END()	 VT_USER_END(__func__)

#define VT_USER_MARKER_SEVERITY(category, severity, text)                                          \
	(vt_user_marker ? vt_user_marker((category), (severity), (text)) : (void)0)
#define VT_USER_MARKER(category, text) VT_USER_MARKER_SEVERITY(category, VT_USER_MARKER_NONE, text)
#define VT_USER_COUNTER_DEF(name, unit, type)                                                      \
	(vt_user_counter_def ? vt_user_counter_def((name), (unit), (type)) : -1)
#define VT_USER_COUNTER_SET_INT(counter, value)                                                    \
	(vt_user_counter_set_int ? vt_user_counter_set_int((counter), (value)) : (void)0)
#define VT_USER_COUNTER_SET_DOUBLE(counter, value)                                                 \
	(vt_user_counter_set_double ? vt_user_counter_set_double((counter), (value)) : (void)0)
#define VT_USER_TRACE_OFF()   (vt_user_trace_off ? vt_user_trace_off() : (void)0)
#define VT_USER_TRACE_ON()    (vt_user_trace_on ? vt_user_trace_on() : (void)0)
#define VT_USER_IS_TRACING()  (vt_user_is_tracing ? vt_user_is_tracing() : 0)
#define VT_USER_FLUSH()	      (vt_user_flush ? vt_user_flush() : (void)0)
#define VT_USER_SNAPSHOT(why) (vt_user_snapshot ? vt_user_snapshot(why) : -1)

#ifdef __cplusplus
/* A region from its construction to the end of its scope. */
class vt_user_scope
{
      public:
	vt_user_scope(unsigned *start, unsigned *end, const char *name, const char *file, int line)
	    : end_(end), name_(name)
	{
		if (vt_user_start_cached)
			vt_user_start_cached(start, name, file, line);
	}
	~vt_user_scope()
	{
		if (vt_user_end_cached)
			vt_user_end_cached(end_, name_);
	}
	vt_user_scope(const vt_user_scope &) = delete;
	vt_user_scope &operator=(const vt_user_scope &) = delete;

      private:
	unsigned *end_;
	const char *name_;
};
#define VT_USER_CAT2(a, b) a##b
#define VT_USER_CAT(a, b)  VT_USER_CAT2(a, b)
#define VT_USER_SCOPE(name)                                                                        \
	static unsigned VT_USER_CAT(vt_user_start_, __LINE__),                                     \
	    VT_USER_CAT(vt_user_end_, __LINE__);                                                   \
	vt_user_scope VT_USER_CAT(vt_user_scope_, __LINE__)(                                       \
	    &VT_USER_CAT(vt_user_start_, __LINE__), &VT_USER_CAT(vt_user_end_, __LINE__), (name),  \
	    __FILE__, __LINE__)
#endif

#else

#define VT_USER_START(name)				  ((void)0)
#define VT_USER_END(name)				  ((void)0)
#define VT_USER_FUNCTION_BEGIN()			  ((void)0)
#define VT_USER_FUNCTION_END()				  ((void)0)
#define VT_USER_SCOPE(name)				  ((void)0)
#define VT_USER_MARKER_SEVERITY(category, severity, text) ((void)0)
#define VT_USER_MARKER(category, text)			  ((void)0)
#define VT_USER_COUNTER_DEF(name, unit, type)		  (-1)
#define VT_USER_COUNTER_SET_INT(counter, value)		  ((void)0)
#define VT_USER_COUNTER_SET_DOUBLE(counter, value)	  ((void)0)
#define VT_USER_TRACE_OFF()				  ((void)0)
#define VT_USER_TRACE_ON()				  ((void)0)
#define VT_USER_IS_TRACING()				  0
#define VT_USER_FLUSH()					  ((void)0)
#define VT_USER_SNAPSHOT(why)				  (-1)

#endif

#endif
