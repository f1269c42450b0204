/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latbw: a network of latency L (seconds) and bandwidth B (bytes per second). A message
 * arrives L + size/B after its send started: the receive ends then, or at its own start if
 * later. A collective takes ceil(log2(n)) such steps of the largest member's bytes after its
 * last member entered (a binomial tree). Parameters: L=seconds (default 1e-6),
 * B=bytes/s (default 1e10).
 */
#include <stdlib.h>

#include <vt/vt_sim.h>

struct latbw {
	double ticks; /* per second */
	double lat, bw;
};

static int num(const struct vt_sim_context *ctx, const char *key, double def, double *out)
{
	const char *v = vt_sim_param(ctx, key);
	if (!v) {
		*out = def;
		return 0;
	}
	char *end;
	*out = strtod(v, &end);
	return *v && !*end && *out >= 0 ? 0 : -1;
}

static void *create(const struct vt_sim_context *ctx)
{
	struct latbw *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ticks = ctx->clock_resolution > 0 ? 1.0 / ctx->clock_resolution : 1e9;
	if (num(ctx, "L", 1e-6, &s->lat) < 0 || num(ctx, "B", 1e10, &s->bw) < 0 || s->bw <= 0) {
		free(s);
		return NULL; /* vt-sim names the parameters */
	}
	return s;
}

static void destroy(void *sim)
{
	free(sim);
}

/* The transfer time of n bytes in ticks, rounded to the nearest tick. */
static uint64_t transfer(const struct latbw *s, uint64_t bytes)
{
	return (uint64_t)((s->lat + (double)bytes / s->bw) * s->ticks + 0.5);
}

static void p2p(void *sim, struct vt_sim_p2p *m)
{
	if (m->backwards) /* a send after its receive: skewed clocks, left as recorded */
		return;
	uint64_t arrive = m->send_start + transfer(sim, m->bytes);
	m->recv_end = arrive > m->recv_start ? arrive : m->recv_start;
}

static void waitallsome(void *sim, struct vt_sim_p2p *const *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p2p(sim, m[i]);
}

static void coll(void *sim, struct vt_sim_coll *c)
{
	uint64_t last = 0, bytes = 0;
	unsigned steps = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		const struct vt_sim_event *e = &c->members[i];
		last = e->start > last ? e->start : last;
		bytes = e->sent > bytes ? e->sent : bytes;
		bytes = e->received > bytes ? e->received : bytes;
	}
	while ((1u << steps) < c->n)
		steps++;
	uint64_t end = last + steps * transfer(sim, bytes);
	for (uint32_t i = 0; i < c->n; i++)
		c->members[i].end = end;
}

static const struct vt_sim_plugin plugin = {.size = sizeof(plugin),
					    .abi_version = VT_SIM_ABI_VERSION,
					    .create = create,
					    .process_coll_op = coll,
					    .process_p2p = p2p,
					    .process_p2p_waitallsome = waitallsome,
					    .destroy = destroy};

const struct vt_sim_plugin *vt_sim_plugin(void)
{
	return &plugin;
}
