/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks the generated wrappers call before and after each PMPI call. */
/*
 * What the generated wrappers call around each PMPI call: vtw_HOOK_pre(args) before,
 * vtw_HOOK_post(&call, ret, args) after. Each records the MPI events of its function the way
 * OTF2 models them; peers and roots are ranks in the communicator, sizes are bytes.
 */
#ifndef VT_MPI_HOOKS_H
#define VT_MPI_HOOKS_H

#include "mpi/vt_mpi_iface.h"
#include "record/vt_rec.h"
#include "vt/vt_inst.h"

#include <limits.h>
#include <mpi.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <stdbool.h>
#include <string.h>

#define VTW_EXPORT __attribute__((visibility("default")))
#define VTW_HIDDEN __attribute__((visibility("hidden")))

/* One region descriptor per MPI function: paradigm MPI and the function's role. */
#define VTW_DESC(fn, name, role)                                                                   \
	VTW_HIDDEN struct vt_inst_desc vtw_desc_##fn = {                                           \
	    0, VT_INST_ABI, name, NULL, 0, ((uint32_t)OTF2_PARADIGM_MPI << 8) | (role)}

/* The bits of an MPI handle (a pointer in Open MPI, an int in MPICH) as a map key. */
static inline uint64_t vtw_bits(const void *handle, size_t size)
{
	uint64_t h = 0;
	memcpy(&h, handle, size < sizeof(h) ? size : sizeof(h));
	return h;
}
#define VTW_BITS(handle) vtw_bits(&(handle), sizeof(handle))

/* What a pre hook hands its post hook. */
struct vtw_call {
	uint64_t bytes;
	uint32_t comm;
	int root_or_rank;
	uint64_t t0; /* when the call began: a send is stamped then, not when MPI returns */
	uint64_t id; /* an I/O operation's matching id */
};

/*
 * VT_MPITRACE=yes (and vt on at MPI_Init): the wrapper is more than the PMPI call. Not
 * whether this thread records: a rank whose recording stopped (VT_MAX_FLUSHES, a full
 * disk) or was paused must still take part in what the hooks do collectively (the keys of
 * new communicators, windows and files are agreed with a broadcast over them), or the
 * other ranks wait forever, or worse, meet the program's next broadcast. Where the thread
 * does not record, the events (vt_mpi_iface.h) and regions are simply not written.
 */
VTW_HIDDEN extern int vtw_mpitrace;
static inline int vtw_tracing(void)
{
	return vtw_mpitrace;
}

/*
 * The groups of MPI functions recorded (VT_MPI_GROUPS, enum vt_mpi_group), 0 when not
 * tracing: a wrapper whose group is off calls PMPI after one load and a branch. Hooks that
 * keep what vt needs (communicators, requests) and the completions run whenever tracing,
 * their region written only where their group is on (vtw_rec_enter).
 */
VTW_HIDDEN extern uint32_t vtw_on;
static inline void vtw_rec_enter(uint32_t group, struct vt_inst_desc *d)
{
	if (vtw_on & group)
		vt_inst_enter(d);
}
static inline void vtw_rec_exit(uint32_t group, struct vt_inst_desc *d)
{
	if (vtw_on & group)
		vt_inst_exit(d);
}

/* State shared by the hooks and the hand-written wrappers (vt_mpi_*.c). */

/*
 * The local id of a communicator, and the bytes of count elements of a datatype. Most calls
 * use the communicator and the (predefined) datatype of the thread's previous call: each
 * thread remembers its last look-up, and that answer is inline (no call, no lock); the rest
 * is vtw_comm_lookup and vtw_bytes_lookup. Any change of the communicator map (one made or
 * freed, so a handle may come back for another one) bumps vtw_comm_generation and makes
 * every thread's memory stale; a datatype is remembered only when predefined (never freed).
 */
struct vtw_comm_last {
	uint64_t handle;
	uint32_t id, generation;
};
struct vtw_type_last {
	uint64_t handle;
	uint64_t size;
	bool valid;
};
VTW_HIDDEN extern uint32_t vtw_comm_generation;
VTW_HIDDEN extern __thread struct vtw_comm_last vtw_comm_last
    __attribute__((tls_model("initial-exec")));
