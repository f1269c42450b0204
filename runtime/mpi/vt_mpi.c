/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI adapter: init and finalize, communicators, requests, and the wrappers that need
 * more than a hook (receives and request completion). */
#define OTF2_MPI_USE_PMPI /* vt's own communication never shows in the trace */
#include "vt_mpi_hooks.h"

#include "vt_mpi_maps.h"

#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* libvt looks for this symbol to know that it runs in MPI mode. */
VTW_EXPORT const int vt_mpi_adapter = 1;

int vtw_mpitrace = 1;
static int world_rank, world_size;

/* -- communicators ------------------------------------------------------------------- */

/*
 * MPI_Comm handle -> local id + 1 (a map value is never NULL). Handles are pointers (Open
 * MPI) or ints (MPICH): keyed by their bits. Written under the lock, by the thread that
 * creates or frees a communicator.
 */
static struct vt_u64map comm_map;
static uint32_t comm_counter = 16; /* creator's part of new keys; low values are reserved */
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
/* Each thread's last look-up and when the map changed last (vt_mpi_hooks.h). */
uint32_t vtw_comm_generation;
__thread struct vtw_comm_last vtw_comm_last = {0, 0, UINT32_MAX};

/* The local id of handle h, or UINT32_MAX; caller holds comm_lock. */
static uint32_t comm_find(uint64_t h)
{
	uintptr_t v = (uintptr_t)vt_u64map_get(&comm_map, h);
	return v ? (uint32_t)(v - 1) : UINT32_MAX;
}

/* "FN of NAME" (sep "of") or "FN on NAME": what a communicator or window made by function fn
 * over communicator id is called until the program names it; "?" where id has no name. */
static void derived_name(char *buf, size_t len, const char *fn, const char *sep, uint32_t id)
{
	char parent[VT_COMM_NAME_MAX];
	if (!vt_mpi_comm_name_get(id, parent, sizeof(parent)))
		strcpy(parent, "?");
	snprintf(buf, len, "%s %s %s", fn, sep, parent);
}

static void comm_add(MPI_Comm c, uint64_t key, const char *name)
{
	int rank = 0, size = 1;
	PMPI_Comm_rank(c, &rank);
	PMPI_Comm_size(c, &size);
	uint32_t id = vt_mpi_comm_define(key, (uint32_t)rank, (uint32_t)size);
	if (name)
		vt_mpi_comm_name(id, name);
	pthread_mutex_lock(&comm_lock);
	/* Out of memory, the handle stays unknown and is recorded as MPI_COMM_WORLD (id 0). */
	vt_u64map_set(&comm_map, VTW_BITS(c), (void *)((uintptr_t)id + 1));
	__atomic_add_fetch(&vtw_comm_generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comm_lock);
}

/* Not the thread's last look-up (vtw_comm, vt_mpi_hooks.h): the map, under its lock. */
uint32_t vtw_comm_lookup(MPI_Comm c)
{
	uint64_t h = VTW_BITS(c);
	pthread_mutex_lock(&comm_lock);
	uint32_t id = comm_find(h);
	uint32_t gen = vtw_comm_generation;
	pthread_mutex_unlock(&comm_lock);
	if (id != UINT32_MAX) {
		vtw_comm_last.handle = h;
		vtw_comm_last.id = id;
		vtw_comm_last.generation = gen;
		return id;
	}
	/* Made by a function vt does not wrap: known to this rank only (not unified). */
	uint64_t key = ((uint64_t)world_rank << 32) | 0x80000000u |
		       __atomic_fetch_add(&comm_counter, 1, __ATOMIC_RELAXED);
	comm_add(c, key, NULL);
	pthread_mutex_lock(&comm_lock);
	id = comm_find(VTW_BITS(c));
	pthread_mutex_unlock(&comm_lock);
	return id == UINT32_MAX ? 0 : id;
}

int vtw_comm_rank(MPI_Comm c)
{
	int r = 0;
	PMPI_Comm_rank(c, &r);
	return r;
}

int vtw_comm_size(MPI_Comm c)
{
	int n = 1;
	PMPI_Comm_size(c, &n);
	return n;
}

/* Collective over the new communicator: its rank 0 makes the key, the others learn it, so
 * every member names the same communicator the same way. */
void vtw_comm_created(MPI_Comm c, const char *fn, MPI_Comm parent)
{
	if (c == MPI_COMM_NULL)
		return;
	int inter = 0;
	PMPI_Comm_test_inter(c, &inter);
	uint64_t key =
	    ((uint64_t)world_rank << 32) | __atomic_fetch_add(&comm_counter, 1, __ATOMIC_RELAXED);
	if (inter)
		key |= 0x80000000u; /* an intercommunicator: defined per rank, not unified */
	else
		PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, c);
	/* "MPI_Comm_split of MPI_COMM_WORLD": the same on every member, as long as the
	 * program named the parent alike on all of them. */
	char name[VT_COMM_NAME_MAX];
	derived_name(name, sizeof(name), fn, "of", vtw_comm(parent));
	comm_add(c, key, name);
}

void vtw_comm_named(MPI_Comm c, const char *name)
{
	if (c != MPI_COMM_NULL && name)
		vt_mpi_comm_name(vtw_comm(c), name);
}

void vtw_comm_freed(MPI_Comm c)
{
	pthread_mutex_lock(&comm_lock);
	vt_u64map_del(&comm_map, VTW_BITS(c));
	__atomic_add_fetch(&vtw_comm_generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comm_lock);
}

/*
 * Sizes of datatypes: most calls use a predefined type, the same as the call before, so
 * each thread keeps the size of the last predefined one it measured (PMPI_Type_size: ~6 ns
 * on Open MPI 4.1 and MPICH 4.0, a compare here). Only predefined types: they are never
 * freed, so no handle comes back for another type with another size.
 */
static const MPI_Datatype predefined_types[] = {
    MPI_CHAR,
    MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR,
    MPI_BYTE,
    MPI_SHORT,
    MPI_UNSIGNED_SHORT,
    MPI_INT,
    MPI_UNSIGNED,
    MPI_LONG,
    MPI_UNSIGNED_LONG,
    MPI_LONG_LONG,
    MPI_UNSIGNED_LONG_LONG,
    MPI_FLOAT,
    MPI_DOUBLE,
    MPI_LONG_DOUBLE,
    MPI_C_BOOL,
    MPI_INT8_T,
    MPI_INT16_T,
    MPI_INT32_T,
    MPI_INT64_T,
    MPI_UINT8_T,
    MPI_UINT16_T,
    MPI_UINT32_T,
    MPI_UINT64_T,
    MPI_C_DOUBLE_COMPLEX,
    MPI_DOUBLE_INT,
    MPI_2INT,
    MPI_FLOAT_INT,
    MPI_LONG_INT,
    MPI_AINT,
    MPI_OFFSET,
    MPI_COUNT,
    MPI_INTEGER,
    MPI_REAL,
    MPI_DOUBLE_PRECISION,
    MPI_COMPLEX,
    MPI_DOUBLE_COMPLEX,
    MPI_LOGICAL,
    MPI_CHARACTER,
};
__thread struct vtw_type_last vtw_type_last;

