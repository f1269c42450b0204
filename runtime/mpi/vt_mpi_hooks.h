/* SPDX-License-Identifier: BSD-3-Clause */
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
static inline void vtw_send_post(struct vtw_call *c, int ret, const void *buf, MPI_Count count,
				 MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	(void)c, (void)ret, (void)buf, (void)count, (void)type, (void)dest, (void)tag, (void)comm;
}

/* Non-blocking sends: MpiIsend with the request's id once the request exists. */
static inline struct vtw_call vtw_isend_pre(const void *buf, MPI_Count count, MPI_Datatype type,
					    int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
	(void)buf, (void)count, (void)type, (void)dest, (void)tag, (void)comm, (void)req;
	/* The message may arrive before PMPI_Isend returns (a first message on a new
	 * connection): stamped at the call's entry, it is never received before it was sent. */
	struct vtw_call c = vtw_none;
	c.t0 = vt_mpi_now();
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
	uint64_t id = vtw_request_new(*req, VTW_REQ_SEND, cid, dest, tag, bytes, 0);
	vt_mpi_p2p_request_at(c->t0, VT_REC_MPI_ISEND, (uint32_t)dest, cid, (uint32_t)tag, bytes,
			      id);
}

/* Non-blocking receives: the request now, the message when a Wait/Test completes it. */
static inline struct vtw_call vtw_irecv_pre(void *buf, MPI_Count count, MPI_Datatype type,
					    int source, int tag, MPI_Comm comm, MPI_Request *req)
{
	(void)buf, (void)count, (void)type, (void)source, (void)tag, (void)comm, (void)req;
	return vtw_none;
}
static inline void vtw_irecv_post(struct vtw_call *c, int ret, void *buf, MPI_Count count,
				  MPI_Datatype type, int source, int tag, MPI_Comm comm,
				  MPI_Request *req)
{
	(void)c, (void)buf, (void)count, (void)type;
	if (ret != MPI_SUCCESS || source == MPI_PROC_NULL)
		return;
	uint64_t id = vtw_request_new(*req, VTW_REQ_RECV, vtw_comm(comm), source, tag, 0, 0);
	vt_mpi_request(VT_REC_MPI_IRECV_REQUEST, id);
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

/*
 * Collectives. Each has a measure, vtw_m_NAME(the blocking form's arguments): its operation,
 * communicator, root and the bytes this rank's buffers give and take (MPI_IN_PLACE counted
 * like the buffer it stands for). The generated wrappers call it after the call returned:
 *   blocking      vtw_coll_done: CollectiveBegin at the call's start and CollectiveEnd now,
 *                 written in one step (mpi.spec hook "coll:NAME");
 *   non-blocking  vtw_nbc_issued: NonBlockingCollectiveRequest stamped at the call's start
 *                 (the other ranks may complete it before this one's call returns), the request
 * followed to the Wait/Test that completes it, where NonBlockingCollectiveComplete carries the
 * measure ("icoll:NAME"; the arguments less the request); persistent    the same from each
 * MPI_Start ("pcoll:NAME"; less the info and request). Neighbourhood collectives have no operation
 * of their own in OTF2: they are recorded as the all-gather or all-to-all they are on the
 * topology's neighbours, with the bytes actually moved (an MPI_PROC_NULL neighbour of a Cartesian
 * topology moves none).
 */
struct vtw_coll {
	uint32_t op, comm;
	int root; /* -1: none */
	uint64_t sent, received;
};

static inline struct vtw_coll vtw_coll_of(OTF2_CollectiveOp op, MPI_Comm comm, int root,
					  uint64_t sent, uint64_t received)
{
	struct vtw_coll c = {(uint32_t)op, vtw_comm(comm), root, sent, received};
	return c;
}

static inline uint32_t vtw_root(int root)
{
	return root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
}

static inline void vtw_coll_done(uint64_t t0, struct vtw_coll c)
{
	vt_mpi_coll(t0, c.op, c.comm, vtw_root(c.root), c.sent, c.received);
}

/* The same and the call's Leave (the generated wrappers of blocking collectives). */
static inline void vtw_coll_done_leave(uint64_t t0, struct vtw_coll c, struct vt_inst_desc *d)
{
	vt_mpi_coll_leave(t0, c.op, c.comm, vtw_root(c.root), c.sent, c.received, d);
}

/* A non-blocking or persistent collective's request: followed until it completes. */
VTW_HIDDEN void vtw_nbc_issued(MPI_Request req, struct vtw_coll c, int persistent, uint64_t t0);

/* The bytes a rank moves to (out) or from (!out) its topology neighbours: per neighbour
 * counts[i] (or count) elements of types[i] (or type). */
VTW_HIDDEN uint64_t vtw_neighbor_bytes(MPI_Comm comm, int out, MPI_Count count, const int counts[],
				       MPI_Datatype type, const MPI_Datatype types[]);
/* The larger of a rank's in- and out-degree (for converting Fortran arrays). */
VTW_HIDDEN int vtw_neighbor_max(MPI_Comm comm);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static inline struct vtw_coll vtw_m_barrier(MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
}

static inline struct vtw_coll vtw_m_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
					  MPI_Comm comm)
{
	uint64_t n = vtw_bytes(count, type);
	int me = vtw_comm_rank(comm) == root;
	return vtw_coll_of(OTF2_COLLECTIVE_OP_BCAST, comm, root, me ? n : 0, me ? 0 : n);
}

