/* SPDX-License-Identifier: BSD-3-Clause */
/* The runtime filter: the rules of VT_FILTER_SPEC (parsed by filter/vt_filter_spec.c). */
#include "filter/vt_filter.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_subsystem.h"
#include "filter/vt_filter_spec.h"

#include <string.h>

/* The rules in force: read once at init, read-only after. */
static struct vt_filter_spec spec;

int vt_filter_load(const char *path)
{
	struct vt_filter_error err;
	if (vt_filter_spec_load(&spec, path, &err) < 0) {
		if (!err.line && err.why[0])
			vt_error("VT_FILTER_SPEC='%s': %s; tracing is off", path, err.why);
		else if (!err.line)
			vt_error("VT_FILTER_SPEC='%s': cannot read the filter file (%s); tracing "
				 "is off",
				 path, strerror(err.sys_errno));
		else
			vt_error("%s:%d (VT_FILTER_SPEC): '%s': %s; tracing is off", path, err.line,
				 err.text, err.why);
		return -1;
	}
	vt_info("filter %s: %zu patterns", path, spec.n);
	return 0;
}

bool vt_filter_active(void)
{
	return spec.n > 0;
}

long vt_filter_limit(const char *name)
{
	/* The runtime knows names only: "file:" rules are for the compiler plugins. */
	const struct vt_filter_rule *r = vt_filter_spec_match(&spec, name, NULL);
	return r ? r->limit : -1;
}

void vt_filter_free(void)
{
	vt_filter_spec_free(&spec);
}

static int filter_init(void)
{
	return vt_cfg.filter_spec ? vt_filter_load(vt_cfg.filter_spec) : 0;
}

const struct vt_subsystem vt_filter_subsystem = {
    .name = "filter",
    .init = filter_init,
    .release = vt_filter_free,
};