uint64_t vtw_bytes_lookup(MPI_Count count, MPI_Datatype type)
{
	if (count <= 0 || type == MPI_DATATYPE_NULL)
		return 0;
	uint64_t h = VTW_BITS(type);
	int size = 0;
	if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
		return 0;
	for (size_t i = 0; i < sizeof(predefined_types) / sizeof(*predefined_types); i++)
		if (VTW_BITS(predefined_types[i]) == h) {
			vtw_type_last.handle = h;
			vtw_type_last.size = (uint64_t)size;
			vtw_type_last.valid = true;
			break;
		}
	return (uint64_t)count * (uint64_t)size;
}

uint64_t vtw_sum_bytes(int n, const int counts[], MPI_Datatype type)
{
	uint64_t total = 0;
	for (int i = 0; counts && i < n; i++)
		total += (uint64_t)(counts[i] > 0 ? counts[i] : 0);
	return total ? vtw_bytes(1, type) * total : 0;
}

/* -- topologies ---------------------------------------------------------------------- */

/*
 * A rank's neighbours in the order neighbourhood collectives use their buffers: sources
 * (out = 0) or destinations (out = 1). Cartesian: per dimension the lower then the upper
 * neighbour (MPI_PROC_NULL at a non-periodic border); graph: the neighbours, both ways;
 * distributed graph: its sources and destinations. Returns how many (at most max), -1 for a
 * communicator without a topology.
 */
static int neighbors(MPI_Comm comm, int out, int *nbr, int max)
{
	int topo = MPI_UNDEFINED, n = 0;
	if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
		return -1;
	if (topo == MPI_CART) {
		int dims = 0;
		PMPI_Cartdim_get(comm, &dims);
		for (int d = 0; d < dims; d++) {
			int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
			PMPI_Cart_shift(comm, d, 1, &lo, &hi);
			if (n < max)
				nbr[n] = lo;
			if (n + 1 < max)
				nbr[n + 1] = hi;
			n += 2;
		}
		return n;
	}
	if (topo == MPI_GRAPH) {
		int me = vtw_comm_rank(comm);
		PMPI_Graph_neighbors_count(comm, me, &n);
		if (n > 0 && n <= max)
			PMPI_Graph_neighbors(comm, me, n, nbr);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		int in = 0, outd = 0, weighted = 0;
		PMPI_Dist_graph_neighbors_count(comm, &in, &outd, &weighted);
		n = out ? outd : in;
		if (n > 0 && in <= max && outd <= max) {
			int *src = malloc(sizeof(int) * (size_t)(in + 1) * 2);
			int *dst = malloc(sizeof(int) * (size_t)(outd + 1) * 2);
			if (src && dst &&
			    PMPI_Dist_graph_neighbors(comm, in, src, src + in + 1, outd, dst,
						      dst + outd + 1) == MPI_SUCCESS)
				memcpy(nbr, out ? dst : src, sizeof(int) * (size_t)n);
			else
				n = -1;
			free(src);
			free(dst);
		}
		return n;
	}
	return -1;
}

uint64_t vtw_neighbor_bytes(MPI_Comm comm, int out, MPI_Count count, const int counts[],
			    MPI_Datatype type, const MPI_Datatype types[])
{
	int small[64], *nbr = small;
	int n = neighbors(comm, out, small, 64);
	if (n > 64) {
		nbr = malloc(sizeof(int) * (size_t)n);
		if (!nbr || neighbors(comm, out, nbr, n) != n) {
			free(nbr);
			return 0;
		}
	}
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		if (nbr[i] != MPI_PROC_NULL)
			total += vtw_bytes(counts ? counts[i] : count, types ? types[i] : type);
	if (nbr != small)
		free(nbr);
	return total;
}

int vtw_neighbor_max(MPI_Comm comm)
{
	int in = neighbors(comm, 0, NULL, 0), out = neighbors(comm, 1, NULL, 0);
	return in > out ? in : out;
}

/* -- requests ------------------------------------------------------------------------ */

/* The requests in flight (vt_mpi_maps.h): O(1) by handle, under one lock, since a request
 * may complete on another thread than the one that made it. */
static struct vt_reqmap requests;
static uint64_t request_ids;
static pthread_mutex_t request_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t vtw_request_new(MPI_Request req, int kind, uint32_t comm, int peer, int tag,
			 uint64_t bytes, int persistent)
{
	pthread_mutex_lock(&request_lock);
	uint64_t id = ++request_ids;
	/* Handles repeat: MPI hands the same handle to requests that completed at once (both
	 * Open MPI and MPICH do for small eager sends), so a handle may stand for several
	 * requests, completed in the order they were made: the map keeps that order. */
	struct vt_req *r = vt_reqmap_add(&requests, VTW_BITS(req));
	if (r) {
		r->id = id;
		r->kind = kind;
		r->peer = peer;
		r->tag = tag;
		r->persistent = persistent;
		r->active = !persistent;
		r->comm = comm;
		r->bytes = bytes;
	}
	pthread_mutex_unlock(&request_lock);
	return id;
}

void vtw_nbc_issued(MPI_Request req, struct vtw_coll c, int persistent, uint64_t t0)
{
	pthread_mutex_lock(&request_lock);
	uint64_t id = ++request_ids;
	struct vt_req *r = vt_reqmap_add(&requests, VTW_BITS(req));
	if (r) {
		r->id = id;
		r->kind = VTW_REQ_COLL;
		r->peer = c.root;
		r->tag = (int)c.op;
		r->persistent = persistent;
		r->active = !persistent;
		r->comm = c.comm;
		r->bytes = c.sent;
		r->received = c.received;
	}
	pthread_mutex_unlock(&request_lock);
	/* Out of memory the completion is not seen: no request event either. */
	if (r && !persistent)
		vt_mpi_event(t0, VT_REC_MPI_NBC_REQUEST, 0, id, 0, 0, 0, 0);
}

void vtw_request_started(MPI_Request req)
{
	pthread_mutex_lock(&request_lock);
	struct vt_req *r = vt_reqmap_persistent(&requests, VTW_BITS(req));
	struct vt_req copy = {0};
	if (r) {
		r->id = ++request_ids;
		r->active = 1;
		copy = *r;
	}
	pthread_mutex_unlock(&request_lock);
	if (!copy.handle)
		return;
	if (copy.kind == VTW_REQ_SEND) {
		vt_mpi_p2p_request(VT_REC_MPI_ISEND, (uint32_t)copy.peer, copy.comm,
				   (uint32_t)copy.tag, copy.bytes, copy.id);
	} else if (copy.kind == VTW_REQ_COLL) {
		vt_mpi_request(VT_REC_MPI_NBC_REQUEST, copy.id);
	} else {
		vt_mpi_request(VT_REC_MPI_IRECV_REQUEST, copy.id);
	}
}

