/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification code alone on simulated ranks: the gather against the reduction tree. */
/*
 * Usage: unify-bench P [REGIONS]. Each simulated rank defines what an MPI rank of a typical
 * program does: its process and master thread, REGIONS (default 200) regions every rank
 * has (met in an order of its own), 3 of its own, a PAPI metric, MPI_COMM_WORLD, a split
 * communicator and its own MPI_COMM_SELF. One line of key=value pairs:
 *   gather_root_bytes  bytes rank 0 receives and holds (every stream)
 *   gather_merge_s     rank 0's vt_unify_merge of them (CPU seconds)
 *   tree_root_bytes    bytes rank 0 receives from its children plus its own stream
 *   tree_peak          the most bytes a node of the tree holds at once (its children's
 *                      parts and its compacted part)
 *   tree_total_bytes   bytes sent over every edge of the tree
 *   tree_path_s        the longest chain of compactions from a leaf to rank 0 plus rank 0's
 *                      merge (CPU seconds): the tree's time with one core per rank
 *   tree_cpu_s         every node's compaction, summed (CPU seconds)
 *   maps_bytes         the id maps rank 0 makes for every rank and sends back (both ways)
 *   same               1 when the tree's unification equals the gather's (regions, maps)
 * No MPI: the nodes' parts are made one after the other in this process.
 */
#include "defs/vt_defs.h"
#include "defs/vt_unify.h"
#include "defs/vt_unify_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int regions = 200;
static char (*names)[48];

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put(struct vt_defs_buf *b, enum vt_def_kind k, union vt_def d)
{
	vt_defs_put(b, k, &d);
}

static void rank_stream(struct vt_defs_buf *b, uint32_t r, uint32_t p)
{
	char own[3][48];
	put(b, VT_DEF_PROCESS,
	    (union vt_def){
		.process = {r, 4000 + r, "node-0042.cluster", 1000000000, 7, 100, 900, 0}});
	put(b, VT_DEF_LOCATION, (union vt_def){.location = {r, "Master thread", 1000}});
	uint32_t id = 0, n = (uint32_t)regions;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (i + r) % n;
		put(b, VT_DEF_REGION,
		    (union vt_def){
			.region = {id++, names[k], "/home/user/app/src/solver.c", 10 * k, 3, 1}});
	}
	for (int i = 0; i < 3; i++) {
		snprintf(own[i], sizeof(own[i]), "rank_%u_phase_%d", r, i);
		put(b, VT_DEF_REGION, (union vt_def){.region = {id++, own[i], "", 0, 1, 1}});
	}
	put(b, VT_DEF_METRIC,
	    (union vt_def){
		.metric = {0, "PAPI_TOT_INS", "#", "Instructions completed", 0, 4, 0, 0, 1, 0}});
	put(b, VT_DEF_COMM, (union vt_def){.comm = {0, 1, r, p, "MPI_COMM_WORLD"}});
	put(b, VT_DEF_COMM,
	    (union vt_def){.comm = {1, 100 + r % 2, r / 2, (p + 1 - r % 2) / 2, ""}});
	put(b, VT_DEF_COMM, (union vt_def){.comm = {2, ((uint64_t)r << 32) | 2, 0, 1, ""}});
}

struct node_result {
	double finish; /* CPU seconds from the leaves' start until its part is made */
};

struct totals {
	size_t total_bytes, peak, root_bytes;
	double cpu;
};