static inline struct vtw_coll vtw_m_gather(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
					   void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
					   int root, MPI_Comm comm)
{
	int me = vtw_comm_rank(comm) == root;
	uint64_t sent = sbuf == MPI_IN_PLACE ? vtw_bytes(rcount, rtype) : vtw_bytes(scount, stype);
	uint64_t recvd = me ? vtw_bytes(rcount, rtype) * (uint64_t)vtw_comm_size(comm) : 0;
	return vtw_coll_of(OTF2_COLLECTIVE_OP_GATHER, comm, root, sent, recvd);
}

static inline struct vtw_coll vtw_m_gatherv(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
					    void *rbuf, const int rcounts[], const int displs[],
					    MPI_Datatype rtype, int root, MPI_Comm comm)
{
	int me = vtw_comm_rank(comm) == root;
	uint64_t sent = sbuf == MPI_IN_PLACE ? 0 : vtw_bytes(scount, stype);
	uint64_t recvd = me ? vtw_sum_bytes(vtw_comm_size(comm), rcounts, rtype) : 0;
	return vtw_coll_of(OTF2_COLLECTIVE_OP_GATHERV, comm, root, sent, recvd);
}

static inline struct vtw_coll vtw_m_scatter(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
					    void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
					    int root, MPI_Comm comm)
{
	int me = vtw_comm_rank(comm) == root;
	uint64_t sent = me ? vtw_bytes(scount, stype) * (uint64_t)vtw_comm_size(comm) : 0;
	uint64_t recvd = rbuf == MPI_IN_PLACE ? vtw_bytes(scount, stype) : vtw_bytes(rcount, rtype);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_SCATTER, comm, root, sent, recvd);
}

static inline struct vtw_coll vtw_m_scatterv(const void *sbuf, const int scounts[],
					     const int displs[], MPI_Datatype stype, void *rbuf,
					     MPI_Count rcount, MPI_Datatype rtype, int root,
					     MPI_Comm comm)
{
	int me = vtw_comm_rank(comm) == root;
	uint64_t sent = me ? vtw_sum_bytes(vtw_comm_size(comm), scounts, stype) : 0;
	uint64_t recvd = rbuf == MPI_IN_PLACE ? 0 : vtw_bytes(rcount, rtype);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_SCATTERV, comm, root, sent, recvd);
}