void vtw_request_freed(MPI_Request req)
{
	pthread_mutex_lock(&request_lock);
	struct vt_req *r = vt_reqmap_oldest(&requests, VTW_BITS(req));
	/* An active non-persistent request completes unseen after a free: forget it. */
	if (r)
		vt_reqmap_remove(&requests, r);
	pthread_mutex_unlock(&request_lock);
}

void vtw_request_cancelled(MPI_Request req)
{
	pthread_mutex_lock(&request_lock);
	struct vt_req *r = vt_reqmap_oldest(&requests, VTW_BITS(req));
	uint64_t id = r && r->active ? r->id : 0;
	pthread_mutex_unlock(&request_lock);
	if (id) {
		vt_mpi_request(VT_REC_MPI_REQUEST_CANCELLED, id);
	}
}

/*
 * A request that completed with status: its completion event. Called with the handle the
 * request had before the completing call (MPI sets it to MPI_REQUEST_NULL).
 */
static void request_completed(uint64_t handle, const MPI_Status *status)
{
	pthread_mutex_lock(&request_lock);
	/* An active persistent request first: a repeated handle of a finished one is not. */
	struct vt_req *found = vt_reqmap_persistent(&requests, handle);
	if (!found || !found->active)
		found = vt_reqmap_oldest(&requests, handle);
	struct vt_req r = found ? *found : (struct vt_req){0};
	if (found) {
		if (found->persistent)
			found->active = 0;
		else
			vt_reqmap_remove(&requests, found);
	}
	pthread_mutex_unlock(&request_lock);
	if (!found || !r.active)
		return;
	/* File and window requests first: MPI (Open MPI's ompio) may leave their statuses'
	 * cancelled field unset. */
	if (r.kind == VTW_REQ_IO) {
		int count = MPI_UNDEFINED;
		if (status)
			PMPI_Get_count(status, MPI_BYTE, &count);
		vt_mpi_event(0, VT_REC_IO_COMPLETE, 0,
			     count == MPI_UNDEFINED || count < 0 ? r.bytes : (uint64_t)count,
			     r.comm, 0, 0, r.id);
		return;
	}
	if (r.kind == VTW_REQ_RMA) {
		vt_mpi_event(0, VT_REC_RMA_COMPLETE, VT_RMA_COMPLETE_NONBLOCKING, r.id, r.comm, 0,
			     0, 0);
		return;
	}
	int cancelled = 0;
	if (status)
		PMPI_Test_cancelled(status, &cancelled);
	if (cancelled)
		return;
	if (r.kind == VTW_REQ_SEND) {
		vt_mpi_request(VT_REC_MPI_ISEND_COMPLETE, r.id);
		return;
	}
	if (r.kind == VTW_REQ_COLL) {
		vt_mpi_nbc_complete((uint32_t)r.tag, r.comm, vtw_root(r.peer), r.bytes, r.received,
				    r.id);
		return;
	}
	int count = 0;
	if (status)
		PMPI_Get_count(status, MPI_BYTE, &count);
	vt_mpi_p2p_request(VT_REC_MPI_IRECV, (uint32_t)(status ? status->MPI_SOURCE : r.peer),
			   r.comm, (uint32_t)(status ? status->MPI_TAG : r.tag),
			   (uint64_t)(count > 0 ? count : 0), r.id);
}

/* -- one-sided ----------------------------------------------------------------------- */

/* An operation in flight: until a synchronization completes it remotely. */
struct rma_op {
	uint64_t id;
	int target;
	bool local; /* completed locally already (flush_local) */
};

/* What vt knows of a window; by handle in win_map, under win_lock. */
struct win_state {
	uint32_t id;		   /* local window id */
	bool allocated;		   /* MPI allocated its memory: freed with it */
	uint32_t access, exposure; /* the group ids of the PSCW epochs, UINT32_MAX: none */
	struct rma_op *ops;
	size_t n_ops, cap_ops;
};

static struct vt_u64map win_map;
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rma_ids;
static MPI_Group world_group = MPI_GROUP_NULL;

void vtw_win_created(MPI_Win win, MPI_Comm comm, const char *fn, int allocated, uint64_t t0)
{
	if (win == MPI_WIN_NULL)
		return;
	/* Collective over comm, as a communicator's key: its rank 0 makes it. */
	uint64_t key = ((uint64_t)world_rank << 32) | 0x40000000u |
		       __atomic_fetch_add(&comm_counter, 1, __ATOMIC_RELAXED);
	int inter = 0;
	PMPI_Comm_test_inter(comm, &inter);
	if (!inter)
		PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, comm);
	uint32_t cid = vtw_comm(comm);
	char name[VT_COMM_NAME_MAX];
	derived_name(name, sizeof(name), fn, "on", cid);
	uint32_t id = vt_mpi_win_define(key, cid, name);
	struct win_state *w = calloc(1, sizeof(*w));
	if (id == UINT32_MAX || !w) {
		free(w);
		return;
	}
	w->id = id;
	w->allocated = allocated;
	w->access = w->exposure = UINT32_MAX;
	pthread_mutex_lock(&win_lock);
	if (vt_u64map_set(&win_map, VTW_BITS(win), w) < 0) {
		free(w);
		w = NULL;
	}
	pthread_mutex_unlock(&win_lock);
	if (!w)
		return;
	vt_mpi_event(t0, VT_REC_RMA_COLL_BEGIN, 0, 0, 0, 0, 0, 0);
	vt_mpi_event(0, VT_REC_RMA_WIN_CREATE, id, 0, 0, 0, 0, 0);
	vt_mpi_event(0, VT_REC_RMA_COLL_END,
		     (allocated ? OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE
				: OTF2_COLLECTIVE_OP_CREATE_HANDLE),
		     0, id, OTF2_UNDEFINED_UINT32, 0, 0);
}

void vtw_win_freed(uint64_t handle, uint64_t t0)
{
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_del(&win_map, handle);
	pthread_mutex_unlock(&win_lock);
	if (!w)
		return;
	vt_mpi_event(t0, VT_REC_RMA_COLL_BEGIN, 0, 0, 0, 0, 0, 0);
	vt_mpi_event(t0, VT_REC_RMA_WIN_DESTROY, w->id, 0, 0, 0, 0, 0);
	vt_mpi_event(0, VT_REC_RMA_COLL_END,
		     (w->allocated ? OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE
				   : OTF2_COLLECTIVE_OP_DESTROY_HANDLE),
		     0, w->id, OTF2_UNDEFINED_UINT32, 0, 0);
	free(w->ops);
	free(w);
}

/* The window's local id, or UINT32_MAX for one vt did not see made. */
static uint32_t win_id(MPI_Win win)
{
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_get(&win_map, VTW_BITS(win));
	uint32_t id = w ? w->id : UINT32_MAX;
	pthread_mutex_unlock(&win_lock);
	return id;
}

