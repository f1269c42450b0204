/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification's tree: compacted parts merged equal the left fold over the ranks. */
#include "defs/vt_defs.h"
#include "defs/vt_unify.h"
#include "defs/vt_unify_tree.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static uint64_t seed = 88172645463325252ull;

static uint64_t next(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void put(struct vt_defs_buf *b, enum vt_def_kind k, union vt_def d)
{
	vt_defs_put(b, k, &d);
}

/* Names live as long as the test: a pool of them. */
static char names[64][32];

/*
 * Rank r of p: shared regions in an order of its own (local ids differ), one of its own, a
 * repeat within its stream, metrics (one shared, one of every third rank), groups, an
 * interrupt generator, its location, MPI_COMM_WORLD and a split communicator.
 */
static void rank_stream(struct vt_defs_buf *b, uint32_t r, uint32_t p)
{
	put(b, VT_DEF_PROCESS,
	    (union vt_def){.process = {r, 1000 + r, r % 3 ? "node-b" : "node-a", 1000000000, 7,
				       100 + r, 900 + r, 0}});
	put(b, VT_DEF_LOCATION, (union vt_def){.location = {r, "Master thread", 10 + r}});
	uint32_t id = 0, n_shared = 8 + (uint32_t)(next() % 8);
	for (uint32_t i = 0; i < n_shared; i++) {
		uint32_t k = (i + r) % n_shared; /* each rank meets them in another order */
		put(b, VT_DEF_REGION,
		    (union vt_def){.region = {id++, names[k], "app.c", 10 * k, 3, 1}});
	}
	char *own = names[32 + r % 32];
	put(b, VT_DEF_REGION, (union vt_def){.region = {id++, own, "", 0, 1, 1}});
	put(b, VT_DEF_REGION, (union vt_def){.region = {id++, names[0], "app.c", 0, 3, 1}});
	put(b, VT_DEF_METRIC,
	    (union vt_def){.metric = {0, "PAPI_TOT_INS", "#", "", 0, 4, 0, 0, 1, 0}});
	if (r % 3 == 0)
		put(b, VT_DEF_METRIC,
		    (union vt_def){.metric = {1, names[r % 5], "B", "", 0, 4, 0, 0, 1, 0}});
	put(b, VT_DEF_INSTANCE,
	    (union vt_def){.instance = {2, 0, 1000 + r, "c@Master thread", 3, 0, r}});
	put(b, VT_DEF_GROUP, (union vt_def){.group = {0, "0,1"}});
	put(b, VT_DEF_GROUP, (union vt_def){.group = {1, r % 2 ? "1,3" : "0,2"}});
	put(b, VT_DEF_IGEN, (union vt_def){.igen = {0, "cpu", 1, 1000000}});
	put(b, VT_DEF_COMM, (union vt_def){.comm = {0, 1, r, p, "MPI_COMM_WORLD"}});
	put(b, VT_DEF_COMM,
	    (union vt_def){.comm = {1, 100 + r % 2, r / 2, (p + 1 - r % 2) / 2, r ? "" : "half"}});
}

/* The compacted part of rank r's subtree (data, sizes), made bottom-up as the tree does. */
static int subtree(const char *const *streams, const size_t *lens, int r, int p,
		   struct vt_defs_buf *out, size_t *sizes, uint32_t *n_ranks)
{
	int end = vt_unify_tree_end(r, p);
	struct vt_unify_part parts[40];
	struct vt_defs_buf kids[40];
	size_t *kid_sizes[40];
	uint32_t n = 1;
	parts[0] = (struct vt_unify_part){streams[r], &lens[r], 1};
	int rc = 0;
	for (int c = r + 1; c < end; c = vt_unify_tree_end(c, p), n++) {
		kids[n] = (struct vt_defs_buf){0};
		kid_sizes[n] = calloc((size_t)(vt_unify_tree_end(c, p) - c), sizeof(size_t));
		uint32_t k = 0;
		rc |= subtree(streams, lens, c, p, &kids[n], kid_sizes[n], &k);
		parts[n] = (struct vt_unify_part){kids[n].p, kid_sizes[n], k};
	}
	rc |= vt_unify_compact(parts, n, out, sizes);
	for (uint32_t i = 1; i < n; i++) {
		free(kids[i].p);
		free(kid_sizes[i]);
	}
	*n_ranks = (uint32_t)(end - r);
	return rc;
}

/* The definitions VT_DEF_SAME records stand for; *records: how many records they are. */
static int count_same(const char *p, size_t n, int *records)
{
	struct vt_defs_reader r = {p, p + n, false};
	enum vt_def_kind k;
	union vt_def d;
	int same = 0, recs = 0;
	while (vt_defs_next(&r, &k, &d) > 0)
		if (k == VT_DEF_SAME) {
			same += (int)d.same.count;
			recs++;
		}
	if (records)
		*records = recs;
	return same;
}

#define S(a, b) (strcmp((a), (b)) == 0)

/* Everything the global definitions and the maps are made of, equal. */
static bool unified_equal(const struct vt_unified *a, const struct vt_unified *b)
{
	bool eq = a->size == b->size && a->n_regions == b->n_regions &&
		  a->n_metrics == b->n_metrics && a->n_groups == b->n_groups &&
		  a->n_igens == b->n_igens && a->n_comms == b->n_comms && a->n_locs == b->n_locs &&
		  a->n_insts == b->n_insts && a->n_hosts == b->n_hosts && a->first == b->first &&
		  a->last == b->last;
	for (uint32_t i = 0; eq && i < a->n_regions; i++)
		eq = S(a->regions[i].name, b->regions[i].name) &&
		     S(a->regions[i].file, b->regions[i].file) &&
		     a->regions[i].line == b->regions[i].line &&
		     a->regions[i].paradigm == b->regions[i].paradigm;
	for (uint32_t i = 0; eq && i < a->n_metrics; i++)
		eq = S(a->metrics[i].name, b->metrics[i].name) &&
		     S(a->metrics[i].unit, b->metrics[i].unit);
	for (uint32_t i = 0; eq && i < a->n_groups; i++)
		eq = S(a->groups[i], b->groups[i]);
	for (uint32_t i = 0; eq && i < a->n_igens; i++)
		eq = S(a->igens[i].name, b->igens[i].name);
	for (uint32_t i = 0; eq && i < a->n_comms; i++) {
		eq = a->comms[i].key == b->comms[i].key && a->comms[i].size == b->comms[i].size &&
		     (a->comms[i].name == b->comms[i].name ||
		      (a->comms[i].name && b->comms[i].name &&
		       S(a->comms[i].name, b->comms[i].name)));
		for (uint32_t m = 0; eq && m < a->comms[i].size; m++)
			eq = a->comms[i].members[m] == b->comms[i].members[m];
	}
	for (size_t i = 0; eq && i < a->n_locs; i++)
		eq = a->locs[i].ref == b->locs[i].ref && a->locs[i].rank == b->locs[i].rank;
	for (uint32_t i = 0; eq && i < a->n_insts; i++)
		eq = a->insts[i].metric == b->insts[i].metric &&
		     a->insts[i].rank == b->insts[i].rank;
	for (uint32_t r = 0; eq && r < a->size; r++)
		eq = a->maps[r].n == b->maps[r].n &&
		     memcmp(a->maps[r].p, b->maps[r].p, a->maps[r].n) == 0;
	return eq;
}

/* p ranks: the tree's merge equals the left fold's, and the compaction took repeats out. */
static void tree_equals_fold(int p)
{
	struct vt_defs_buf *bufs = calloc((size_t)p, sizeof(*bufs)), all = {0};
	const char **streams = calloc((size_t)p, sizeof(*streams));
	size_t *lens = calloc((size_t)p, sizeof(*lens));
	for (int r = 0; r < p; r++) {
		rank_stream(&bufs[r], (uint32_t)r, (uint32_t)p);
		streams[r] = bufs[r].p;
		lens[r] = bufs[r].n;
	}
	for (int r = 0; r < p; r++) {
		size_t at = all.n;
		all.n += lens[r];
		all.p = realloc(all.p, all.n);
		memcpy(all.p + at, streams[r], lens[r]);
	}
	struct vt_unified fold = {0}, tree = {0};
	CHECK(vt_unify_merge(&fold, all.p, lens, (uint32_t)p, true) == 0);

	struct vt_defs_buf root = {0};
	size_t *sizes = calloc((size_t)p, sizeof(*sizes));
	uint32_t n = 0;
	CHECK(subtree(streams, lens, 0, p, &root, sizes, &n) == 0);
	CHECK(n == (uint32_t)p);
	size_t total = 0;
	for (int r = 0; r < p; r++)
		total += sizes[r];
	CHECK(total == root.n);
	/* Rank 0's stream loses only its own repeat; every later rank's shared definitions
	 * are repeats. */
	CHECK(sizes[0] < lens[0] && count_same(root.p, sizes[0], NULL) == 1);
	if (p > 1) {
		/* a rank meets the shared regions in a rotation of one order: runs of
		 * consecutive ids and ordinals, a record per run, not per definition */
		int records = 0, defs = count_same(root.p, root.n, &records);
		CHECK(root.n < all.n);
		CHECK(defs >= 12 * (p - 1));
		CHECK(p < 8 || records < defs / 2);
		if (p >= 8 && records >= defs / 2)
			fprintf(stderr, "p=%d: %d repeats in %d records\n", p, defs, records);
	}
	CHECK(vt_unify_merge(&tree, root.p, sizes, (uint32_t)p, true) == 0);
	bool eq = unified_equal(&fold, &tree);
	CHECK(eq);
	if (!eq)
		fprintf(stderr, "p=%d: the tree's unification differs from the left fold\n", p);
	vt_unify_free(&fold);
	vt_unify_free(&tree);
	free(root.p);
	free(sizes);
	free(all.p);
	for (int r = 0; r < p; r++)
		free(bufs[r].p);
	free(bufs);
	free(streams);
	free(lens);
}

/* A repeat that names no earlier record: compaction and the merge refuse it. */
static void damaged(void)
{
	struct vt_defs_buf b = {0}, out = {0};
	put(&b, VT_DEF_PROCESS, (union vt_def){.process = {0, 1, "h", 1000000000, 0, 0, 0, 0}});
	put(&b, VT_DEF_SAME, (union vt_def){.same = {VT_DEF_REGION, 0, 5, 1}});
	size_t n = b.n, size = 0;
	struct vt_unify_part part = {b.p, &n, 1};
	CHECK(vt_unify_compact(&part, 1, &out, &size) == -1);
	struct vt_unified u = {0};
	CHECK(vt_unify_merge(&u, b.p, &n, 1, true) == -1);
	vt_unify_free(&u);
	free(out.p);
	free(b.p);
}

static void tree_shape(void)
{
	/* 13 ranks: 0 has 1, 2, 4, 8; 4 has 5, 6; 8 has 9, 10, 12; 12 ends the run. */
	CHECK(vt_unify_tree_end(0, 13) == 13);
	CHECK(vt_unify_tree_end(4, 13) == 8);
	CHECK(vt_unify_tree_end(8, 13) == 13);
	CHECK(vt_unify_tree_end(12, 13) == 13);
	CHECK(vt_unify_tree_end(7, 13) == 8);
	CHECK(vt_unify_tree_parent(6) == 4);
	CHECK(vt_unify_tree_parent(12) == 8);
	CHECK(vt_unify_tree_parent(1) == 0);
}

int main(void)
{
	for (int i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "%s_%d", i < 32 ? "shared" : "own", i);
	tree_shape();
	int ps[] = {1, 2, 3, 5, 8, 13, 32, 37, 64, 100};
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		tree_equals_fold(ps[i]);
	damaged();
	return unit_done();
}