VTW_HIDDEN extern __thread struct vtw_type_last vtw_type_last
    __attribute__((tls_model("initial-exec")));
VTW_HIDDEN uint32_t vtw_comm_lookup(MPI_Comm comm);
VTW_HIDDEN uint64_t vtw_bytes_lookup(MPI_Count count, MPI_Datatype type);

static inline uint32_t vtw_comm(MPI_Comm comm)
{
	uint64_t h = VTW_BITS(comm);
	uint32_t gen = __atomic_load_n(&vtw_comm_generation, __ATOMIC_ACQUIRE);
	if (__builtin_expect(vtw_comm_last.handle == h && vtw_comm_last.generation == gen, 1))
		return vtw_comm_last.id;
	return vtw_comm_lookup(comm);
}

static inline uint64_t vtw_bytes(MPI_Count count, MPI_Datatype type)
{
	if (__builtin_expect(
		count > 0 && vtw_type_last.valid && vtw_type_last.handle == VTW_BITS(type), 1))
		return (uint64_t)count * vtw_type_last.size;
	return vtw_bytes_lookup(count, type);
}

/* A communicator made by function fn from parent: defined collectively over it, and named
 * "fn of PARENT" until the program names it. */
VTW_HIDDEN void vtw_comm_created(MPI_Comm newcomm, const char *fn, MPI_Comm parent);
VTW_HIDDEN void vtw_comm_freed(MPI_Comm comm);
VTW_HIDDEN uint64_t vtw_sum_bytes(int n, const int counts[], MPI_Datatype type);
VTW_HIDDEN int vtw_comm_size(MPI_Comm comm);
VTW_HIDDEN int vtw_comm_rank(MPI_Comm comm);
enum vtw_req_kind { VTW_REQ_SEND = 1, VTW_REQ_RECV, VTW_REQ_COLL, VTW_REQ_RMA, VTW_REQ_IO };
/* A request to follow until it completes; persistent ones until freed. */
VTW_HIDDEN uint64_t vtw_request_new(MPI_Request req, int kind, uint32_t comm, int peer, int tag,
				    uint64_t bytes, int persistent);
/* The same for an Isend or Irecv (kind VTW_REQ_SEND or _RECV, not persistent): its id. */
VTW_HIDDEN uint64_t vtw_request_p2p(MPI_Request req, int kind, uint32_t comm, int peer, int tag,
				    uint64_t bytes);
VTW_HIDDEN void vtw_request_started(MPI_Request req);
VTW_HIDDEN void vtw_request_freed(MPI_Request req);
VTW_HIDDEN void vtw_request_cancelled(MPI_Request req);
/* For the Fortran wrappers: what the C wrappers of vt_mpi_req.c and vt_mpi_init.c do by hand. A
 * completed request (its handle's bits before the call), a completed receive, MPI initialised, MPI
 * about to end. */
VTW_HIDDEN void vtw_request_done(uint64_t handle, const MPI_Status *status);
VTW_HIDDEN void vtw_received(const MPI_Status *status, MPI_Comm comm);
VTW_HIDDEN void vtw_initialized(void);
VTW_HIDDEN void vtw_finalizing(void);
/* MPI_Abort: this rank's archive of its own, before MPI ends the job (vt_mpi_abort). */
VTW_HIDDEN void vtw_aborting(int errorcode);

/* Events. */
static inline void vtw_p2p(uint32_t kind, int peer, uint32_t comm, int tag, uint64_t bytes)
{
	vt_mpi_p2p(kind, (uint32_t)peer, comm, (uint32_t)tag, bytes);
}

static const struct vtw_call vtw_none;