void vtw_win_named(MPI_Win win, const char *name)
{
	uint32_t id = win_id(win);
	if (id != UINT32_MAX && name)
		vt_mpi_win_name(id, name);
}

void vtw_rma_op(MPI_Win win, uint32_t kind, uint32_t atomic, int target, uint64_t sent,
		uint64_t received, const MPI_Request *req)
{
	if (target == MPI_PROC_NULL)
		return;
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_get(&win_map, VTW_BITS(win));
	uint64_t id = ++rma_ids;
	uint32_t wid = w ? w->id : UINT32_MAX;
	if (w && w->n_ops == w->cap_ops) {
		size_t cap = w->cap_ops ? 2 * w->cap_ops : 16;
		struct rma_op *ops = realloc(w->ops, cap * sizeof(*ops));
		if (ops) {
			w->ops = ops;
			w->cap_ops = cap;
		}
	}
	/* Out of memory the operation is recorded, its completion not. */
	if (w && w->n_ops < w->cap_ops)
		w->ops[w->n_ops++] = (struct rma_op){id, target, false};
	pthread_mutex_unlock(&win_lock);
	if (wid == UINT32_MAX)
		return;
	vt_mpi_event(0, kind, atomic, kind == VT_REC_RMA_GET ? received : sent, wid,
		     (uint32_t)target, received, id);
	if (req) {
		pthread_mutex_lock(&request_lock);
		struct vt_req *r = vt_reqmap_add(&requests, VTW_BITS(*req));
		if (r) {
			r->id = id;
			r->kind = VTW_REQ_RMA;
			r->active = 1;
			r->comm = wid;
		}
		pthread_mutex_unlock(&request_lock);
	}
}

/* The ids of the operations a synchronization completes (remote: and forgets), malloc'd. */
static uint64_t *rma_take(struct win_state *w, int target, bool remote, size_t *n)
{
	uint64_t *ids = malloc((w->n_ops ? w->n_ops : 1) * sizeof(*ids));
	size_t k = 0, keep = 0;
	for (size_t i = 0; i < w->n_ops; i++) {
		struct rma_op *o = &w->ops[i];
		bool mine = target == VTW_RMA_ALL || o->target == target;
		if (mine && ids && (remote || !o->local))
			ids[k++] = o->id;
		if (mine && !remote)
			o->local = true;
		if (!(mine && remote))
			w->ops[keep++] = *o;
	}
	w->n_ops = keep;
	*n = k;
	return ids;
}

void vtw_rma_sync(MPI_Win win, enum vtw_rma_sync how, int target, uint64_t t0)
{
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_get(&win_map, VTW_BITS(win));
	size_t n = 0;
	uint64_t *ids = w ? rma_take(w, target, how != VTW_FLUSH_LOCAL, &n) : NULL;
	uint32_t wid = w ? w->id : UINT32_MAX;
	pthread_mutex_unlock(&win_lock);
	if (wid == UINT32_MAX)
		return;
	if (how == VTW_FENCE)
		vt_mpi_event(t0, VT_REC_RMA_COLL_BEGIN, 0, 0, 0, 0, 0, 0);
	uint32_t done = how == VTW_FLUSH_LOCAL ? VT_RMA_COMPLETE_BLOCKING : VT_RMA_COMPLETE_REMOTE;
	for (size_t i = 0; ids && i < n; i++)
		vt_mpi_event(0, VT_REC_RMA_COMPLETE, done, ids[i], wid, 0, 0, 0);
	if (how == VTW_FENCE)
		vt_mpi_event(0, VT_REC_RMA_COLL_END,
			     OTF2_COLLECTIVE_OP_BARRIER |
				 ((OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY) << 8),
			     0, wid, OTF2_UNDEFINED_UINT32, 0, 0);
	free(ids);
}

void vtw_rma_lock(MPI_Win win, int target, int lock_type, int release)
{
	uint32_t wid = win_id(win);
	if (wid == UINT32_MAX || target == MPI_PROC_NULL)
		return;
	uint32_t type = lock_type == MPI_LOCK_EXCLUSIVE ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED;
	vt_mpi_event(0, VT_REC_RMA_LOCK,
		     release ? VT_RMA_LOCK_RELEASE : (VT_RMA_LOCK_REQUEST | type << 8), 0, wid,
		     target == VTW_RMA_ALL ? OTF2_UNDEFINED_UINT32 : (uint32_t)target, 0, 0);
}

/* The group's members as world ranks, "0,2,5"; its id (UINT32_MAX: not known). */
static uint32_t group_of(MPI_Group g)
{
	int n = 0;
	if (g == MPI_GROUP_NULL || PMPI_Group_size(g, &n) != MPI_SUCCESS || n < 0)
		return UINT32_MAX;
	int *in = malloc(sizeof(int) * (size_t)(n + 1)),
	    *out = malloc(sizeof(int) * (size_t)(n + 1));
	char *s = malloc((size_t)n * 12 + 1);
	uint32_t id = UINT32_MAX;
	if (in && out && s) {
		for (int i = 0; i < n; i++)
			in[i] = i;
		if (PMPI_Group_translate_ranks(g, n, in, world_group, out) == MPI_SUCCESS) {
			size_t len = 0;
			s[0] = 0;
			for (int i = 0; i < n; i++)
				len += (size_t)sprintf(s + len, i ? ",%d" : "%d", out[i]);
			id = vt_mpi_group_define(s);
		}
	}
	free(in);
	free(out);
	free(s);
	return id;
}

static void group_sync(uint32_t wid, uint32_t group)
{
	if (group != UINT32_MAX)
		vt_mpi_event(0, VT_REC_RMA_GROUP_SYNC,
			     OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, group, wid,
			     0, 0, 0);
}

void vtw_rma_epoch(MPI_Win win, MPI_Group group, int access)
{
	uint32_t gid = group_of(group);
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_get(&win_map, VTW_BITS(win));
	uint32_t wid = w ? w->id : UINT32_MAX;
	if (w)
		*(access ? &w->access : &w->exposure) = gid;
	pthread_mutex_unlock(&win_lock);
	if (wid != UINT32_MAX)
		group_sync(wid, gid);
}

void vtw_rma_epoch_end(MPI_Win win, int access)
{
	pthread_mutex_lock(&win_lock);
	struct win_state *w = vt_u64map_get(&win_map, VTW_BITS(win));
	uint32_t wid = w ? w->id : UINT32_MAX, gid = UINT32_MAX;
	if (w) {
		gid = access ? w->access : w->exposure;
		*(access ? &w->access : &w->exposure) = UINT32_MAX;
	}
	pthread_mutex_unlock(&win_lock);
	if (wid != UINT32_MAX)
		group_sync(wid, gid);
}

/* -- MPI-IO -------------------------------------------------------------------------- */

/* What vt knows of an open file; by handle in file_map, under file_lock. */
struct file_state {
	uint32_t id;	/* local I/O handle id */
	uint64_t split; /* the matching id of the split collective in progress, or 0 */
	uint64_t split_bytes;
};

