/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks of one-sided communication: windows, operations, synchronisation. */
#ifndef VT_MPI_HOOKS_RMA_H
#define VT_MPI_HOOKS_RMA_H

#include "vt_mpi_hooks.h"

/*
 * One-sided communication (vt_mpi_rma.c keeps each window's operations until a synchronization
 * completes them). An operation is RmaPut, RmaGet or RmaAtomic with a matching id, once the
 * call returned; it completes remotely (RmaOpCompleteRemote) at the fence, flush, unlock or
 * complete that covers its target, locally (RmaOpCompleteBlocking) at a flush_local, and a
 * request-based one (MPI_Rput, ...) locally (RmaOpCompleteNonBlocking) at the Wait or Test
 * that completes its request. Window creation and MPI_Win_free are RMA collectives around
 * RmaWinCreate and RmaWinDestroy, a fence one with PROCESS and MEMORY synchronization;
 * post, start, complete and wait are RmaGroupSync with the group of the epoch; MPI_Win_lock
 * is RmaRequestLock (MPI may grant it later), MPI_Win_unlock RmaReleaseLock.
 * Bytes: what the origin buffer gives (sent) and takes (received): a Get receives its
 * origin count, a Get_accumulate also sends (none for MPI_NO_OP), Fetch_and_op sends and
 * receives one element, Compare_and_swap sends two (value and comparand) and receives one.
 */
enum vtw_rma_sync { VTW_FENCE, VTW_FLUSH, VTW_FLUSH_LOCAL, VTW_UNLOCK, VTW_COMPLETE };
/* "Every target": not a rank, and not MPI_PROC_NULL (-1 in MPICH). */
#define VTW_RMA_ALL INT_MIN
VTW_HIDDEN void vtw_win_created(MPI_Win win, MPI_Comm comm, const char *fn, int allocated,
				uint64_t t0);
VTW_HIDDEN void vtw_win_freed(uint64_t handle, uint64_t t0);
VTW_HIDDEN void vtw_win_named(MPI_Win win, const char *name);
/* An operation on win to target: kind VT_REC_RMA_PUT, _GET or _ATOMIC (of type atomic);
 * req: its request (MPI_Rput, ...) or NULL. */
VTW_HIDDEN void vtw_rma_op(MPI_Win win, uint32_t kind, uint32_t atomic, int target, uint64_t sent,
			   uint64_t received, const MPI_Request *req);
/* A synchronization of win that completes the operations to target (or VTW_RMA_ALL). */
VTW_HIDDEN void vtw_rma_sync(MPI_Win win, enum vtw_rma_sync how, int target, uint64_t t0);
VTW_HIDDEN void vtw_rma_lock(MPI_Win win, int target, int lock_type, int release);
/* PSCW: start (access) or post (exposure) with group; complete, wait or a successful test. */
VTW_HIDDEN void vtw_rma_epoch(MPI_Win win, MPI_Group group, int access);
VTW_HIDDEN void vtw_rma_epoch_end(MPI_Win win, int access);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static inline struct vtw_call vtw_t0_pre(void)
{
	struct vtw_call c = vtw_none;
	c.t0 = vt_mpi_now();
	return c;
}

#define VTW_RMA_PRE(hook, ...)                                                                     \
	static inline struct vtw_call vtw_##hook##_pre(__VA_ARGS__)                                \
	{                                                                                          \
		return vtw_t0_pre();                                                               \
	}

VTW_RMA_PRE(put, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
	    MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
static inline void vtw_put_post(struct vtw_call *c, int ret, const void *oaddr, MPI_Count ocount,
				MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
				MPI_Datatype ttype, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_PUT, 0, target, vtw_bytes(ocount, otype), 0, NULL);
}
VTW_RMA_PRE(rput, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
	    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
static inline void vtw_rput_post(struct vtw_call *c, int ret, const void *oaddr, MPI_Count ocount,
				 MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
				 MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_PUT, 0, target, vtw_bytes(ocount, otype), 0, req);
}
VTW_RMA_PRE(get, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
	    MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
static inline void vtw_get_post(struct vtw_call *c, int ret, void *oaddr, MPI_Count ocount,
				MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
				MPI_Datatype ttype, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_GET, 0, target, 0, vtw_bytes(ocount, otype), NULL);
}
VTW_RMA_PRE(rget, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
	    MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
static inline void vtw_rget_post(struct vtw_call *c, int ret, void *oaddr, MPI_Count ocount,
				 MPI_Datatype otype, int target, MPI_Aint disp, MPI_Count tcount,
				 MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_GET, 0, target, 0, vtw_bytes(ocount, otype), req);
}
VTW_RMA_PRE(accumulate, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
	    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
static inline void vtw_accumulate_post(struct vtw_call *c, int ret, const void *oaddr,
				       MPI_Count ocount, MPI_Datatype otype, int target,
				       MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
				       MPI_Op op, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, target,
			   vtw_bytes(ocount, otype), 0, NULL);
}
VTW_RMA_PRE(raccumulate, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
	    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
	    MPI_Request *req)
