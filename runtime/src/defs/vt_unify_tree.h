/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification's reduction tree: definitions compacted up a binomial tree, id maps down. */
/*
 * A binomial tree over the world ranks: rank r > 0 has the parent r - lowbit(r), its
 * children are r + 2^k for every 2^k < lowbit(r) (every k for rank 0), and its subtree is the
 * contiguous ranks [r, r + lowbit(r)). A node receives its children's parts in rank order,
 * compacts them with its own stream into one part and sends that to its parent: a region,
 * metric, interrupt generator or group whose content a lower rank of the part already gave
 * becomes a VT_DEF_SAME that names that earlier one. Rank 0 so holds the definitions every
 * rank shares once (plus what is each rank's own: process, locations, communicator
 * members...), and merges the concatenation it gets, in rank order, to exactly what
 * vt_unify_merge makes of the streams themselves: a left fold over the ranks. The id maps
 * travel back down the same tree. A group of one sends nothing.
 */
#ifndef VT_UNIFY_TREE_H
#define VT_UNIFY_TREE_H

#include "defs/vt_defs.h"
#include "defs/vt_mpi_ops.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Consecutive ranks' streams: their concatenation (data), each one's length (sizes[n]). */
struct vt_unify_part {
	const char *data;
	const size_t *sizes;
	uint32_t n;
};

/* The kinds whose repeats a compaction replaces (VT_DEF_SAME). */
bool vt_unify_tree_kind(enum vt_def_kind kind);

/* Compacts parts (consecutive ranks, in rank order) into out: the streams of every rank, in
 * order, their lengths in sizes (the sum of the parts' n entries, the caller's). 0, or -1
 * when a part did not decode or memory ran out. */
int vt_unify_compact(const struct vt_unify_part *parts, uint32_t n_parts, struct vt_defs_buf *out,
		     size_t *sizes);

/* What a node of the tree held and sent (for the benchmark and the run's figures). */
struct vt_unify_tree_stats {
	size_t received; /* bytes of its children's parts */
	size_t sent;	 /* bytes of its part, to its parent (0 at rank 0) */
	size_t peak;	 /* the children's parts and its compacted part, held at once */
	size_t largest;	 /* the largest stream of its subtree before compaction */
};

/* The gather through the tree, as vt_mpi_ops.gather: at rank 0 the concatenation of every
 * rank's (compacted) stream and each one's size in *sizes (malloc'd); NULL elsewhere, and at
 * rank 0 when a part was lost. st: NULL, or filled. Collective over every rank of ops. */
char *vt_unify_tree_gather(const struct vt_mpi_ops *ops, const void *mine, size_t n, size_t **sizes,
			   struct vt_unify_tree_stats *st);

/* The scatter through the tree, as vt_mpi_ops.scatter: rank 0 gives every rank its buffer,
 * each returns its own (malloc'd), its size in *n. */
void *vt_unify_tree_scatter(const struct vt_mpi_ops *ops, void *const *bufs, const size_t *sizes,
			    size_t *n);

/* The binomial tree's parent of rank (rank > 0), and the end of rank's subtree among size
 * ranks. */
int vt_unify_tree_parent(int rank);
int vt_unify_tree_end(int rank, int size);

#endif