static struct vt_u64map file_map;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t io_ids;

void vtw_file_opened(MPI_File fh, MPI_Comm comm, const char *name, int amode)
{
	if (fh == MPI_FILE_NULL)
		return;
	/* Collective over comm, as a window's key. */
	uint64_t key = ((uint64_t)world_rank << 32) | 0x20000000u |
		       __atomic_fetch_add(&comm_counter, 1, __ATOMIC_RELAXED);
	PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, comm);
	uint32_t id = vt_mpi_io_define(key, vtw_comm(comm), name);
	struct file_state *f = calloc(1, sizeof(*f));
	if (id == UINT32_MAX || !f) {
		free(f);
		return;
	}
	f->id = id;
	pthread_mutex_lock(&file_lock);
	if (vt_u64map_set(&file_map, VTW_BITS(fh), f) < 0) {
		free(f);
		f = NULL;
	}
	pthread_mutex_unlock(&file_lock);
	if (!f)
		return;
	uint32_t mode = amode & MPI_MODE_RDWR	  ? OTF2_IO_ACCESS_MODE_READ_WRITE
			: amode & MPI_MODE_WRONLY ? OTF2_IO_ACCESS_MODE_WRITE_ONLY
						  : OTF2_IO_ACCESS_MODE_READ_ONLY;
	uint64_t creation = (amode & MPI_MODE_CREATE ? OTF2_IO_CREATION_FLAG_CREATE : 0) |
			    (amode & MPI_MODE_EXCL ? OTF2_IO_CREATION_FLAG_EXCLUSIVE : 0);
	uint32_t status =
	    (amode & MPI_MODE_APPEND ? OTF2_IO_STATUS_FLAG_APPEND : 0) |
	    (amode & MPI_MODE_DELETE_ON_CLOSE ? OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE : 0);
	vt_mpi_event(0, VT_REC_IO_CREATE, mode, creation, id, status, 0, 0);
}

void vtw_file_closed(uint64_t handle)
{
	pthread_mutex_lock(&file_lock);
	struct file_state *f = vt_u64map_del(&file_map, handle);
	pthread_mutex_unlock(&file_lock);
	if (!f)
		return;
	vt_mpi_event(0, VT_REC_IO_DESTROY, 0, 0, f->id, 0, 0, 0);
	free(f);
}

/* The handle's local id, or UINT32_MAX for a file vt did not see opened. */
static uint32_t file_id(MPI_File fh)
{
	pthread_mutex_lock(&file_lock);
	struct file_state *f = vt_u64map_get(&file_map, VTW_BITS(fh));
	uint32_t id = f ? f->id : UINT32_MAX;
	pthread_mutex_unlock(&file_lock);
	return id;
}

uint64_t vtw_io_begin(MPI_File fh, uint32_t mode, uint32_t flags, uint64_t bytes)
{
	uint32_t id = file_id(fh);
	if (id == UINT32_MAX)
		return 0;
	uint64_t op = __atomic_add_fetch(&io_ids, 1, __ATOMIC_RELAXED);
	vt_mpi_event(0, VT_REC_IO_BEGIN, mode | flags << 8, bytes, id, 0, 0, op);
	return op;
}

void vtw_io_end(MPI_File fh, uint64_t op, int ret, const MPI_Status *st, uint64_t bytes)
{
	uint32_t id = op ? file_id(fh) : UINT32_MAX;
	if (id == UINT32_MAX)
		return;
	if (ret != MPI_SUCCESS) {
		vt_mpi_event(0, VT_REC_IO_CANCELLED, 0, op, id, 0, 0, 0);
		return;
	}
	int count = MPI_UNDEFINED;
	if (st && st != MPI_STATUS_IGNORE)
		PMPI_Get_count(st, MPI_BYTE, &count);
	vt_mpi_event(0, VT_REC_IO_COMPLETE, 0,
		     count == MPI_UNDEFINED || count < 0 ? bytes : (uint64_t)count, id, 0, 0, op);
}

void vtw_io_issued(MPI_File fh, uint64_t op, int ret, const MPI_Request *req, uint64_t bytes)
{
	pthread_mutex_lock(&file_lock);
	struct file_state *f = op ? vt_u64map_get(&file_map, VTW_BITS(fh)) : NULL;
	uint32_t id = f ? f->id : UINT32_MAX;
	if (f && !req && ret == MPI_SUCCESS) {
		f->split = op;
		f->split_bytes = bytes;
	}
	pthread_mutex_unlock(&file_lock);
	if (id == UINT32_MAX)
		return;
	if (ret != MPI_SUCCESS) {
		vt_mpi_event(0, VT_REC_IO_CANCELLED, 0, op, id, 0, 0, 0);
		return;
	}
	vt_mpi_event(0, VT_REC_IO_ISSUED, 0, op, id, 0, 0, 0);
	if (req) {
		pthread_mutex_lock(&request_lock);
		struct vt_req *r = vt_reqmap_add(&requests, VTW_BITS(*req));
		if (r) {
			r->id = op;
			r->kind = VTW_REQ_IO;
			r->active = 1;
			r->comm = id;
			r->bytes = bytes;
		}
		pthread_mutex_unlock(&request_lock);
	}
}

void vtw_io_split_end(MPI_File fh, int ret, const MPI_Status *st)
{
	pthread_mutex_lock(&file_lock);
	struct file_state *f = vt_u64map_get(&file_map, VTW_BITS(fh));
	uint64_t op = f ? f->split : 0, bytes = f ? f->split_bytes : 0;
	if (f)
		f->split = 0;
	pthread_mutex_unlock(&file_lock);
	if (op)
		vtw_io_end(fh, op, ret, st, bytes);
}

void vtw_io_seek(MPI_File fh, MPI_Offset offset, int whence, int shared)
{
	uint32_t id = file_id(fh);
	if (id == UINT32_MAX)
		return;
	/* The shared pointer moves with the other ranks' operations as soon as the seek
	 * returned: reached is what the seek set, where it says (else undefined). */
	uint64_t pos = OTF2_UNDEFINED_UINT64;
	MPI_Offset mine = 0;
	if (!shared && PMPI_File_get_position(fh, &mine) == MPI_SUCCESS)
		pos = (uint64_t)mine;
	else if (shared && whence == MPI_SEEK_SET)
		pos = (uint64_t)offset;
	uint32_t w = whence == MPI_SEEK_SET   ? OTF2_IO_SEEK_FROM_START
		     : whence == MPI_SEEK_CUR ? OTF2_IO_SEEK_FROM_CURRENT
					      : OTF2_IO_SEEK_FROM_END;
	vt_mpi_event(0, VT_REC_IO_SEEK, w, (uint64_t)offset, id, 0, pos, 0);
}

/* -- receives ------------------------------------------------------------------------ */