/* Blocking sends: the message leaves with the call. MPI_PROC_NULL sends nothing. */
static inline struct vtw_call vtw_send_pre(const void *buf, MPI_Count count, MPI_Datatype type,
					   int dest, int tag, MPI_Comm comm)
{
	(void)buf;
	if (dest != MPI_PROC_NULL)
		vtw_p2p(VT_REC_MPI_SEND, dest, vtw_comm(comm), tag, vtw_bytes(count, type));
	return vtw_none;
}
/* The call's Enter (descriptor d) and vtw_send_pre's event, stamped alike, in one step. */
static inline struct vtw_call vtw_send_enter(struct vt_inst_desc *d, const void *buf,
					     MPI_Count count, MPI_Datatype type, int dest, int tag,
					     MPI_Comm comm)
{
	(void)buf;
	if (dest == MPI_PROC_NULL)
		vt_inst_enter(d);
	else
		vt_mpi_enter_p2p(d, VT_REC_MPI_SEND, (uint32_t)dest, vtw_comm(comm), (uint32_t)tag,
				 vtw_bytes(count, type));
	return vtw_none;
}
static inline void vtw_send_post(struct vtw_call *c, int ret, const void *buf, MPI_Count count,
				 MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	(void)c, (void)ret, (void)buf, (void)count, (void)type, (void)dest, (void)tag, (void)comm;
}

/* Non-blocking sends: MpiIsend with the request's id once the request exists. t0: the
 * call's Enter (the wrapper's vt_mpi_enter). */
static inline struct vtw_call vtw_isend_pre(uint64_t t0, const void *buf, MPI_Count count,
					    MPI_Datatype type, int dest, int tag, MPI_Comm comm,
					    MPI_Request *req)
{
	(void)buf, (void)count, (void)type, (void)dest, (void)tag, (void)comm, (void)req;
	/* The message may arrive before PMPI_Isend returns (a first message on a new
	 * connection): stamped at the call's entry, it is never received before it was sent. */
	struct vtw_call c = vtw_none;
	c.t0 = t0;
	return c;
}
static inline void vtw_isend_post(struct vtw_call *c, int ret, const void *buf, MPI_Count count,
				  MPI_Datatype type, int dest, int tag, MPI_Comm comm,
				  MPI_Request *req)
{
	(void)c, (void)buf;
	if (ret != MPI_SUCCESS || dest == MPI_PROC_NULL)
		return;
	uint32_t cid = vtw_comm(comm);
	uint64_t bytes = vtw_bytes(count, type);
	uint64_t id = vtw_request_p2p(*req, VTW_REQ_SEND, cid, dest, tag, bytes);
	vt_mpi_p2p_request_at(c->t0, VT_REC_MPI_ISEND, (uint32_t)dest, cid, (uint32_t)tag, bytes,
			      id);
}

/* The same and the call's Leave (descriptor d): the Isend and the Leave in one step. */
static inline void vtw_isend_post_leave(struct vtw_call *c, int ret, const void *buf,
					MPI_Count count, MPI_Datatype type, int dest, int tag,
					MPI_Comm comm, MPI_Request *req, struct vt_inst_desc *d)
{
	(void)buf;
	if (ret != MPI_SUCCESS || dest == MPI_PROC_NULL) {
		vt_inst_exit(d);
		return;
	}
	uint32_t cid = vtw_comm(comm);
	uint64_t bytes = vtw_bytes(count, type);
	uint64_t id = vtw_request_p2p(*req, VTW_REQ_SEND, cid, dest, tag, bytes);
	vt_mpi_isend_leave(c->t0, (uint32_t)dest, cid, (uint32_t)tag, bytes, id, d);
}

/* Non-blocking receives: the request now, the message when a Wait/Test completes it. */
static inline struct vtw_call vtw_irecv_pre(uint64_t t0, void *buf, MPI_Count count,
					    MPI_Datatype type, int source, int tag, MPI_Comm comm,
					    MPI_Request *req)
{
	(void)t0, (void)buf, (void)count, (void)type, (void)source, (void)tag, (void)comm,
	    (void)req;
	return vtw_none;
}
static inline void vtw_irecv_post(struct vtw_call *c, int ret, void *buf, MPI_Count count,
				  MPI_Datatype type, int source, int tag, MPI_Comm comm,
				  MPI_Request *req)
{
	(void)c, (void)buf, (void)count, (void)type;
	if (ret != MPI_SUCCESS || source == MPI_PROC_NULL)
		return;
	uint64_t id = vtw_request_p2p(*req, VTW_REQ_RECV, vtw_comm(comm), source, tag, 0);
	vt_mpi_request(VT_REC_MPI_IRECV_REQUEST, id);
}

