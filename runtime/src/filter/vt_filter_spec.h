/* SPDX-License-Identifier: BSD-3-Clause */
/* The one parser of vt's filter files, shared by the runtime and the compiler plugins. */
#ifndef VT_FILTER_SPEC_H
#define VT_FILTER_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * VampirTrace's syntax (docs/environment.md): lines "pattern[;pattern...] -- LIMIT", '#'
 * starts a comment, blank lines are skipped, and the first matching rule wins. LIMIT: -1
 * all calls, 0 none, N the first N calls. A pattern is a shell wildcard matched against the
 * whole region name; one written "file:PATTERN" is matched against the source file of the
 * function instead (against the full path when PATTERN holds a '/', where '*' then matches
 * '/' too, else against the base name). Only the compiler plugins know files; the runtime
 * asks with none, so one file serves both.
 *
 * Plain C with no runtime dependency: the plugins compile it into their C++ modules.
 */
struct vt_filter_rule {
	char *pattern; /* without the "file:" prefix */
	long limit;
	int line;     /* of the file, from 1 */
	bool on_file; /* matched against the source file, not the name */
	bool has_dir; /* on_file: the pattern holds a '/': the whole path is matched */
};

struct vt_filter_spec {
	struct vt_filter_rule *rules;
	size_t n;
};

/* Why a file was refused: line 0 when the file could not be read (sys_errno says why),
 * else the line, its text (trimmed) and why it was refused. */
struct vt_filter_error {
	int line;
	int sys_errno;
	char text[256];
	char why[192]; /* "expected ...", or what is wrong */
};

/* Reads the filter file path into spec (empty before). Returns 0, or -1 with err filled and
 * spec empty. */
int vt_filter_spec_load(struct vt_filter_spec *spec, const char *path, struct vt_filter_error *err);

/* The first rule matching the function name defined in file (NULL when not known: file
 * rules do not match then), or NULL. */
const struct vt_filter_rule *vt_filter_spec_match(const struct vt_filter_spec *spec,
						  const char *name, const char *file);

void vt_filter_spec_free(struct vt_filter_spec *spec);

#ifdef __cplusplus
}
#endif

#endif
