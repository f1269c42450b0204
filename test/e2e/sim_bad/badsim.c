/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Simulators that break the rules, one per -DBAD_...: an end below its start, a crash inside
 * a call or in create(), a wrong ABI version, create() failing; -DBAD_NOSYM exports no
 * vt_sim_plugin, -DBAD_UNDEF needs a symbol nothing defines (dlopen fails).
 */
#include <stddef.h>

#include <vt/vt_sim.h>

static void *create(const struct vt_sim_context *ctx)
{
#ifdef BAD_CREATE_CRASH
	*(volatile int *)NULL = 1;
#endif
#ifdef BAD_CREATE
	(void)ctx;
	return NULL;
#else
	return (void *)ctx;
#endif
}

#ifdef BAD_UNDEF
extern void vt_sim_test_no_such_function(void);
#endif

static void function_event(void *sim, struct vt_sim_event *ev)
{
	const struct vt_sim_context *ctx = sim;
	if (ev->func >= ctx->nfuncs)
		return;
	const char *name = ctx->func_names[ev->func];
	if (name[0] != 'w' || name[1] != 'o' || name[2] != 'r' || name[3] != 'k' || name[4])
		return;
#ifdef BAD_BELOW
	ev->end = ev->start - 1;
#endif
#ifdef BAD_CRASH
	*(volatile int *)NULL = 1;
#endif
#ifdef BAD_UNDEF
	vt_sim_test_no_such_function();
#endif
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
#ifdef BAD_VERSION
					    .abi_version = 99,
#else
					    .abi_version = VT_SIM_ABI_VERSION,
#endif
					    .create = create,
					    .process_function_event = function_event};

#ifndef BAD_NOSYM
const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
#else
const struct vt_sim_plugin *vt_sim_plugin_misspelt(void)
{
	return &plugin;
}
#endif