static inline struct vtw_coll vtw_m_allgather(const void *sbuf, MPI_Count scount,
					      MPI_Datatype stype, void *rbuf, MPI_Count rcount,
					      MPI_Datatype rtype, MPI_Comm comm)
{
	uint64_t sent = sbuf == MPI_IN_PLACE ? vtw_bytes(rcount, rtype) : vtw_bytes(scount, stype);
	uint64_t recvd = vtw_bytes(rcount, rtype) * (uint64_t)vtw_comm_size(comm);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, sent, recvd);
}

static inline struct vtw_coll vtw_m_allgatherv(const void *sbuf, MPI_Count scount,
					       MPI_Datatype stype, void *rbuf, const int rcounts[],
					       const int displs[], MPI_Datatype rtype,
					       MPI_Comm comm)
{
	uint64_t sent = sbuf == MPI_IN_PLACE ? 0 : vtw_bytes(scount, stype);
	uint64_t recvd = vtw_sum_bytes(vtw_comm_size(comm), rcounts, rtype);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1, sent, recvd);
}

static inline struct vtw_coll vtw_m_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
					     void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
					     MPI_Comm comm)
{
	uint64_t n = (uint64_t)vtw_comm_size(comm);
	uint64_t recvd = vtw_bytes(rcount, rtype) * n;
	uint64_t sent = sbuf == MPI_IN_PLACE ? recvd : vtw_bytes(scount, stype) * n;
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, sent, recvd);
}

static inline struct vtw_coll vtw_m_alltoallv(const void *sbuf, const int scounts[],
					      const int sdispls[], MPI_Datatype stype, void *rbuf,
					      const int rcounts[], const int rdispls[],
					      MPI_Datatype rtype, MPI_Comm comm)
{
	int n = vtw_comm_size(comm);
	uint64_t recvd = vtw_sum_bytes(n, rcounts, rtype);
	uint64_t sent = sbuf == MPI_IN_PLACE ? recvd : vtw_sum_bytes(n, scounts, stype);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1, sent, recvd);
}

static inline struct vtw_coll vtw_m_alltoallw(const void *sbuf, const int scounts[],
					      const int sdispls[], const MPI_Datatype stypes[],
					      void *rbuf, const int rcounts[], const int rdispls[],
					      const MPI_Datatype rtypes[], MPI_Comm comm)
{
	uint64_t sent = 0, recvd = 0;
	for (int i = 0, n = vtw_comm_size(comm); i < n; i++) {
		recvd += vtw_bytes(rcounts[i], rtypes[i]);
		if (sbuf != MPI_IN_PLACE)
			sent += vtw_bytes(scounts[i], stypes[i]);
	}
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
			   sbuf == MPI_IN_PLACE ? recvd : sent, recvd);
}

static inline struct vtw_coll vtw_m_reduce(const void *sbuf, void *rbuf, MPI_Count count,
					   MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	uint64_t n = vtw_bytes(count, type);
	int me = vtw_comm_rank(comm) == root;
	return vtw_coll_of(OTF2_COLLECTIVE_OP_REDUCE, comm, root, n, me ? n : 0);
}

/* Allreduce, Scan and Exscan: count elements in, count out. */
#define VTW_REDUCE_ALL(name, OP)                                                                   \
	static inline struct vtw_coll vtw_m_##name(const void *sbuf, void *rbuf, MPI_Count count,  \
						   MPI_Datatype type, MPI_Op op, MPI_Comm comm)    \
	{                                                                                          \
		uint64_t n = vtw_bytes(count, type);                                               \
		return vtw_coll_of(OP, comm, -1, n, n);                                            \
	}
VTW_REDUCE_ALL(allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE)
VTW_REDUCE_ALL(scan, OTF2_COLLECTIVE_OP_SCAN)
VTW_REDUCE_ALL(exscan, OTF2_COLLECTIVE_OP_EXSCAN)

