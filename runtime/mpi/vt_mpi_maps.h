/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI adapter's maps of communicators and requests by handle, with no MPI in them. */
/*
 * The MPI adapter's maps, with no MPI in them (so that they are unit-tested alone):
 * handle -> value in O(1) (communicators), and the requests in flight by handle, where one
 * handle may stand for several requests completed in the order they were made.
 * Not thread-safe: the adapter holds its lock around every call.
 */
#ifndef VT_MPI_MAPS_H
#define VT_MPI_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* uint64_t key -> non-NULL pointer; open addressing, linear probing, deletion by backward
 * shift (no tombstones, so a long run of creations and frees never slows look-ups). */
struct vt_u64map {
	struct vt_u64map_slot {
		uint64_t key;
		void *val; /* NULL: an empty slot */
	} * slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* The value of key, or NULL. */
void *vt_u64map_get(const struct vt_u64map *m, uint64_t key);
/* Sets key to val (not NULL); -1 when memory ran out (the map is unchanged then). */
int vt_u64map_set(struct vt_u64map *m, uint64_t key, void *val);
/* Removes key; returns its value, or NULL when it was not there. */
void *vt_u64map_del(struct vt_u64map *m, uint64_t key);
void vt_u64map_free(struct vt_u64map *m);

/* A request in flight. */
struct vt_req {
	uint64_t handle;   /* the MPI_Request's bits */
	uint64_t id;	   /* the OTF2 request id */
	uint64_t bytes;	   /* a message's; a collective's bytes sent */
	uint64_t received; /* a collective's; its peer is the root, its tag the operation */
	int kind, peer, tag;
	uint32_t comm;
	bool persistent, active;
	struct vt_req *next; /* the next younger of the same handle; the youngest: the oldest */
};

/* By handle: the youngest request of each handle, whose next is the oldest (a ring), so
 * that adding and taking the oldest are O(1) however often a handle repeats; and the
 * persistent requests by handle (also in the rings), so that finding one never walks a ring
 * (a handle MPI gives 1000 eager sends at once is a ring of 1000). */
struct vt_reqmap {
	struct vt_u64map youngest;
	struct vt_u64map persistent;
	struct vt_req *spare; /* removed requests, kept for the next */
	size_t n;
};

/* A new request of handle, the youngest of its handle (fields zero but handle and
 * persistent); NULL when memory ran out. */
struct vt_req *vt_reqmap_add(struct vt_reqmap *m, uint64_t handle, bool persistent);
/* The oldest request of handle, or NULL. */
struct vt_req *vt_reqmap_oldest(const struct vt_reqmap *m, uint64_t handle);
/* The persistent request of handle (the youngest, when MPI reused the handle of one that
 * vt did not see freed), or NULL; O(1). */
struct vt_req *vt_reqmap_persistent(const struct vt_reqmap *m, uint64_t handle);
/* A request of handle completed: its active persistent request, else its oldest, copied
 * to out; the persistent one made inactive, another forgotten. One probe of the map; false
 * when handle has no request. */
bool vt_reqmap_complete(struct vt_reqmap *m, uint64_t handle, struct vt_req *out);
/* Forgets r (from vt_reqmap_add of this map). */
void vt_reqmap_remove(struct vt_reqmap *m, struct vt_req *r);
void vt_reqmap_free(struct vt_reqmap *m);

#endif
