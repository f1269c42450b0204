/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nonoise: the non-tracing periods removed: a thread's events start at the trace's start,
 * and time with recording switched off takes none.
 */
#include <vt/vt_sim.h>

static void *create(const struct vt_sim_context *ctx)
{
	return (void *)ctx;
}

static void nontracing(void *sim, struct vt_sim_event *ev)
{
	(void)sim;
	ev->end = ev->start;
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
					    .abi_version = VT_SIM_ABI_VERSION,
					    .create = create,
					    .process_nontracing_event = nontracing};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