/* The message of a completed receive, sender and tag from the status (ANY_SOURCE/TAG). */
static void received(const MPI_Status *st, MPI_Comm comm)
{
	if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE == MPI_ANY_SOURCE)
		return;
#if MPI_VERSION >= 4
	/* a message of 2 GiB or more has no int count */
	MPI_Count count = 0;
	PMPI_Get_count_c(st, MPI_BYTE, &count);
#else
	int count = 0;
	PMPI_Get_count(st, MPI_BYTE, &count);
#endif
	vtw_p2p(VT_REC_MPI_RECV, st->MPI_SOURCE, vtw_comm(comm), st->MPI_TAG,
		(uint64_t)(count > 0 ? count : 0));
}

VTW_HIDDEN extern struct vt_inst_desc vtw_desc_MPI_Recv, vtw_desc_MPI_Sendrecv,
    vtw_desc_MPI_Sendrecv_replace, vtw_desc_MPI_Mrecv, vtw_desc_MPI_Wait, vtw_desc_MPI_Waitall,
    vtw_desc_MPI_Waitany, vtw_desc_MPI_Waitsome, vtw_desc_MPI_Test, vtw_desc_MPI_Testall,
    vtw_desc_MPI_Testany, vtw_desc_MPI_Testsome, vtw_desc_MPI_Init, vtw_desc_MPI_Init_thread,
    vtw_desc_MPI_Finalize, vtw_desc_MPI_Abort;

/*
 * The blocking receives, each once for its int form and once (MPI 4.0; MPICH 4.0 has
 * them, Open MPI 4.1 not) for its large-count _c form, whose messages must have their
 * receive as MPI_Send_c's have their send. The status is read even where the caller
 * ignores it.
 */
#define VTW_STATUS_OWN                                                                             \
	MPI_Status own;                                                                            \
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status

