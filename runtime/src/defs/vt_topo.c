/* SPDX-License-Identifier: BSD-3-Clause */
/* The hosts of an MPI run, gathered once at MPI_Init (see vt_topo.h). */
#include "defs/vt_topo.h"
#include "defs/vt_mpi_ops.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	struct vt_topo topo;
	bool have;
} tp;

const struct vt_topo *vt_topo(void)
{
	return tp.have ? &tp.topo : NULL;
}

const struct vt_topo *vt_topo_gather(const struct vt_mpi_ops *ops)
{
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	/* Rank 0 gathers the names and sends the concatenation to all: two collectives. */
	size_t *sizes = NULL;
	char *all = ops->gather(host, strlen(host) + 1, &sizes);
	uint64_t n = 0;
	if (ops->rank == 0 && all && sizes)
		for (int r = 0; r < ops->size; r++)
			n += sizes[r];
	ops->bcast(&n, sizeof(n), 0);
	if (ops->rank != 0) {
		free(all);
		all = n ? malloc(n) : NULL;
	}
	/* In pieces, so that a rank without the memory still takes part with the same counts
	 * (into a scratch piece), and the others are not left waiting. */
	static char scratch[65536];
	for (uint64_t at = 0; at < n; at += sizeof(scratch)) {
		size_t k = n - at < sizeof(scratch) ? (size_t)(n - at) : sizeof(scratch);
		ops->bcast(all ? all + at : scratch, k, 0);
	}
	free(sizes);
	if (!all || !n)
		return NULL;

	tp.topo.rank = ops->rank;
	tp.topo.size = ops->size;
	tp.topo.hosts = calloc((size_t)ops->size, sizeof(*tp.topo.hosts));
	tp.topo.host_of = calloc((size_t)ops->size, sizeof(*tp.topo.host_of));
	if (!tp.topo.hosts || !tp.topo.host_of)
		return NULL;
	const char *q = all, *end = all + n;
	for (int r = 0; r < ops->size; r++) {
		const char *name = q < end ? q : "";
		q += q < end ? strlen(q) + 1 : 0;
		uint32_t h = 0;
		while (h < tp.topo.n_hosts && strcmp(tp.topo.hosts[h], name) != 0)
			h++;
		if (h == tp.topo.n_hosts)
			tp.topo.hosts[tp.topo.n_hosts++] = name;
		tp.topo.host_of[r] = h;
	}
	/* The lowest rank of each host is the one that introduced its name. */
	tp.topo.host_first = false;
	for (int r = 0; r <= ops->rank; r++)
		if (tp.topo.host_of[r] == tp.topo.host_of[ops->rank]) {
			tp.topo.host_first = r == ops->rank;
			break;
		}
	tp.have = true;
	return &tp.topo;
}
