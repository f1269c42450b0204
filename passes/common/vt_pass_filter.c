/* SPDX-License-Identifier: BSD-3-Clause */
/* The compile-time filter: the shared filter files (vt_filter_spec.c), with source files known. */
#include "vt_pass_filter.h"
#include "filter/vt_filter_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules, as the shared parser read them. */
struct vt_pass_filter {
	struct vt_filter_spec spec;
};

struct vt_pass_filter *vt_pass_filter_load(const char *path, char *err, size_t errlen)
{
	struct vt_pass_filter *f = calloc(1, sizeof(*f));
	struct vt_filter_error e;
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the filter file (%s)", path,
			 strerror(ENOMEM));
		return NULL;
	}
	if (vt_filter_spec_load(&f->spec, path, &e) < 0) {
		if (!e.line && e.why[0])
			snprintf(err, errlen, "%s: %s", path, e.why);
		else if (!e.line)
			snprintf(err, errlen, "%s: cannot read the filter file (%s)", path,
				 strerror(e.sys_errno));
		else
			snprintf(err, errlen, "%s:%d: '%s': %s", path, e.line, e.text, e.why);
		free(f);
		return NULL;
	}
	return f;
}

long vt_pass_filter_limit(const struct vt_pass_filter *f, const char *name, const char *file,
			  int *line)
{
	const struct vt_filter_rule *r = f ? vt_filter_spec_match(&f->spec, name, file) : NULL;
	if (line)
		*line = r ? r->line : 0;
	return r ? r->limit : -1;
}

size_t vt_pass_filter_size(const struct vt_pass_filter *f)
{
	return f ? f->spec.n : 0;
}

void vt_pass_filter_free(struct vt_pass_filter *f)
{
	if (!f)
		return;
	vt_filter_spec_free(&f->spec);
	free(f);
}
