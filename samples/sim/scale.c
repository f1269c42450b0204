/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scale: regions whose name matches a shell pattern run f times as long, by their own
 * (exclusive) time: factor=0.5 makes them twice as fast. Parameters: pattern=GLOB
 * (required), factor=F (default 0.5, F >= 0).
 */
#include <fnmatch.h>
#include <stdlib.h>

#include <vt/vt_sim.h>

struct scale {
	const struct vt_sim_context *ctx;
	const char *pattern;
	double factor;
	unsigned char *match; /* per region: 0 unknown, 1 no, 2 yes */
};

static void *create(const struct vt_sim_context *ctx)
{
	const char *p = vt_sim_param(ctx, "pattern"), *f = vt_sim_param(ctx, "factor");
	struct scale *s = calloc(1, sizeof(*s));
	if (!s || !p || !*p)
		goto fail;
	s->ctx = ctx;
	s->pattern = p;
	s->factor = 0.5;
	if (f) {
		char *end;
		s->factor = strtod(f, &end);
		if (!*f || *end || s->factor < 0)
			goto fail;
	}
	s->match = calloc(ctx->nfuncs ? ctx->nfuncs : 1, 1);
	if (!s->match)
		goto fail;
	return s;
fail:
	free(s);
	return NULL; /* vt-sim names the parameters */
}

static void destroy(void *sim)
{
	struct scale *s = sim;
	free(s->match);
	free(s);
}

static void scale(void *sim, struct vt_sim_event *ev)
{
	struct scale *s = sim;
	if (ev->func >= s->ctx->nfuncs)
		return;
	if (!s->match[ev->func])
		s->match[ev->func] =
		    fnmatch(s->pattern, s->ctx->func_names[ev->func], 0) == 0 ? 2 : 1;
	if (s->match[ev->func] != 2)
		return;
	/* end - exclusive + f * exclusive, rounded to the nearest tick */
	uint64_t keep = (uint64_t)((double)ev->exclusive * s->factor + 0.5);
	ev->end = ev->end - ev->exclusive + keep;
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
					    .abi_version = VT_SIM_ABI_VERSION,
					    .create = create,
					    .process_function_event = scale,
					    .process_mpi_function_event = scale,
					    .destroy = destroy};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