static inline void vtw_raccumulate_post(struct vtw_call *c, int ret, const void *oaddr,
					MPI_Count ocount, MPI_Datatype otype, int target,
					MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
					MPI_Op op, MPI_Win win, MPI_Request *req)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, target,
			   vtw_bytes(ocount, otype), 0, req);
}
VTW_RMA_PRE(get_accumulate, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, void *raddr,
	    MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount,
	    MPI_Datatype ttype, MPI_Op op, MPI_Win win)
static inline void vtw_get_accumulate_post(struct vtw_call *c, int ret, const void *oaddr,
					   MPI_Count ocount, MPI_Datatype otype, void *raddr,
					   MPI_Count rcount, MPI_Datatype rtype, int target,
					   MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
					   MPI_Op op, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE,
			   target, op == MPI_NO_OP ? 0 : vtw_bytes(ocount, otype),
			   vtw_bytes(rcount, rtype), NULL);
}
VTW_RMA_PRE(rget_accumulate, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, void *raddr,
	    MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount,
	    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
static inline void vtw_rget_accumulate_post(struct vtw_call *c, int ret, const void *oaddr,
					    MPI_Count ocount, MPI_Datatype otype, void *raddr,
					    MPI_Count rcount, MPI_Datatype rtype, int target,
					    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
					    MPI_Op op, MPI_Win win, MPI_Request *req)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE,
			   target, op == MPI_NO_OP ? 0 : vtw_bytes(ocount, otype),
			   vtw_bytes(rcount, rtype), req);
}
VTW_RMA_PRE(fetch_and_op, const void *oaddr, void *raddr, MPI_Datatype type, int target,
	    MPI_Aint disp, MPI_Op op, MPI_Win win)
static inline void vtw_fetch_and_op_post(struct vtw_call *c, int ret, const void *oaddr,
					 void *raddr, MPI_Datatype type, int target, MPI_Aint disp,
					 MPI_Op op, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE,
			   target, op == MPI_NO_OP ? 0 : vtw_bytes(1, type), vtw_bytes(1, type),
			   NULL);
}
VTW_RMA_PRE(compare_and_swap, const void *oaddr, const void *caddr, void *raddr, MPI_Datatype type,
	    int target, MPI_Aint disp, MPI_Win win)
static inline void vtw_compare_and_swap_post(struct vtw_call *c, int ret, const void *oaddr,
					     const void *caddr, void *raddr, MPI_Datatype type,
					     int target, MPI_Aint disp, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_op(win, VT_REC_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, target,
			   vtw_bytes(2, type), vtw_bytes(1, type), NULL);
}

/* Windows made and freed. */
VTW_RMA_PRE(win_create, void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
	    MPI_Win *win)
static inline void vtw_win_create_post(struct vtw_call *c, int ret, void *base, MPI_Aint size,
				       int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	if (ret == MPI_SUCCESS)
		vtw_win_created(*win, comm, "MPI_Win_create", 0, c->t0);
}
VTW_RMA_PRE(win_allocate, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *base,
	    MPI_Win *win)
static inline void vtw_win_allocate_post(struct vtw_call *c, int ret, MPI_Aint size, int disp_unit,
					 MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win)
{
	if (ret == MPI_SUCCESS)
		vtw_win_created(*win, comm, "MPI_Win_allocate", 1, c->t0);
}
VTW_RMA_PRE(win_allocate_shared, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
	    void *base, MPI_Win *win)
static inline void vtw_win_allocate_shared_post(struct vtw_call *c, int ret, MPI_Aint size,
						int disp_unit, MPI_Info info, MPI_Comm comm,
						void *base, MPI_Win *win)
{
	if (ret == MPI_SUCCESS)
		vtw_win_created(*win, comm, "MPI_Win_allocate_shared", 1, c->t0);
}
VTW_RMA_PRE(win_create_dynamic, MPI_Info info, MPI_Comm comm, MPI_Win *win)
static inline void vtw_win_create_dynamic_post(struct vtw_call *c, int ret, MPI_Info info,
					       MPI_Comm comm, MPI_Win *win)
{
	if (ret == MPI_SUCCESS)
		vtw_win_created(*win, comm, "MPI_Win_create_dynamic", 0, c->t0);
}
/* MPI_Win_free sets the handle to MPI_WIN_NULL: its bits are kept before the call. */
static inline struct vtw_call vtw_win_free_pre(MPI_Win *win)
{
	struct vtw_call c = vtw_t0_pre();
	c.bytes = VTW_BITS(*win);
	return c;
}
static inline void vtw_win_free_post(struct vtw_call *c, int ret, MPI_Win *win)
{
	if (ret == MPI_SUCCESS)
		vtw_win_freed(c->bytes, c->t0);
}
VTW_RMA_PRE(win_set_name, MPI_Win win, const char *name)
static inline void vtw_win_set_name_post(struct vtw_call *c, int ret, MPI_Win win, const char *name)
{
	if (ret == MPI_SUCCESS)
		vtw_win_named(win, name);
}

