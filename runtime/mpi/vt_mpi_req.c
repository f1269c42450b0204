/* SPDX-License-Identifier: BSD-3-Clause */
/* Requests from start to completion, and the receive, Wait and Test wrappers that end them. */
#include "vt_mpi_adapter.h"
#include "vt_mpi_maps.h"

#include <sched.h>
#include <stdlib.h>

/* The requests in flight (vt_mpi_maps.h): O(1) by handle, under one lock, since a request
 * may complete on another thread than the one that made it; ids: the last request id;
 * cancels: whether the program ever called MPI_Cancel (until then no request can have
 * been cancelled, and completions need not ask MPI). The lock is a spin lock of one word:
 * it is held for a few dozen instructions, and a pthread mutex cost more than the map
 * (~65 instructions a lock and unlock, against 2 stores and an exchange). */
static struct {
	struct vt_reqmap map;
	uint64_t ids;
	int busy;
	int cancels;
} requests;

/* The wait of a taken lock, out of line: it spins a while, then yields the CPU to the
 * holder (ranks are often oversubscribed: the holder may wait for this core). */
__attribute__((noinline, cold)) static void lock_wait(void)
{
	unsigned spins = 0;
	do {
		if (spins++ < 128) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		} else
			sched_yield();
	} while (__atomic_load_n(&requests.busy, __ATOMIC_RELAXED) ||
		 __atomic_exchange_n(&requests.busy, 1, __ATOMIC_ACQUIRE));
}

static inline void lock(void)
{
	if (__builtin_expect(__atomic_exchange_n(&requests.busy, 1, __ATOMIC_ACQUIRE), 0))
		lock_wait();
}

static inline void unlock(void)
{
	__atomic_store_n(&requests.busy, 0, __ATOMIC_RELEASE);
}

/* Follows req with the fields of like (a new request id when like.id is 0); its id, and
 * whether memory sufficed (else its completion goes unseen). */
static uint64_t follow(MPI_Request req, struct vt_req like, bool *ok)
{
	lock();
	if (!like.id)
		like.id = ++requests.ids;
	/* Handles repeat: MPI hands the same handle to requests that completed at once (both
	 * Open MPI and MPICH do for small eager sends), so a handle may stand for several
	 * requests, completed in the order they were made: the map keeps that order. */
	struct vt_req *r = vt_reqmap_add(&requests.map, VTW_BITS(req), like.persistent);
	if (r) {
		like.handle = r->handle;
		like.next = r->next;
		*r = like;
	}
	unlock();
	*ok = r != NULL;
	return like.id;
}

uint64_t vtw_request_new(MPI_Request req, int kind, uint32_t comm, int peer, int tag,
			 uint64_t bytes, int persistent)
{
	bool ok;
	return follow(req,
		      (struct vt_req){.kind = kind,
				      .peer = peer,
				      .tag = tag,
				      .persistent = persistent,
				      .active = !persistent,
				      .comm = comm,
				      .bytes = bytes},
		      &ok);
}

uint64_t vtw_request_p2p(MPI_Request req, int kind, uint32_t comm, int peer, int tag,
			 uint64_t bytes)
{
	/* follow's common case, the fields written in place: no request built and copied. */
	lock();
	uint64_t id = ++requests.ids;
	struct vt_req *r = vt_reqmap_add(&requests.map, VTW_BITS(req), false);
	if (r) {
		r->id = id;
		r->bytes = bytes;
		r->kind = kind;
		r->peer = peer;
		r->tag = tag;
		r->comm = comm;
		r->active = true;
	}
	unlock();
	return id;
}

void vtw_nbc_issued(MPI_Request req, struct vtw_coll c, int persistent, uint64_t t0)
{
	bool ok;
	uint64_t id = follow(req,
			     (struct vt_req){.kind = VTW_REQ_COLL,
					     .peer = c.root,
					     .tag = (int)c.op,
					     .persistent = persistent,
					     .active = !persistent,
					     .comm = c.comm,
					     .bytes = c.sent,
					     .received = c.received},
			     &ok);
	/* Out of memory the completion is not seen: no request event either. */
	if (ok && !persistent)
		vt_mpi_event(t0, VT_REC_MPI_NBC_REQUEST, 0, id, 0, 0, 0, 0);
}

void vtw_request_track(MPI_Request req, int kind, uint64_t id, uint32_t handle, uint64_t bytes)
{
	bool ok;
	follow(req,
	       (struct vt_req){.id = id, .kind = kind, .active = 1, .comm = handle, .bytes = bytes},
	       &ok);
}

