/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mysim: a what-if simulator for vt-sim to start from. As it stands it asks "what if every
 * message arrived after a fixed delay?": a receive ends delay=SECONDS (default 1e-6) after
 * its send started, or at its own start if that is later; everything else runs as recorded.
 * Build: see README.md. Run: vt-sim IN.otf2 -s ./libvt-sim-mysim.so:delay=5e-6 -o OUT.otf2
 */
#include <stdlib.h>

#include <vt/vt_sim.h>

struct mysim {
	uint64_t delay; /* in ticks of the trace clock */
};

/* Parameters are checked here: returning NULL stops vt-sim with a message naming them. */
static void *create(const struct vt_sim_context *ctx)
{
	double seconds = 1e-6;
	const char *v = vt_sim_param(ctx, "delay");
	if (v) {
		char *end;
		seconds = strtod(v, &end);
		if (!*v || *end || seconds < 0)
			return NULL;
	}
	struct mysim *s = calloc(1, sizeof(*s));
	if (s && ctx->clock_resolution > 0)
		s->delay = (uint64_t)(seconds / ctx->clock_resolution + 0.5);
	return s;
}

static void destroy(void *sim)
{
	free(sim);
}

/* Blocking and synchronous receives, sendrecv: one message each. */
static void p2p(void *sim, struct vt_sim_p2p *m)
{
	const struct mysim *s = sim;
	uint64_t arrive = m->send_start + s->delay;
	m->recv_end = arrive > m->recv_start ? arrive : m->recv_start;
}

/* The messages one MPI_Waitall/Waitsome/Wait completes. */
static void waitallsome(void *sim, struct vt_sim_p2p *const *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p2p(sim, m[i]);
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
					    .abi_version = VT_SIM_ABI_VERSION,
					    .create = create,
					    .process_p2p = p2p,
					    .process_p2p_waitallsome = waitallsome,
					    .destroy = destroy};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