static inline struct vtw_coll vtw_m_reduce_scatter(const void *sbuf, void *rbuf,
						   const int rcounts[], MPI_Datatype type,
						   MPI_Op op, MPI_Comm comm)
{
	uint64_t sent = vtw_sum_bytes(vtw_comm_size(comm), rcounts, type);
	uint64_t recvd = vtw_bytes(rcounts[vtw_comm_rank(comm)], type);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1, sent, recvd);
}

static inline struct vtw_coll vtw_m_reduce_scatter_block(const void *sbuf, void *rbuf,
							 MPI_Count rcount, MPI_Datatype type,
							 MPI_Op op, MPI_Comm comm)
{
	uint64_t recvd = vtw_bytes(rcount, type);
	return vtw_coll_of(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1,
			   recvd * (uint64_t)vtw_comm_size(comm), recvd);
}

static inline struct vtw_coll vtw_m_neighbor_allgather(const void *sbuf, MPI_Count scount,
						       MPI_Datatype stype, void *rbuf,
						       MPI_Count rcount, MPI_Datatype rtype,
						       MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
			   vtw_neighbor_bytes(comm, 1, scount, NULL, stype, NULL),
			   vtw_neighbor_bytes(comm, 0, rcount, NULL, rtype, NULL));
}

static inline struct vtw_coll vtw_m_neighbor_allgatherv(const void *sbuf, MPI_Count scount,
							MPI_Datatype stype, void *rbuf,
							const int rcounts[], const int displs[],
							MPI_Datatype rtype, MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1,
			   vtw_neighbor_bytes(comm, 1, scount, NULL, stype, NULL),
			   vtw_neighbor_bytes(comm, 0, 0, rcounts, rtype, NULL));
}

static inline struct vtw_coll vtw_m_neighbor_alltoall(const void *sbuf, MPI_Count scount,
						      MPI_Datatype stype, void *rbuf,
						      MPI_Count rcount, MPI_Datatype rtype,
						      MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
			   vtw_neighbor_bytes(comm, 1, scount, NULL, stype, NULL),
			   vtw_neighbor_bytes(comm, 0, rcount, NULL, rtype, NULL));
}

static inline struct vtw_coll vtw_m_neighbor_alltoallv(const void *sbuf, const int scounts[],
						       const int sdispls[], MPI_Datatype stype,
						       void *rbuf, const int rcounts[],
						       const int rdispls[], MPI_Datatype rtype,
						       MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
			   vtw_neighbor_bytes(comm, 1, 0, scounts, stype, NULL),
			   vtw_neighbor_bytes(comm, 0, 0, rcounts, rtype, NULL));
}

static inline struct vtw_coll
vtw_m_neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
			 const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
			 const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	return vtw_coll_of(OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1,
			   vtw_neighbor_bytes(comm, 1, 0, scounts, MPI_DATATYPE_NULL, stypes),
			   vtw_neighbor_bytes(comm, 0, 0, rcounts, MPI_DATATYPE_NULL, rtypes));
}

#pragma GCC diagnostic pop

/* Communicator constructors: the new communicator is defined (collectively) after. */
#define VTW_COMM_NEW(hook, FN, parent, newcomm, ...)                                               \
	static inline struct vtw_call vtw_##hook##_pre(__VA_ARGS__)                                \
	{                                                                                          \
		return vtw_none;                                                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, __VA_ARGS__)             \
	{                                                                                          \
		(void)c;                                                                           \
		if (ret == MPI_SUCCESS)                                                            \
			vtw_comm_created(*(newcomm), FN, parent);                                  \
	}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
VTW_COMM_NEW(comm_dup, "MPI_Comm_dup", comm, newcomm, MPI_Comm comm, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_dup_with_info, "MPI_Comm_dup_with_info", comm, newcomm, MPI_Comm comm,
	     MPI_Info info, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_split, "MPI_Comm_split", comm, newcomm, MPI_Comm comm, int color, int key,
	     MPI_Comm *newcomm)