void vtw_request_started(MPI_Request req)
{
	lock();
	struct vt_req *r = vt_reqmap_persistent(&requests.map, VTW_BITS(req));
	struct vt_req copy = {0};
	if (r) {
		r->id = ++requests.ids;
		r->active = 1;
		copy = *r;
	}
	unlock();
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
	lock();
	struct vt_req *r = vt_reqmap_oldest(&requests.map, VTW_BITS(req));
	/* An active non-persistent request completes unseen after a free: forget it. */
	if (r)
		vt_reqmap_remove(&requests.map, r);
	unlock();
}

void vtw_request_cancelled(MPI_Request req)
{
	__atomic_store_n(&requests.cancels, 1, __ATOMIC_RELAXED);
	lock();
	struct vt_req *r = vt_reqmap_oldest(&requests.map, VTW_BITS(req));
	uint64_t id = r && r->active ? r->id : 0;
	unlock();
	if (id) {
		vt_mpi_request(VT_REC_MPI_REQUEST_CANCELLED, id);
	}
}

/*
 * A request that completed: what vt knew of it (false: nothing, or it was not active), and
 * forgotten unless persistent. handle: the bits the request had before the completing call
 * (MPI sets it to MPI_REQUEST_NULL). With the lock held.
 */
static bool take_locked(uint64_t handle, struct vt_req *out)
{
	/* An active persistent request first: a repeated handle of a finished one is not. */
	return vt_reqmap_complete(&requests.map, handle, out) && out->active;
}

/* The bytes a completed receive's status says it received. */
static uint64_t received_bytes(const MPI_Status *st)
{
#if MPI_VERSION >= 4
	/* a message of 2 GiB or more has no int count */
	MPI_Count count = 0;
	PMPI_Get_count_c(st, MPI_BYTE, &count);
#else
	int count = 0;
	PMPI_Get_count(st, MPI_BYTE, &count);
#endif
	return (uint64_t)(count > 0 ? count : 0);
}

/* The completion of an Isend or Irecv r (take_locked's) with status, as vt_mpi_completed
 * takes it: 1 (d filled), 0 (nothing to write: it was cancelled), -1 (another kind:
 * completion_event). */
static int done_of(const struct vt_req *r, const MPI_Status *status, struct vt_mpi_done *d)
{
	if (r->kind != VTW_REQ_SEND && r->kind != VTW_REQ_RECV)
		return -1;
	int cancelled = 0;
	if (status && __atomic_load_n(&requests.cancels, __ATOMIC_RELAXED))
		PMPI_Test_cancelled(status, &cancelled);
	if (cancelled)
		return 0;
	if (r->kind == VTW_REQ_SEND) {
		*d = (struct vt_mpi_done){.id = r->id, .kind = VT_REC_MPI_ISEND_COMPLETE};
		return 1;
	}
	*d = (struct vt_mpi_done){.id = r->id,
				  .bytes = status ? received_bytes(status) : 0,
				  .kind = VT_REC_MPI_IRECV,
				  .peer = (uint32_t)(status ? status->MPI_SOURCE : r->peer),
				  .comm = r->comm,
				  .tag = (uint32_t)(status ? status->MPI_TAG : r->tag)};
	return 1;
}

/* The completion event of request r (take_locked's), which completed with status. */
static void completion_event(const struct vt_req *r, const MPI_Status *status)
{
	/* File and window requests first: MPI (Open MPI's ompio) may leave their statuses'
	 * cancelled field unset. */
	if (r->kind == VTW_REQ_IO) {
		int count = MPI_UNDEFINED;
		if (status)
			PMPI_Get_count(status, MPI_BYTE, &count);
		vt_mpi_event(0, VT_REC_IO_COMPLETE, 0,
			     count == MPI_UNDEFINED || count < 0 ? r->bytes : (uint64_t)count,
			     r->comm, 0, 0, r->id);
		return;
	}
	if (r->kind == VTW_REQ_RMA) {
		vt_mpi_event(0, VT_REC_RMA_COMPLETE, VT_RMA_COMPLETE_NONBLOCKING, r->id, r->comm, 0,
			     0, 0);
		return;
	}
	struct vt_mpi_done d;
	int b = done_of(r, status, &d);
	if (b > 0)
		vt_mpi_completed(&d, 1);
	if (b >= 0 || r->kind != VTW_REQ_COLL)
		return;
	int cancelled = 0;
	if (status && __atomic_load_n(&requests.cancels, __ATOMIC_RELAXED))
		PMPI_Test_cancelled(status, &cancelled);
	if (!cancelled)
		vt_mpi_nbc_complete((uint32_t)r->tag, r->comm, vtw_root(r->peer), r->bytes,
				    r->received, r->id);
}

