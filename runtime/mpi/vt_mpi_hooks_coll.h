/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks of collectives: operation, root and bytes (blocking, non-blocking, persistent). */
#ifndef VT_MPI_HOOKS_COLL_H
#define VT_MPI_HOOKS_COLL_H

#include "vt_mpi_hooks.h"

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

#endif
