/* SPDX-License-Identifier: BSD-3-Clause */
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
 * The macros record only when VT_USER (or VTRACE, which vtcc defines) is defined, and compile
 * to nothing otherwise, so the same source builds with and without vt. The functions they
 * call are weak: a library annotated with this header links and runs in a program without
 * vt, and records when the program runs with libvt. Each call site keeps its region in a
 * static variable, so a region costs one look-up per call site, not one per call.
 *
 * Regions with the same name are the same region, wherever they are started. An END closes
 * the innermost open region of that name; regions left open are closed when the thread or
 * program ends. Names must be strings that live as long as the program (literals).
 */
#ifndef VT_VT_USER_H
#define VT_VT_USER_H

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

#define VT_USER_START(name)	 ((void)0)
#define VT_USER_END(name)	 ((void)0)
#define VT_USER_FUNCTION_BEGIN() ((void)0)
#define VT_USER_FUNCTION_END()	 ((void)0)
#define VT_USER_SCOPE(name)	 ((void)0)

#endif

#endif