#define VTW_RECV(NAME, COUNT)                                                                      \
	VTW_EXPORT int NAME(void *buf, COUNT count, MPI_Datatype type, int source, int tag,        \
			    MPI_Comm comm, MPI_Status *status)                                     \
	{                                                                                          \
		if (!vtw_tracing())                                                                \
			return P##NAME(buf, count, type, source, tag, comm, status);               \
		VTW_STATUS_OWN;                                                                    \
		vt_inst_enter(&vtw_desc_##NAME);                                                   \
		int ret = P##NAME(buf, count, type, source, tag, comm, st);                        \
		if (ret == MPI_SUCCESS)                                                            \
			received(st, comm);                                                        \
		vt_inst_exit(&vtw_desc_##NAME);                                                    \
		return ret;                                                                        \
	}

#define VTW_SENDRECV(NAME, COUNT)                                                                  \
	VTW_EXPORT int NAME(const void *sbuf, COUNT scount, MPI_Datatype stype, int dest,          \
			    int stag, void *rbuf, COUNT rcount, MPI_Datatype rtype, int source,    \
			    int rtag, MPI_Comm comm, MPI_Status *status)                           \
	{                                                                                          \
		if (!vtw_tracing())                                                                \
			return P##NAME(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,       \
				       source, rtag, comm, status);                                \
		VTW_STATUS_OWN;                                                                    \
		vt_inst_enter(&vtw_desc_##NAME);                                                   \
		if (dest != MPI_PROC_NULL)                                                         \
			vtw_p2p(VT_REC_MPI_SEND, dest, vtw_comm(comm), stag,                       \
				vtw_bytes(scount, stype));                                         \
		int ret = P##NAME(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,    \
				  rtag, comm, st);                                                 \
		if (ret == MPI_SUCCESS)                                                            \
			received(st, comm);                                                        \
		vt_inst_exit(&vtw_desc_##NAME);                                                    \
		return ret;                                                                        \
	}

#define VTW_SENDRECV_REPLACE(NAME, COUNT)                                                          \
	VTW_EXPORT int NAME(void *buf, COUNT count, MPI_Datatype type, int dest, int stag,         \
			    int source, int rtag, MPI_Comm comm, MPI_Status *status)               \
	{                                                                                          \
		if (!vtw_tracing())                                                                \
			return P##NAME(buf, count, type, dest, stag, source, rtag, comm, status);  \
		VTW_STATUS_OWN;                                                                    \
		vt_inst_enter(&vtw_desc_##NAME);                                                   \
		if (dest != MPI_PROC_NULL)                                                         \
			vtw_p2p(VT_REC_MPI_SEND, dest, vtw_comm(comm), stag,                       \
				vtw_bytes(count, type));                                           \
		int ret = P##NAME(buf, count, type, dest, stag, source, rtag, comm, st);           \
		if (ret == MPI_SUCCESS)                                                            \
			received(st, comm);                                                        \
		vt_inst_exit(&vtw_desc_##NAME);                                                    \
		return ret;                                                                        \
	}

/* A matched probe's message has no communicator handle at hand: the record uses the one
 * the message came from, which MPI does not tell; vt records it on MPI_COMM_WORLD. */
#define VTW_MRECV(NAME, COUNT)                                                                     \
	VTW_EXPORT int NAME(void *buf, COUNT count, MPI_Datatype type, MPI_Message *message,       \
			    MPI_Status *status)                                                    \
	{                                                                                          \
		if (!vtw_tracing())                                                                \
			return P##NAME(buf, count, type, message, status);                         \
		VTW_STATUS_OWN;                                                                    \
		vt_inst_enter(&vtw_desc_##NAME);                                                   \
		int ret = P##NAME(buf, count, type, message, st);                                  \
		if (ret == MPI_SUCCESS)                                                            \
			received(st, MPI_COMM_WORLD);                                              \
		vt_inst_exit(&vtw_desc_##NAME);                                                    \
		return ret;                                                                        \
	}

VTW_RECV(MPI_Recv, int)
VTW_SENDRECV(MPI_Sendrecv, int)
VTW_SENDRECV_REPLACE(MPI_Sendrecv_replace, int)
VTW_MRECV(MPI_Mrecv, int)
#if MPI_VERSION >= 4
VTW_HIDDEN extern struct vt_inst_desc vtw_desc_MPI_Recv_c, vtw_desc_MPI_Sendrecv_c,
    vtw_desc_MPI_Sendrecv_replace_c, vtw_desc_MPI_Mrecv_c;
VTW_RECV(MPI_Recv_c, MPI_Count)
VTW_SENDRECV(MPI_Sendrecv_c, MPI_Count)
VTW_SENDRECV_REPLACE(MPI_Sendrecv_replace_c, MPI_Count)
VTW_MRECV(MPI_Mrecv_c, MPI_Count)
#endif

/* -- completion ---------------------------------------------------------------------- */

/* Copies of the handles before the call (MPI nulls completed ones), and statuses to read
 * even where the caller ignores them. Small counts live on the stack. */
struct completion {
	uint64_t small_h[16];
	MPI_Status small_st[16];
	uint64_t *h;
	MPI_Status *st;
};

static int completion_begin(struct completion *c, int n, const MPI_Request reqs[])
{
	c->h = n <= 16 ? c->small_h : malloc((size_t)n * sizeof(*c->h));
	c->st = n <= 16 ? c->small_st : malloc((size_t)n * sizeof(*c->st));
	if (!c->h || !c->st)
		return -1;
	for (int i = 0; i < n; i++)
		c->h[i] = VTW_BITS(reqs[i]);
	return 0;
}

static void completion_end(struct completion *c)
{
	if (c->h != c->small_h)
		free(c->h);
	if (c->st != c->small_st)
		free(c->st);
}

VTW_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	if (!vtw_tracing())
		return PMPI_Wait(req, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	uint64_t h = VTW_BITS(*req);
	vt_inst_enter(&vtw_desc_MPI_Wait);
	int ret = PMPI_Wait(req, st);
	if (ret == MPI_SUCCESS)
		request_completed(h, st);
	vt_inst_exit(&vtw_desc_MPI_Wait);
	return ret;
}

VTW_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	if (!vtw_tracing())
		return PMPI_Test(req, flag, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	uint64_t h = VTW_BITS(*req);
	vt_inst_enter(&vtw_desc_MPI_Test);
	int ret = PMPI_Test(req, flag, st);
	if (ret == MPI_SUCCESS && *flag)
		request_completed(h, st);
	vt_inst_exit(&vtw_desc_MPI_Test);
	return ret;
}

VTW_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Waitall(n, reqs, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vt_inst_enter(&vtw_desc_MPI_Waitall);
	int ret = PMPI_Waitall(n, reqs, st);
	/* On MPI_ERR_IN_STATUS each status says whether its request completed. */
	for (int i = 0; i < n && (ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS); i++)
		if (ret == MPI_SUCCESS || st[i].MPI_ERROR == MPI_SUCCESS)
			request_completed(c.h[i], &st[i]);
	vt_inst_exit(&vtw_desc_MPI_Waitall);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Testall(n, reqs, flag, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vt_inst_enter(&vtw_desc_MPI_Testall);
	int ret = PMPI_Testall(n, reqs, flag, st);
	for (int i = 0; ret == MPI_SUCCESS && *flag && i < n; i++)
		request_completed(c.h[i], &st[i]);
	vt_inst_exit(&vtw_desc_MPI_Testall);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Waitany(n, reqs, index, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	vt_inst_enter(&vtw_desc_MPI_Waitany);
	int ret = PMPI_Waitany(n, reqs, index, st);
	if (ret == MPI_SUCCESS && *index != MPI_UNDEFINED)
		request_completed(c.h[*index], st);
	vt_inst_exit(&vtw_desc_MPI_Waitany);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Testany(n, reqs, index, flag, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	vt_inst_enter(&vtw_desc_MPI_Testany);
	int ret = PMPI_Testany(n, reqs, index, flag, st);
	if (ret == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
		request_completed(c.h[*index], st);
	vt_inst_exit(&vtw_desc_MPI_Testany);
	completion_end(&c);
	return ret;
}

static int some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]),
		struct vt_inst_desc *desc, int n, MPI_Request reqs[], int *outcount, int indices[],
		MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return fn(n, reqs, outcount, indices, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vt_inst_enter(desc);
	int ret = fn(n, reqs, outcount, indices, st);
	for (int i = 0; ret == MPI_SUCCESS && *outcount != MPI_UNDEFINED && i < *outcount; i++)
		request_completed(c.h[indices[i]], &st[i]);
	vt_inst_exit(desc);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
			    MPI_Status statuses[])
{
	return some(PMPI_Waitsome, &vtw_desc_MPI_Waitsome, n, reqs, outcount, indices, statuses);
}

VTW_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
			    MPI_Status statuses[])
{
	return some(PMPI_Testsome, &vtw_desc_MPI_Testsome, n, reqs, outcount, indices, statuses);
}

/* -- what libvt needs from MPI ------------------------------------------------------- */

static void op_bcast(void *buf, size_t n, int root)
{
	PMPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
}

static void *op_gather(const void *buf, size_t n, size_t **sizes_out)
{
	int me = (int)n;
	int *counts = world_rank == 0 ? calloc((size_t)world_size, sizeof(int)) : NULL;
	PMPI_Gather(&me, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	char *all = NULL;
	int *displs = NULL;
	if (world_rank == 0 && counts) {
		displs = calloc((size_t)world_size, sizeof(int));
		size_t total = 0;
		for (int i = 0; displs && i < world_size; i++) {
			displs[i] = (int)total;
			total += (size_t)counts[i];
		}
		all = malloc(total ? total : 1);
		if (sizes_out && (*sizes_out = malloc((size_t)world_size * sizeof(size_t))))
			for (int i = 0; i < world_size; i++)
				(*sizes_out)[i] = (size_t)counts[i];
	}
	PMPI_Gatherv(buf, me, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
	return all;
}

static void *op_scatter(void *const *bufs, const size_t *sizes, size_t *n)
{
	int mine = 0;
	int *counts = NULL, *displs = NULL;
	char *send = NULL;
	if (world_rank == 0) {
		counts = calloc((size_t)world_size, sizeof(int));
		displs = calloc((size_t)world_size, sizeof(int));
		size_t total = 0;
		for (int i = 0; counts && displs && sizes && i < world_size; i++) {
			counts[i] = (int)sizes[i];
			displs[i] = (int)total;
			total += sizes[i];
		}
		send = malloc(total ? total : 1);
		for (int i = 0; send && counts && displs && bufs && i < world_size; i++)
			if (counts[i])
				memcpy(send + displs[i], bufs[i], (size_t)counts[i]);
	}
	PMPI_Scatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
	char *recv = malloc(mine > 0 ? (size_t)mine : 1);
	PMPI_Scatterv(send, counts, displs, MPI_BYTE, recv, mine, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(send);
	free(counts);
	free(displs);
	*n = (size_t)mine;
	return recv;
}

static void op_set_collectives(void *archive)
{
	OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL);
}

static struct vt_mpi_ops ops = {
    .bcast = op_bcast,
    .gather = op_gather,
    .scatter = op_scatter,
    .set_collectives = op_set_collectives,
};

/*
 * Offsets of every rank's clock against rank 0's. Ranks on rank 0's host read the same
 * clock (an invariant TSC is one counter per machine, CLOCK_MONOTONIC one per kernel): their
 * offset is 0 by construction, and measuring it would only add the noise of busy cores.
 * Ranks elsewhere do round trips with rank 0; the tightest gives offset = t0_mid - t_rank.
 */
/*
 * Waits for a receive without spinning: a rank waiting for its turn would otherwise take the
 * CPU from the two ranks measuring a round trip (ranks are often more than cores), and a
 * round trip with a descheduled end is long, which makes the offset less certain.
 */
static void wait_politely(void *buf, int count, MPI_Datatype type, int tag)
{
	MPI_Request req;
	int done = 0;
	PMPI_Irecv(buf, count, type, 0, tag, MPI_COMM_WORLD, &req);
	while (PMPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		struct timespec ts = {0, 20000};
		nanosleep(&ts, NULL);
	}
}

static void sync_clocks(void)
{
	/* Under load a round trip is often slow on one leg; more rounds find a tight one. When
	 * none of the first ROUNDS was tight (both ends running: under TIGHT seconds), rank 0
	 * goes on, up to MAX_ROUNDS, and then tells the other end to stop (STOP). */
	enum { ROUNDS = 32, MAX_ROUNDS = 2048 };
	const double TIGHT = 100e-6;
	const uint64_t STOP = UINT64_MAX;
	/* Which ranks are elsewhere, and which rank measures for each: with the hosts libvt
	 * gathered once at MPI_Init (when every rank has them: one reduction to agree), the
	 * lowest rank of each host measures and its offset is every rank's there (they read one
	 * clock, so messages between them never run backwards, whatever the measurement's
	 * error); else each rank measures for itself, told apart by processor name. */
	int known = vt_mpi_host_of(world_rank) >= 0, all_known = 0;
	PMPI_Allreduce(&known, &all_known, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	int *remotes = calloc((size_t)world_size, sizeof(int));
	int *measurer = calloc((size_t)world_size, sizeof(int));
	int remote = 0;
	if (!remotes || !measurer)
		all_known = 0; /* the same on every rank only if every rank ran out: see below */
	if (all_known) {
		for (int r = 0; r < world_size; r++) {
			remotes[r] = vt_mpi_host_of(r) != vt_mpi_host_of(0);
			measurer[r] = r;
			for (int q = 0; q < r; q++) {
				if (vt_mpi_host_of(q) == vt_mpi_host_of(r)) {
					measurer[r] = q;
					break;
				}
			}
		}
		remote = remotes[world_rank];
	} else {
		char host[MPI_MAX_PROCESSOR_NAME] = "", root[MPI_MAX_PROCESSOR_NAME] = "";
		int len = 0;
		PMPI_Get_processor_name(host, &len);
		memcpy(root, host, sizeof(root));
		PMPI_Bcast(root, (int)sizeof(root), MPI_CHAR, 0, MPI_COMM_WORLD);
		remote = strcmp(host, root) != 0;
		int ignored;
		PMPI_Gather(&remote, 1, MPI_INT, remotes ? remotes : &ignored, 1, MPI_INT, 0,
			    MPI_COMM_WORLD);
		for (int r = 0; measurer && r < world_size; r++)
			measurer[r] = r;
	}

	if (world_rank == 0) {
		for (int r = 1; remotes && measurer && r < world_size; r++) {
			if (!remotes[r] || measurer[r] != r)
				continue;
			uint64_t best_rtt = UINT64_MAX;
			int64_t best = 0;
			double best_s = 1e9;
			for (int i = 0;; i++) {
				if (i >= MAX_ROUNDS || (i >= ROUNDS && best_s <= TIGHT)) {
					PMPI_Send(&STOP, 1, MPI_UINT64_T, r, 0x7654,
						  MPI_COMM_WORLD);
					break;
				}
				double w1 = PMPI_Wtime();
				uint64_t t1 = vt_mpi_now(), tr;
				PMPI_Send(&t1, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD);
				PMPI_Recv(&tr, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE);
				uint64_t t2 = vt_mpi_now();
				double w2 = PMPI_Wtime();
				if (t2 - t1 < best_rtt) {
					best_rtt = t2 - t1;
					best_s = w2 - w1;
					best = (int64_t)(t1 + (t2 - t1) / 2) - (int64_t)tr;
				}
			}
			/* The offset and its uncertainty: half the tightest round trip. */
			int64_t result[2] = {best, (int64_t)(best_rtt / 2)};
			for (int q = r; q < world_size; q++)
				if (remotes[q] && measurer[q] == r)
					PMPI_Send(result, 2, MPI_INT64_T, q, 0x7655,
						  MPI_COMM_WORLD);
		}
	} else if (remote) {
		if (!all_known || measurer[world_rank] == world_rank) {
			for (int i = 0;; i++) {
				uint64_t t;
				/* Rank 0 may be measuring other hosts first. */
				if (i == 0)
					wait_politely(&t, 1, MPI_UINT64_T, 0x7654);
				else
					PMPI_Recv(&t, 1, MPI_UINT64_T, 0, 0x7654, MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE);
				if (t == STOP)
					break;
				t = vt_mpi_now();
				PMPI_Send(&t, 1, MPI_UINT64_T, 0, 0x7654, MPI_COMM_WORLD);
			}
		}
		int64_t result[2];
		wait_politely(result, 2, MPI_INT64_T, 0x7655);
		vt_mpi_clock_offset(vt_mpi_now(), result[0], (double)result[1]);
	}
	if (!remote)
		vt_mpi_clock_offset(vt_mpi_now(), 0, 0.0);
	free(remotes);
	free(measurer);
}

static void after_init(void)
{
	PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
	ops.rank = world_rank;
	ops.size = world_size;
	vt_mpi_attach(&ops);
	comm_add(MPI_COMM_WORLD, VT_MPI_KEY_WORLD, "MPI_COMM_WORLD");
	comm_add(MPI_COMM_SELF, VT_MPI_KEY_SELF, "MPI_COMM_SELF");
	PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
	sync_clocks();
}

VTW_EXPORT int MPI_Init(int *argc, char ***argv)
{
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init);
	int ret = PMPI_Init(argc, argv);
	if (ret == MPI_SUCCESS)
		after_init();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init);
	return ret;
}

VTW_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init_thread);
	int ret = PMPI_Init_thread(argc, argv, required, provided);
	if (ret == MPI_SUCCESS)
		after_init();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init_thread);
	return ret;
}

/* The trace is written here, while MPI still works; MPI_Finalize's own Leave is that of
 * every region still open: the end of the trace. */
VTW_EXPORT int MPI_Finalize(void)
{
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Finalize);
	sync_clocks();
	vt_mpi_detach();
	return PMPI_Finalize();
}

/* This rank writes what it has into an archive of its own, without MPI (the other ranks
 * are not there to write the run's), then MPI ends the job as without vt. MPI_Abort's own
 * Leave is that of every region still open. */
VTW_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Abort);
	vt_mpi_abort(errorcode);
	return PMPI_Abort(comm, errorcode);
}

/* -- what the Fortran wrappers (vt-*-fortran.c, from gen-fortran.py) share ---------- */

void vtw_request_done(uint64_t handle, const MPI_Status *status)
{
	request_completed(handle, status);
}

void vtw_received(const MPI_Status *status, MPI_Comm comm)
{
	received(status, comm);
}

void vtw_initialized(void)
{
	after_init();
}

void vtw_finalizing(void)
{
	sync_clocks();
	vt_mpi_detach();
}

void vtw_aborting(int errorcode)
{
	vt_mpi_abort(errorcode);
}