VTW_COMM_NEW(comm_split_type, "MPI_Comm_split_type", comm, newcomm, MPI_Comm comm, int split_type,
	     int key, MPI_Info info, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_create, "MPI_Comm_create", comm, newcomm, MPI_Comm comm, MPI_Group group,
	     MPI_Comm *newcomm)
VTW_COMM_NEW(comm_create_group, "MPI_Comm_create_group", comm, newcomm, MPI_Comm comm,
	     MPI_Group group, int tag, MPI_Comm *newcomm)
VTW_COMM_NEW(cart_create, "MPI_Cart_create", comm_old, comm_cart, MPI_Comm comm_old, int ndims,
	     const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart)
VTW_COMM_NEW(cart_sub, "MPI_Cart_sub", comm, newcomm, MPI_Comm comm, const int remain_dims[],
	     MPI_Comm *newcomm)
VTW_COMM_NEW(graph_create, "MPI_Graph_create", comm_old, comm_graph, MPI_Comm comm_old, int nnodes,
	     const int indx[], const int edges[], int reorder, MPI_Comm *comm_graph)
VTW_COMM_NEW(dist_graph_create_adjacent, "MPI_Dist_graph_create_adjacent", comm_old,
	     comm_dist_graph, MPI_Comm comm_old, int indegree, const int sources[],
	     const int sourceweights[], int outdegree, const int destinations[],
	     const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
VTW_COMM_NEW(dist_graph_create, "MPI_Dist_graph_create", comm_old, comm_dist_graph,
	     MPI_Comm comm_old, int n, const int sources[], const int degrees[],
	     const int destinations[], const int weights[], MPI_Info info, int reorder,
	     MPI_Comm *comm_dist_graph)
VTW_COMM_NEW(intercomm_create, "MPI_Intercomm_create", local_comm, newintercomm,
	     MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
	     MPI_Comm *newintercomm)
VTW_COMM_NEW(intercomm_merge, "MPI_Intercomm_merge", intercomm, newintracomm, MPI_Comm intercomm,
	     int high, MPI_Comm *newintracomm)
#pragma GCC diagnostic pop

VTW_HIDDEN void vtw_comm_named(MPI_Comm comm, const char *name);
static inline struct vtw_call vtw_comm_set_name_pre(MPI_Comm comm, const char *name)
{
	(void)comm, (void)name;
	return vtw_none;
}
static inline void vtw_comm_set_name_post(struct vtw_call *c, int ret, MPI_Comm comm,
					  const char *name)
{
	(void)c;
	if (ret == MPI_SUCCESS)
		vtw_comm_named(comm, name);
}

static inline struct vtw_call vtw_comm_free_pre(MPI_Comm *comm)
{
	vtw_comm_freed(*comm);
	return vtw_none;
}
static inline void vtw_comm_free_post(struct vtw_call *c, int ret, MPI_Comm *comm)
{
	(void)c, (void)ret, (void)comm;
}

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

/*
 * MPI-IO. MPI_File_open is IoCreateHandle (the handle an IoHandle definition of the MPI-IO
 * paradigm, named after the file, on the open's communicator), MPI_File_close
 * IoDestroyHandle. A read or write is IoOperationBegin (bytes requested; COLLECTIVE for the
 * _all and _ordered forms) and IoOperationComplete (bytes done, from the status; the bytes
 * requested when the status is ignored) in the call; a non-blocking one (MPI_File_iread...)
 * is NON_BLOCKING, IoOperationIssued in the call and IoOperationComplete at the Wait/Test
 * that completes its request; a split collective (_begin/_end) is issued at _begin and
 * complete at _end. A failed operation is IoOperationCancelled, and MPI's error returned.
 * MPI_File_seek and _seek_shared are IoSeek, offsets in etypes of the view, as MPI counts
 * (the shared pointer's offset reached only for MPI_SEEK_SET: others move it at once).
 */
VTW_HIDDEN void vtw_file_opened(MPI_File fh, MPI_Comm comm, const char *name, int amode);
VTW_HIDDEN void vtw_file_closed(uint64_t handle);
VTW_HIDDEN uint64_t vtw_io_begin(MPI_File fh, uint32_t mode, uint32_t flags, uint64_t bytes);
VTW_HIDDEN void vtw_io_end(MPI_File fh, uint64_t id, int ret, const MPI_Status *st, uint64_t bytes);
/* req: a non-blocking operation's request; NULL: a split collective's _begin. */
VTW_HIDDEN void vtw_io_issued(MPI_File fh, uint64_t id, int ret, const MPI_Request *req,
			      uint64_t bytes);
VTW_HIDDEN void vtw_io_split_end(MPI_File fh, int ret, const MPI_Status *st);
VTW_HIDDEN void vtw_io_seek(MPI_File fh, MPI_Offset offset, int whence, int shared);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static inline struct vtw_call vtw_io_pre(MPI_File fh, uint32_t mode, uint32_t flags,
					 MPI_Count count, MPI_Datatype type)
{
	struct vtw_call c = vtw_none;
	c.bytes = vtw_bytes(count, type);
	c.id = vtw_io_begin(fh, mode, flags, c.bytes);
	return c;
}

#define VTW_R	 OTF2_IO_OPERATION_MODE_READ
#define VTW_W	 OTF2_IO_OPERATION_MODE_WRITE
#define VTW_COLL OTF2_IO_OPERATION_FLAG_COLLECTIVE
#define VTW_NB	 OTF2_IO_OPERATION_FLAG_NON_BLOCKING
/* Blocking, at an explicit offset or not. */
#define VTW_IO_AT(hook, MODE, FLAGS)                                                               \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, MPI_Offset off,                \
						       const void *buf, MPI_Count count,           \
						       MPI_Datatype type, MPI_Status *st)          \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, FLAGS, count, type);                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type, MPI_Status *st)                    \
	{                                                                                          \
		vtw_io_end(fh, c->id, ret, st, c->bytes);                                          \
	}