/* The part of rank r's subtree, made as the tree makes it; *finish: its chain's time. */
static int subtree(const char *const *streams, const size_t *lens, int r, int p,
		   struct vt_defs_buf *out, size_t *sizes, double *finish, struct totals *tt)
{
	int end = vt_unify_tree_end(r, p);
	struct vt_unify_part parts[40];
	struct vt_defs_buf kids[40];
	size_t *kid_sizes[40], held = 0;
	uint32_t n = 1;
	double slowest = 0;
	int rc = 0;
	parts[0] = (struct vt_unify_part){streams[r], &lens[r], 1};
	for (int c = r + 1; c < end; c = vt_unify_tree_end(c, p), n++) {
		int k = vt_unify_tree_end(c, p) - c;
		double f = 0;
		kids[n] = (struct vt_defs_buf){0};
		kid_sizes[n] = calloc((size_t)k, sizeof(size_t));
		rc |= subtree(streams, lens, c, p, &kids[n], kid_sizes[n], &f, tt);
		parts[n] = (struct vt_unify_part){kids[n].p, kid_sizes[n], (uint32_t)k};
		/* on the wire: two 32-bit words and a size per rank, then the streams */
		size_t msg = 8 + 8 * (size_t)k + kids[n].n;
		held += msg;
		tt->total_bytes += msg;
		slowest = f > slowest ? f : slowest;
	}
	if (r == 0)
		tt->root_bytes = held + lens[0];
	double t0 = cpu_now();
	rc |= vt_unify_compact(parts, n, out, sizes);
	double dt = cpu_now() - t0;
	tt->cpu += dt;
	if (held + out->cap > tt->peak)
		tt->peak = held + out->cap;
	*finish = slowest + dt;
	for (uint32_t i = 1; i < n; i++) {
		free(kids[i].p);
		free(kid_sizes[i]);
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: unify-bench P [REGIONS]: P simulated ranks, at least 1\n");
		return 2;
	}
	int p = atoi(argv[1]);
	if (argc > 2 && (regions = atoi(argv[2])) < 1) {
		fprintf(stderr, "unify-bench: REGIONS must be at least 1, not '%s'\n", argv[2]);
		return 2;
	}
	names = calloc((size_t)regions, sizeof(*names));
	for (int i = 0; i < regions; i++)
		snprintf(names[i], sizeof(names[i]), "solver_kernel_%d", i);
	/* Every rank's stream, concatenated: what the gather holds at rank 0. */
	struct vt_defs_buf all = {0};
	size_t *lens = calloc((size_t)p, sizeof(*lens));
	const char **streams = calloc((size_t)p, sizeof(*streams));
	size_t *off = calloc((size_t)p, sizeof(*off));
	for (int r = 0; r < p; r++) {
		off[r] = all.n;
		rank_stream(&all, (uint32_t)r, (uint32_t)p);
		lens[r] = all.n - off[r];
	}
	if (all.failed) {
		fprintf(stderr, "unify-bench: out of memory for %d ranks\n", p);
		return 1;
	}
	for (int r = 0; r < p; r++)
		streams[r] = all.p + off[r];

	struct vt_unified g = {0}, t = {0};
	double t0 = cpu_now();
	int rc = vt_unify_merge(&g, all.p, lens, (uint32_t)p, true);
	double gather_s = cpu_now() - t0;

	struct totals tt = {0};
	struct vt_defs_buf root = {0};
	size_t *sizes = calloc((size_t)p, sizeof(*sizes));
	double chain = 0;
	rc |= subtree(streams, lens, 0, p, &root, sizes, &chain, &tt);
	t0 = cpu_now();
	rc |= vt_unify_merge(&t, root.p, sizes, (uint32_t)p, true);
	double root_merge_s = cpu_now() - t0;

	int same =
	    rc == 0 && g.n_regions == t.n_regions && g.n_comms == t.n_comms && g.n_locs == t.n_locs;
	for (uint32_t i = 0; same && i < g.n_regions; i++)
		same = strcmp(g.regions[i].name, t.regions[i].name) == 0;
	for (int r = 0; same && r < p; r++)
		same = g.maps[r].n == t.maps[r].n &&
		       memcmp(g.maps[r].p, t.maps[r].p, g.maps[r].n) == 0;
	size_t maps = 0;
	for (int r = 0; r < p; r++)
		maps += t.maps[r].n;
	printf("ranks=%d regions=%d gather_root_bytes=%zu gather_merge_s=%.4f "
	       "tree_root_bytes=%zu tree_peak=%zu tree_total_bytes=%zu tree_path_s=%.4f "
	       "tree_cpu_s=%.4f tree_root_merge_s=%.4f maps_bytes=%zu same=%d\n",
	       p, regions, all.n, gather_s, tt.root_bytes, tt.peak, tt.total_bytes,
	       chain + root_merge_s, tt.cpu, root_merge_s, maps, same);
	vt_unify_free(&g);
	vt_unify_free(&t);
	free(root.p);
	free(sizes);
	free(all.p);
	free(lens);
	free(off);
	free(streams);
	free(names);
	return same ? 0 : 1;
}