/* A request that completed with status: its completion event. */
static void request_completed(uint64_t handle, const MPI_Status *status)
{
	struct vt_req r;
	lock();
	bool known = take_locked(handle, &r);
	unlock();
	if (known)
		completion_event(&r, status);
}

/* -- receives ------------------------------------------------------------------------ */

/* The message of a completed receive, sender and tag from the status (ANY_SOURCE/TAG). */
static void received(const MPI_Status *st, MPI_Comm comm)
{
	if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE == MPI_ANY_SOURCE)
		return;
	vtw_p2p(VT_REC_MPI_RECV, st->MPI_SOURCE, vtw_comm(comm), st->MPI_TAG, received_bytes(st));
}

/* received, then the Leave of the call's region (descriptor d), in one step. */
static void received_leave(const MPI_Status *st, MPI_Comm comm, struct vt_inst_desc *d)
{
	if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE == MPI_ANY_SOURCE) {
		vt_inst_exit(d);
		return;
	}
	vt_mpi_p2p_leave(VT_REC_MPI_RECV, (uint32_t)st->MPI_SOURCE, vtw_comm(comm),
			 (uint32_t)st->MPI_TAG, received_bytes(st), d);
}

VTW_HIDDEN extern struct vt_inst_desc vtw_desc_MPI_Recv, vtw_desc_MPI_Sendrecv,
    vtw_desc_MPI_Sendrecv_replace, vtw_desc_MPI_Mrecv, vtw_desc_MPI_Wait, vtw_desc_MPI_Waitall,
    vtw_desc_MPI_Waitany, vtw_desc_MPI_Waitsome, vtw_desc_MPI_Test, vtw_desc_MPI_Testall,
    vtw_desc_MPI_Testany, vtw_desc_MPI_Testsome;

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
		if (!(vtw_on & VT_MPI_G_P2P))                                                      \
			return P##NAME(buf, count, type, source, tag, comm, status);               \
		VTW_STATUS_OWN;                                                                    \
		vt_inst_enter(&vtw_desc_##NAME);                                                   \
		int ret = P##NAME(buf, count, type, source, tag, comm, st);                        \
		if (ret == MPI_SUCCESS)                                                            \
			received_leave(st, comm, &vtw_desc_##NAME);                                \
		else                                                                               \
			vt_inst_exit(&vtw_desc_##NAME);                                            \
		return ret;                                                                        \
	}

#define VTW_SENDRECV(NAME, COUNT)                                                                  \
	VTW_EXPORT int NAME(const void *sbuf, COUNT scount, MPI_Datatype stype, int dest,          \
			    int stag, void *rbuf, COUNT rcount, MPI_Datatype rtype, int source,    \
			    int rtag, MPI_Comm comm, MPI_Status *status)                           \
	{                                                                                          \
		if (!(vtw_on & VT_MPI_G_P2P))                                                      \
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
		if (!(vtw_on & VT_MPI_G_P2P))                                                      \
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
		if (!(vtw_on & VT_MPI_G_P2P))                                                      \
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

/* Copies of the handles before the call (MPI nulls completed ones), statuses to read even
 * where the caller ignores them, and what vt knew of the requests that completed. Small
 * counts live on the stack, larger ones in one allocation. */
struct completion {
	uint64_t small_h[16];
	MPI_Status small_st[16];
	struct vt_req small_r[16];
	uint64_t *h;
	MPI_Status *st;
	struct vt_req *r;
};

static int completion_begin(struct completion *c, int n, const MPI_Request reqs[])
{
	if (n <= 16) {
		c->h = c->small_h;
		c->st = c->small_st;
		c->r = c->small_r;
	} else {
		/* handles and requests first: 8-byte aligned at every n */
		char *m = malloc((size_t)n * (sizeof(*c->h) + sizeof(*c->r) + sizeof(*c->st)));
		if (!m)
			return -1;
		c->h = (uint64_t *)m;
		c->r = (struct vt_req *)(m + (size_t)n * sizeof(*c->h));
		c->st = (MPI_Status *)(m + (size_t)n * (sizeof(*c->h) + sizeof(*c->r)));
	}
	for (int i = 0; i < n; i++)
		c->h[i] = VTW_BITS(reqs[i]);
	return 0;
}

static void completion_end(struct completion *c)
{
	if (c->h != c->small_h)
		free(c->h);
}

/*
 * count requests completed, the k-th with status st[k] and the handle c->h[idx[k]] (idx
 * NULL: k): their completion events, with one lock for all of them. errors: a status whose
 * MPI_ERROR is set says that its request did not complete (MPI_ERR_IN_STATUS).
 */
static void completed(struct completion *c, int count, const int idx[], const MPI_Status st[],
		      bool errors)
{
	lock();
	for (int k = 0; k < count; k++) {
		if (errors && st[k].MPI_ERROR != MPI_SUCCESS)
			c->r[k].active = 0;
		else if (!take_locked(c->h[idx ? idx[k] : k], &c->r[k]))
			c->r[k].active = 0;
	}
	unlock();
	/* Isends' and Irecvs' completions in batches (one call and reservation each), the
	 * other kinds between them in their order. */
	struct vt_mpi_done d[16];
	unsigned nd = 0;
	for (int k = 0; k < count; k++) {
		if (!c->r[k].active)
			continue;
		int b = done_of(&c->r[k], &st[k], &d[nd]);
		if (b > 0 && ++nd < 16)
			continue;
		if (nd)
			vt_mpi_completed(d, nd);
		nd = 0;
		if (b < 0)
			completion_event(&c->r[k], &st[k]);
	}
	if (nd)
		vt_mpi_completed(d, nd);
}

VTW_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	if (!vtw_tracing())
		return PMPI_Wait(req, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	uint64_t h = VTW_BITS(*req);
	vtw_rec_enter(VT_MPI_G_P2P, &vtw_desc_MPI_Wait);
	int ret = PMPI_Wait(req, st);
	if (ret == MPI_SUCCESS)
		request_completed(h, st);
	vtw_rec_exit(VT_MPI_G_P2P, &vtw_desc_MPI_Wait);
	return ret;
}

VTW_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	if (!vtw_tracing())
		return PMPI_Test(req, flag, status);
	MPI_Status own;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
	uint64_t h = VTW_BITS(*req);
	vtw_rec_enter(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Test);
	int ret = PMPI_Test(req, flag, st);
	if (ret == MPI_SUCCESS && *flag)
		request_completed(h, st);
	vtw_rec_exit(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Test);
	return ret;
}

VTW_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Waitall(n, reqs, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vtw_rec_enter(VT_MPI_G_P2P, &vtw_desc_MPI_Waitall);
	int ret = PMPI_Waitall(n, reqs, st);
	/* On MPI_ERR_IN_STATUS each status says whether its request completed. */
	if (ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS)
		completed(&c, n, NULL, st, ret == MPI_ERR_IN_STATUS);
	vtw_rec_exit(VT_MPI_G_P2P, &vtw_desc_MPI_Waitall);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return PMPI_Testall(n, reqs, flag, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vtw_rec_enter(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Testall);
	int ret = PMPI_Testall(n, reqs, flag, st);
	if (ret == MPI_SUCCESS && *flag)
		completed(&c, n, NULL, st, false);
	vtw_rec_exit(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Testall);
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
	vtw_rec_enter(VT_MPI_G_P2P, &vtw_desc_MPI_Waitany);
	int ret = PMPI_Waitany(n, reqs, index, st);
	if (ret == MPI_SUCCESS && *index != MPI_UNDEFINED)
		request_completed(c.h[*index], st);
	vtw_rec_exit(VT_MPI_G_P2P, &vtw_desc_MPI_Waitany);
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
	vtw_rec_enter(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Testany);
	int ret = PMPI_Testany(n, reqs, index, flag, st);
	if (ret == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
		request_completed(c.h[*index], st);
	vtw_rec_exit(VT_MPI_G_XREQTEST, &vtw_desc_MPI_Testany);
	completion_end(&c);
	return ret;
}

static int some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), uint32_t group,
		struct vt_inst_desc *desc, int n, MPI_Request reqs[], int *outcount, int indices[],
		MPI_Status statuses[])
{
	struct completion c;
	if (!vtw_tracing() || completion_begin(&c, n, reqs) < 0)
		return fn(n, reqs, outcount, indices, statuses);
	MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
	vtw_rec_enter(group, desc);
	int ret = fn(n, reqs, outcount, indices, st);
	if (ret == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		completed(&c, *outcount, indices, st, false);
	vtw_rec_exit(group, desc);
	completion_end(&c);
	return ret;
}

VTW_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
			    MPI_Status statuses[])
{
	return some(PMPI_Waitsome, VT_MPI_G_P2P, &vtw_desc_MPI_Waitsome, n, reqs, outcount, indices,
		    statuses);
}

VTW_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
			    MPI_Status statuses[])
{
	return some(PMPI_Testsome, VT_MPI_G_XREQTEST, &vtw_desc_MPI_Testsome, n, reqs, outcount,
		    indices, statuses);
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
