/* SPDX-License-Identifier: BSD-3-Clause */
/* The compile-time filter of vt's compiler plugins: VampirTrace filter files plus file patterns. */
#ifndef VT_PASS_FILTER_H
#define VT_PASS_FILTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The runtime's syntax (runtime/src/vt_filter.c, docs/environment.md): lines
 * "pattern[;pattern...] -- LIMIT", '#' starts a comment, the first matching line wins.
 * A pattern is a shell wildcard matched against the whole region name; a pattern written
 * "file:PATTERN" is matched against the source file of the function instead: against its
 * full path when PATTERN holds a '/' ('*' then matches '/' too), else against the file's
 * base name. The runtime reads "file:..." as a name pattern no function has, so one file
 * serves both.
 *
 * The plugins compile in a C++ compiler; this parser is C (no GCC or LLVM types) so that
 * both plugins and the unit test share it.
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
