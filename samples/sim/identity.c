/* SPDX-License-Identifier: BSD-3-Clause */
/* identity: changes nothing; the output trace has the input's times. */
#include <vt/vt_sim.h>

static void *create(const struct vt_sim_context *ctx)
{
	return (void *)ctx;
}

static const struct vt_sim_plugin plugin = {
    .size = sizeof(plugin), .abi_version = VT_SIM_ABI_VERSION, .create = create};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