/* Synchronization. */
VTW_RMA_PRE(win_fence, int assert_, MPI_Win win)
static inline void vtw_win_fence_post(struct vtw_call *c, int ret, int assert_, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_sync(win, VTW_FENCE, VTW_RMA_ALL, c->t0);
}
#define VTW_RMA_SYNC(hook, HOW, target, ...)                                                       \
	VTW_RMA_PRE(hook, __VA_ARGS__)                                                             \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, __VA_ARGS__)             \
	{                                                                                          \
		if (ret == MPI_SUCCESS)                                                            \
			vtw_rma_sync(win, HOW, target, c->t0);                                     \
	}
VTW_RMA_SYNC(win_flush, VTW_FLUSH, rank, int rank, MPI_Win win)
VTW_RMA_SYNC(win_flush_all, VTW_FLUSH, VTW_RMA_ALL, MPI_Win win)
VTW_RMA_SYNC(win_flush_local, VTW_FLUSH_LOCAL, rank, int rank, MPI_Win win)
VTW_RMA_SYNC(win_flush_local_all, VTW_FLUSH_LOCAL, VTW_RMA_ALL, MPI_Win win)

static inline struct vtw_call vtw_win_lock_pre(int type, int rank, int assert_, MPI_Win win)
{
	vtw_rma_lock(win, rank, type, 0);
	return vtw_none;
}
static inline void vtw_win_lock_post(struct vtw_call *c, int ret, int type, int rank, int assert_,
				     MPI_Win win)
{
}
static inline struct vtw_call vtw_win_lock_all_pre(int assert_, MPI_Win win)
{
	vtw_rma_lock(win, VTW_RMA_ALL, MPI_LOCK_SHARED, 0);
	return vtw_none;
}
static inline void vtw_win_lock_all_post(struct vtw_call *c, int ret, int assert_, MPI_Win win)
{
}
static inline struct vtw_call vtw_win_unlock_pre(int rank, MPI_Win win)
{
	return vtw_t0_pre();
}
static inline void vtw_win_unlock_post(struct vtw_call *c, int ret, int rank, MPI_Win win)
{
	if (ret == MPI_SUCCESS) {
		vtw_rma_sync(win, VTW_UNLOCK, rank, c->t0);
		vtw_rma_lock(win, rank, 0, 1);
	}
}
static inline struct vtw_call vtw_win_unlock_all_pre(MPI_Win win)
{
	return vtw_t0_pre();
}
static inline void vtw_win_unlock_all_post(struct vtw_call *c, int ret, MPI_Win win)
{
	if (ret == MPI_SUCCESS) {
		vtw_rma_sync(win, VTW_UNLOCK, VTW_RMA_ALL, c->t0);
		vtw_rma_lock(win, VTW_RMA_ALL, 0, 1);
	}
}

/* General active target: the epoch's group at post and start, and at its end. */
static inline struct vtw_call vtw_win_post_pre(MPI_Group group, int assert_, MPI_Win win)
{
	return vtw_none;
}
static inline void vtw_win_post_post(struct vtw_call *c, int ret, MPI_Group group, int assert_,
				     MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_epoch(win, group, 0);
}
static inline struct vtw_call vtw_win_start_pre(MPI_Group group, int assert_, MPI_Win win)
{
	return vtw_none;
}
static inline void vtw_win_start_post(struct vtw_call *c, int ret, MPI_Group group, int assert_,
				      MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_epoch(win, group, 1);
}
VTW_RMA_PRE(win_complete, MPI_Win win)
static inline void vtw_win_complete_post(struct vtw_call *c, int ret, MPI_Win win)
{
	if (ret == MPI_SUCCESS) {
		vtw_rma_sync(win, VTW_COMPLETE, VTW_RMA_ALL, c->t0);
		vtw_rma_epoch_end(win, 1);
	}
}
static inline struct vtw_call vtw_win_wait_pre(MPI_Win win)
{
	return vtw_none;
}
static inline void vtw_win_wait_post(struct vtw_call *c, int ret, MPI_Win win)
{
	if (ret == MPI_SUCCESS)
		vtw_rma_epoch_end(win, 0);
}
static inline struct vtw_call vtw_win_test_pre(MPI_Win win, int *flag)
{
	return vtw_none;
}
static inline void vtw_win_test_post(struct vtw_call *c, int ret, MPI_Win win, int *flag)
{
	if (ret == MPI_SUCCESS && *flag)
		vtw_rma_epoch_end(win, 0);
}

#pragma GCC diagnostic pop

#endif