#define VTW_IO(hook, MODE, FLAGS)                                                                  \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *st)      \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, FLAGS, count, type);                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type,  \
					     MPI_Status *st)                                       \
	{                                                                                          \
		vtw_io_end(fh, c->id, ret, st, c->bytes);                                          \
	}
/* Non-blocking. */
#define VTW_IIO_AT(hook, MODE, FLAGS)                                                              \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, MPI_Offset off,                \
						       const void *buf, MPI_Count count,           \
						       MPI_Datatype type, MPI_Request *req)        \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, (FLAGS) | VTW_NB, count, type);                        \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type, MPI_Request *req)                  \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, req, c->bytes);                                      \
	}
#define VTW_IIO(hook, MODE, FLAGS)                                                                 \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)    \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, (FLAGS) | VTW_NB, count, type);                        \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type,  \
					     MPI_Request *req)                                     \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, req, c->bytes);                                      \
	}
/* Split collectives. */
#define VTW_IO_BEGIN_AT(hook, MODE)                                                                \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, MPI_Offset off, const void *buf, MPI_Count count, MPI_Datatype type)      \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, VTW_COLL | VTW_NB, count, type);                       \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type)                                    \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, NULL, c->bytes);                                     \
	}
#define VTW_IO_BEGIN(hook, MODE)                                                                   \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, const void *buf,               \
						       MPI_Count count, MPI_Datatype type)         \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, VTW_COLL | VTW_NB, count, type);                       \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type)  \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, NULL, c->bytes);                                     \
	}
static inline struct vtw_call vtw_file_split_end_pre(MPI_File fh, const void *buf, MPI_Status *st)
{
	return vtw_none;
}
static inline void vtw_file_split_end_post(struct vtw_call *c, int ret, MPI_File fh,
					   const void *buf, MPI_Status *st)
{
	vtw_io_split_end(fh, ret, st);
}

