/* SPDX-License-Identifier: BSD-3-Clause */
/* The compile-time filter of vt's compiler plugins: VampirTrace filter files plus file patterns. */
#ifndef VT_PASS_FILTER_H
#define VT_PASS_FILTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The runtime's filter files, read by the one parser both share
 * (runtime/src/filter/vt_filter_spec.h, which has the syntax); here with the source file of
 * each function known, so that "file:" rules match too.
 *
 * The plugins compile in a C++ compiler; this is C (no GCC or LLVM types) so that both
 * plugins and the unit test share it.
 */
struct vt_pass_filter;

/*
 * Reads the filter file PATH. Returns the filter, or NULL after writing one line
 * ("PATH:LINE: 'TEXT': expected ...", or "PATH: cannot read ...") into err.
 */
struct vt_pass_filter *vt_pass_filter_load(const char *path, char *err, size_t errlen);

/*
 * The LIMIT of the first rule matching the function NAME defined in FILE (NULL when not
 * known: file patterns then do not match), or -1 when no rule matches. *line, if not NULL,
 * receives the line of that rule (0 when none).
 */
long vt_pass_filter_limit(const struct vt_pass_filter *f, const char *name, const char *file,
			  int *line);

/* The number of patterns read. */
size_t vt_pass_filter_size(const struct vt_pass_filter *f);

void vt_pass_filter_free(struct vt_pass_filter *f);

#ifdef __cplusplus
}
#endif

#endif
