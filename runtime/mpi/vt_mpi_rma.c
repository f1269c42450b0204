/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided communication: windows, their operations until completed, epochs and locks. */
#include "vt_mpi_adapter.h"
#include "vt_mpi_maps.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* An operation in flight: until a synchronization completes it remotely, or a Get until
 * one completes it locally (its data arrived: nothing remains to complete). */
struct rma_op {
	uint64_t id;
	int target;
	bool local; /* completed locally already (flush_local) */
	bool get;
};

/* What vt knows of a window; by handle in wins.map, under wins.lock. */
struct win_state {
	uint32_t id;		   /* local window id */
	bool allocated;		   /* MPI allocated its memory: freed with it */
	uint32_t access, exposure; /* the group ids of the PSCW epochs, UINT32_MAX: none */
	struct rma_op *ops;
	size_t n_ops, cap_ops;
	size_t lo; /* ops[0..lo) are completed locally: a flush_local starts after them */
};

/* map: the windows by handle; ids: the last operation's matching id; world: the group of
 * MPI_COMM_WORLD, against which the groups of epochs are named (world ranks). */
static struct {
	struct vt_u64map map;
	pthread_mutex_t lock;
	uint64_t ids;
	MPI_Group world;
} wins = {.lock = PTHREAD_MUTEX_INITIALIZER, .world = MPI_GROUP_NULL};

void vtw_rma_attach(void)
{
	PMPI_Comm_group(MPI_COMM_WORLD, &wins.world);
}

void vtw_win_created(MPI_Win win, MPI_Comm comm, const char *fn, int allocated, uint64_t t0)
{
	if (win == MPI_WIN_NULL)
		return;
	/* Collective over comm, as a communicator's key: its rank 0 makes it. */
	uint64_t key = vtw_key_new(VTW_KEY_WIN);
	int inter = 0;
	PMPI_Comm_test_inter(comm, &inter);
	if (!inter)
		PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, comm);
	uint32_t cid = vtw_comm(comm);
	char name[VT_COMM_NAME_MAX];
	vtw_comm_derived_name(name, sizeof(name), fn, "on", cid);
	uint32_t id = vt_mpi_win_define(key, cid, name);
	struct win_state *w = calloc(1, sizeof(*w));
	if (id == UINT32_MAX || !w) {
		free(w);
		return;
	}
	w->id = id;
	w->allocated = allocated;
	w->access = w->exposure = UINT32_MAX;
	pthread_mutex_lock(&wins.lock);
	if (vt_u64map_set(&wins.map, VTW_BITS(win), w) < 0) {
		free(w);
		w = NULL;
	}
	pthread_mutex_unlock(&wins.lock);
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
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_del(&wins.map, handle);
	pthread_mutex_unlock(&wins.lock);
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
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_get(&wins.map, VTW_BITS(win));
	uint32_t id = w ? w->id : UINT32_MAX;
	pthread_mutex_unlock(&wins.lock);
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
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_get(&wins.map, VTW_BITS(win));
	uint64_t id = ++wins.ids;
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
		w->ops[w->n_ops++] = (struct rma_op){id, target, false, kind == VT_REC_RMA_GET};
	pthread_mutex_unlock(&wins.lock);
	if (wid == UINT32_MAX)
		return;
	vt_mpi_event(0, kind, atomic, kind == VT_REC_RMA_GET ? received : sent, wid,
		     (uint32_t)target, received, id);
	if (req)
		vtw_request_track(*req, VTW_REQ_RMA, id, wid, 0);
}

/*
 * The ids of the operations a synchronization completes (malloc'd): remote, it completes
 * and forgets them; local (flush_local), it completes those not completed locally yet and
 * forgets the Gets among them, so that a Get and a flush_local in a loop keep nothing and
 * each flush_local looks at the operations issued since the last one only.
 */
static uint64_t *rma_take(struct win_state *w, int target, bool remote, size_t *n)
{
	size_t from = remote ? 0 : w->lo;
	uint64_t *ids = malloc((w->n_ops > from ? w->n_ops - from : 1) * sizeof(*ids));
	size_t k = 0, keep = from;
	for (size_t i = from; i < w->n_ops; i++) {
		struct rma_op *o = &w->ops[i];
		bool mine = target == VTW_RMA_ALL || o->target == target;
		if (mine && ids && (remote || !o->local))
			ids[k++] = o->id;
		if (mine && !remote)
			o->local = true;
		if (!(mine && (remote || o->get)))
			w->ops[keep++] = *o;
	}
	w->n_ops = keep;
	if (remote)
		w->lo = 0;
	while (w->lo < w->n_ops && w->ops[w->lo].local)
		w->lo++;
	*n = k;
	return ids;
}

void vtw_rma_sync(MPI_Win win, enum vtw_rma_sync how, int target, uint64_t t0)
{
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_get(&wins.map, VTW_BITS(win));
	size_t n = 0;
	uint64_t *ids = w ? rma_take(w, target, how != VTW_FLUSH_LOCAL, &n) : NULL;
	uint32_t wid = w ? w->id : UINT32_MAX;
	pthread_mutex_unlock(&wins.lock);
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
		if (PMPI_Group_translate_ranks(g, n, in, wins.world, out) == MPI_SUCCESS) {
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
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_get(&wins.map, VTW_BITS(win));
	uint32_t wid = w ? w->id : UINT32_MAX;
	if (w)
		*(access ? &w->access : &w->exposure) = gid;
	pthread_mutex_unlock(&wins.lock);
	if (wid != UINT32_MAX)
		group_sync(wid, gid);
}

void vtw_rma_epoch_end(MPI_Win win, int access)
{
	pthread_mutex_lock(&wins.lock);
	struct win_state *w = vt_u64map_get(&wins.map, VTW_BITS(win));
	uint32_t wid = w ? w->id : UINT32_MAX, gid = UINT32_MAX;
	if (w) {
		gid = access ? w->access : w->exposure;
		*(access ? &w->access : &w->exposure) = UINT32_MAX;
	}
	pthread_mutex_unlock(&wins.lock);
	if (wid != UINT32_MAX)
		group_sync(wid, gid);
}