VTW_IO_AT(file_read_at, VTW_R, 0)
VTW_IO_AT(file_read_at_all, VTW_R, VTW_COLL)
VTW_IO_AT(file_write_at, VTW_W, 0)
VTW_IO_AT(file_write_at_all, VTW_W, VTW_COLL)
VTW_IO(file_read, VTW_R, 0)
VTW_IO(file_read_all, VTW_R, VTW_COLL)
VTW_IO(file_read_shared, VTW_R, 0)
VTW_IO(file_read_ordered, VTW_R, VTW_COLL)
VTW_IO(file_write, VTW_W, 0)
VTW_IO(file_write_all, VTW_W, VTW_COLL)
VTW_IO(file_write_shared, VTW_W, 0)
VTW_IO(file_write_ordered, VTW_W, VTW_COLL)
VTW_IIO_AT(file_iread_at, VTW_R, 0)
VTW_IIO_AT(file_iread_at_all, VTW_R, VTW_COLL)
VTW_IIO_AT(file_iwrite_at, VTW_W, 0)
VTW_IIO_AT(file_iwrite_at_all, VTW_W, VTW_COLL)
VTW_IIO(file_iread, VTW_R, 0)
VTW_IIO(file_iread_all, VTW_R, VTW_COLL)
VTW_IIO(file_iread_shared, VTW_R, 0)
VTW_IIO(file_iwrite, VTW_W, 0)
VTW_IIO(file_iwrite_all, VTW_W, VTW_COLL)
VTW_IIO(file_iwrite_shared, VTW_W, 0)
VTW_IO_BEGIN_AT(file_read_at_all_begin, VTW_R)
VTW_IO_BEGIN_AT(file_write_at_all_begin, VTW_W)
VTW_IO_BEGIN(file_read_all_begin, VTW_R)
VTW_IO_BEGIN(file_write_all_begin, VTW_W)
VTW_IO_BEGIN(file_read_ordered_begin, VTW_R)
VTW_IO_BEGIN(file_write_ordered_begin, VTW_W)

static inline struct vtw_call vtw_file_open_pre(MPI_Comm comm, const char *name, int amode,
						MPI_Info info, MPI_File *fh)
{
	return vtw_none;
}
static inline void vtw_file_open_post(struct vtw_call *c, int ret, MPI_Comm comm, const char *name,
				      int amode, MPI_Info info, MPI_File *fh)
{
	if (ret == MPI_SUCCESS)
		vtw_file_opened(*fh, comm, name, amode);
}
/* MPI_File_close sets the handle to MPI_FILE_NULL: its bits are kept before the call. */
static inline struct vtw_call vtw_file_close_pre(MPI_File *fh)
{
	struct vtw_call c = vtw_none;
	c.id = VTW_BITS(*fh);
	return c;
}
static inline void vtw_file_close_post(struct vtw_call *c, int ret, MPI_File *fh)
{
	if (ret == MPI_SUCCESS)
		vtw_file_closed(c->id);
}
static inline struct vtw_call vtw_file_seek_pre(MPI_File fh, MPI_Offset offset, int whence)
{
	return vtw_none;
}
static inline void vtw_file_seek_post(struct vtw_call *c, int ret, MPI_File fh, MPI_Offset offset,
				      int whence)
{
	if (ret == MPI_SUCCESS)
		vtw_io_seek(fh, offset, whence, 0);
}
static inline struct vtw_call vtw_file_seek_shared_pre(MPI_File fh, MPI_Offset offset, int whence)
{
	return vtw_none;
}
static inline void vtw_file_seek_shared_post(struct vtw_call *c, int ret, MPI_File fh,
					     MPI_Offset offset, int whence)
{
	if (ret == MPI_SUCCESS)
		vtw_io_seek(fh, offset, whence, 1);
}

#pragma GCC diagnostic pop

#endif