/* The same and the call's Leave (descriptor d): the IrecvRequest and the Leave in one step. */
static inline void vtw_irecv_post_leave(struct vtw_call *c, int ret, void *buf, MPI_Count count,
					MPI_Datatype type, int source, int tag, MPI_Comm comm,
					MPI_Request *req, struct vt_inst_desc *d)
{
	(void)c, (void)buf, (void)count, (void)type;
	if (ret != MPI_SUCCESS || source == MPI_PROC_NULL) {
		vt_inst_exit(d);
		return;
	}
	uint64_t id = vtw_request_p2p(*req, VTW_REQ_RECV, vtw_comm(comm), source, tag, 0);
	vt_mpi_request_leave(VT_REC_MPI_IRECV_REQUEST, id, d);
}

/* Persistent requests: followed from init to free; each start is an Isend or Irecv. */
static inline struct vtw_call vtw_send_init_pre(const void *buf, MPI_Count count, MPI_Datatype type,
						int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
	(void)buf, (void)count, (void)type, (void)dest, (void)tag, (void)comm, (void)req;
	return vtw_none;
}
static inline void vtw_send_init_post(struct vtw_call *c, int ret, const void *buf, MPI_Count count,
				      MPI_Datatype type, int dest, int tag, MPI_Comm comm,
				      MPI_Request *req)
{
	(void)c, (void)buf;
	if (ret == MPI_SUCCESS && dest != MPI_PROC_NULL)
		vtw_request_new(*req, VTW_REQ_SEND, vtw_comm(comm), dest, tag,
				vtw_bytes(count, type), 1);
}
static inline struct vtw_call vtw_recv_init_pre(void *buf, MPI_Count count, MPI_Datatype type,
						int source, int tag, MPI_Comm comm,
						MPI_Request *req)
{
	(void)buf, (void)count, (void)type, (void)source, (void)tag, (void)comm, (void)req;
	return vtw_none;
}
static inline void vtw_recv_init_post(struct vtw_call *c, int ret, void *buf, MPI_Count count,
				      MPI_Datatype type, int source, int tag, MPI_Comm comm,
				      MPI_Request *req)
{
	(void)c, (void)buf, (void)count, (void)type;
	if (ret == MPI_SUCCESS && source != MPI_PROC_NULL)
		vtw_request_new(*req, VTW_REQ_RECV, vtw_comm(comm), source, tag, 0, 1);
}
static inline struct vtw_call vtw_start_pre(MPI_Request *req)
{
	vtw_request_started(*req);
	return vtw_none;
}
static inline void vtw_start_post(struct vtw_call *c, int ret, MPI_Request *req)
{
	(void)c, (void)ret, (void)req;
}
static inline struct vtw_call vtw_startall_pre(int n, MPI_Request reqs[])
{
	for (int i = 0; i < n; i++)
		vtw_request_started(reqs[i]);
	return vtw_none;
}
static inline void vtw_startall_post(struct vtw_call *c, int ret, int n, MPI_Request reqs[])
{
	(void)c, (void)ret, (void)n, (void)reqs;
}
static inline struct vtw_call vtw_request_free_pre(MPI_Request *req)
{
	vtw_request_freed(*req);
	return vtw_none;
}
static inline void vtw_request_free_post(struct vtw_call *c, int ret, MPI_Request *req)
{
	(void)c, (void)ret, (void)req;
}
static inline struct vtw_call vtw_cancel_pre(MPI_Request *req)
{
	vtw_request_cancelled(*req);
	return vtw_none;
}
static inline void vtw_cancel_post(struct vtw_call *c, int ret, MPI_Request *req)
{
	(void)c, (void)ret, (void)req;
}

/* The hooks of the other families, one header each. */
#include "vt_mpi_hooks_coll.h"
#include "vt_mpi_hooks_comm.h"
#include "vt_mpi_hooks_io.h"
#include "vt_mpi_hooks_rma.h"

#endif
