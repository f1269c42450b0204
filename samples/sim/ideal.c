/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ideal: an ideal network. A message takes no time: a receive ends as soon as both it and
 * its send have started; a collective completes when its last member enters.
 */
#include <vt/vt_sim.h>

static void *create(const struct vt_sim_context *ctx)
{
	return (void *)ctx;
}

static uint64_t max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void p2p(void *sim, struct vt_sim_p2p *m)
{
	(void)sim;
	if (!m->backwards) /* a send after its receive: skewed clocks, left as recorded */
		m->recv_end = max(m->recv_start, m->send_start);
}

static void waitallsome(void *sim, struct vt_sim_p2p *const *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p2p(sim, m[i]);
}

static void coll(void *sim, struct vt_sim_coll *c)
{
	(void)sim;
	uint64_t last = 0;
	for (uint32_t i = 0; i < c->n; i++)
		last = max(last, c->members[i].start);
	for (uint32_t i = 0; i < c->n; i++)
		c->members[i].end = last;
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
					    .abi_version = VT_SIM_ABI_VERSION,
					    .create = create,
					    .process_coll_op = coll,
					    .process_p2p = p2p,
					    .process_p2p_waitallsome = waitallsome};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
