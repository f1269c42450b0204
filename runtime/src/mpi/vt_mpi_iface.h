/* SPDX-License-Identifier: BSD-3-Clause */
/* What libvt offers the MPI adapter (libvt-mpi), and what the adapter gives back. */
#ifndef VT_MPI_IFACE_H
#define VT_MPI_IFACE_H

#include "defs/vt_mpi_defs.h" /* VT_COMM_NAME_MAX and the keys: one definition */
#include "defs/vt_mpi_ops.h"
/* The adapter enters and leaves the regions of MPI calls (descriptors of paradigm MPI) with
 * the public vt_inst_enter and vt_inst_exit, besides vt_mpi_enter below. */
#include "vt/vt_inst.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_MPI_EXPORT __attribute__((visibility("default")))

/* libvt-mpi defines this symbol; libvt looks for it at load to know it runs in MPI mode,
 * where the archive is opened at MPI_Init and written collectively at MPI_Finalize. */
#define VT_MPI_ADAPTER_SYMBOL "vt_mpi_adapter"

/* After PMPI_Init: opens the archive collectively (rank 0 picks the name). */
VT_MPI_EXPORT void vt_mpi_attach(const struct vt_mpi_ops *ops);

/* The host (an index, the same on every rank) of a world rank, from the hosts gathered once
 * at vt_mpi_attach; -1 when not known (vt is off, or memory ran out at MPI_Init). */
VT_MPI_EXPORT int vt_mpi_host_of(int rank);

/* Clock offset of this rank at local time t: global = local + offset (ticks). */
VT_MPI_EXPORT void vt_mpi_clock_offset(uint64_t t, int64_t offset, double stddev);

/* Before PMPI_Finalize: drains every location, unifies definitions, closes the archive. */
VT_MPI_EXPORT void vt_mpi_detach(void);

/* MPI_Abort, before PMPI_Abort: this rank's events, definitions and a marker of the abort go
 * into an archive of its own (NAME.abort-RANK), without MPI: the other ranks do not take part
 * (docs/mpi.md). */
VT_MPI_EXPORT void vt_mpi_abort(int errorcode);

/* VT_MPITRACE: whether MPI calls and messages are recorded. */
VT_MPI_EXPORT int vt_mpi_trace_enabled(void);

/* VT_MPI_GROUPS: the groups of MPI functions recorded, one bit each (docs/mpi.md). */
enum vt_mpi_group {
	VT_MPI_G_CG = 1u << 0,
	VT_MPI_G_COLL = 1u << 1,
	VT_MPI_G_ENV = 1u << 2,
	VT_MPI_G_ERR = 1u << 3,
	VT_MPI_G_EXT = 1u << 4,
	VT_MPI_G_IO = 1u << 5,
	VT_MPI_G_MISC = 1u << 6,
	VT_MPI_G_P2P = 1u << 7,
	VT_MPI_G_QUERY = 1u << 8,
	VT_MPI_G_RMA = 1u << 9,
	VT_MPI_G_SPAWN = 1u << 10,
	VT_MPI_G_TOPO = 1u << 11,
	VT_MPI_G_TYPE = 1u << 12,
	VT_MPI_G_XNONBLOCK = 1u << 13,
	VT_MPI_G_XREQTEST = 1u << 14,
};
/* The groups VT_MPI_GROUPS selects; a bad value is reported (warn: this rank says so, in
 * one line) and DEFAULT is used. XNONBLOCK and XREQTEST are dropped with P2P. */
VT_MPI_EXPORT uint32_t vt_mpi_groups(bool warn);

/* The calling thread's timestamp (the trace's clock). */
VT_MPI_EXPORT uint64_t vt_mpi_now(void);

/* A measured call's Enter (region of descriptor d, as vt_inst_enter writes it) and its time,
 * when the call began: the wrappers of collectives stamp their CollectiveBegin with it. One
 * call and one clock read for both. */
struct vt_inst_desc;
VT_MPI_EXPORT uint64_t vt_mpi_enter(struct vt_inst_desc *d);

/*
 * MPI events of the calling thread, each with its fields by name (the records they become
 * are libvt's own, vt_rec.h). kind: VT_REC_MPI_SEND or _RECV (vt_mpi_p2p), _ISEND or _IRECV
 * (vt_mpi_p2p_request), _ISEND_COMPLETE, _IRECV_REQUEST, _REQUEST_TEST,
 * _REQUEST_CANCELLED or _NBC_REQUEST (vt_mpi_request). root: OTF2_UNDEFINED_UINT32 for none.
 */
VT_MPI_EXPORT void vt_mpi_p2p(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
			      uint64_t bytes);
VT_MPI_EXPORT void vt_mpi_p2p_request(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
				      uint64_t bytes, uint64_t request);
/* The Enter of a call's region (descriptor d, as vt_mpi_enter) and its message event (a
 * blocking send's), stamped alike; the message's and a Leave after it (a blocking receive's):
 * one reservation and one clock read each where the Enter or Leave is a plain record. */
VT_MPI_EXPORT void vt_mpi_enter_p2p(struct vt_inst_desc *d, uint32_t kind, uint32_t peer,
				    uint32_t comm, uint32_t tag, uint64_t bytes);
VT_MPI_EXPORT void vt_mpi_p2p_leave(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
				    uint64_t bytes, struct vt_inst_desc *d);
/* The same, stamped ts (vt_mpi_now() taken earlier: a send at its call's entry). */
VT_MPI_EXPORT void vt_mpi_p2p_request_at(uint64_t ts, uint32_t kind, uint32_t peer, uint32_t comm,
					 uint32_t tag, uint64_t bytes, uint64_t request);
/* An Isend (vt_mpi_p2p_request_at's), then the Leave of its call's region (descriptor d):
 * one reservation and one clock read where the Leave is a plain record. */
VT_MPI_EXPORT void vt_mpi_isend_leave(uint64_t ts, uint32_t peer, uint32_t comm, uint32_t tag,
				      uint64_t bytes, uint64_t request, struct vt_inst_desc *d);
VT_MPI_EXPORT void vt_mpi_request(uint32_t kind, uint64_t request);
/* The same, then the Leave of the call's region (descriptor d), as vt_mpi_isend_leave. */
VT_MPI_EXPORT void vt_mpi_request_leave(uint32_t kind, uint64_t request, struct vt_inst_desc *d);
/* The completions one Wait or Test saw, in order: an Isend's (kind VT_REC_MPI_ISEND_COMPLETE,
 * its request id) or an Irecv's message (VT_REC_MPI_IRECV, every field). The events are
 * those vt_mpi_request and vt_mpi_p2p_request write, each stamped when written, all in one
 * reservation where there is room (a Waitall of n requests: one call, not n). */
struct vt_mpi_done {
	uint64_t id;
	uint64_t bytes;
	uint32_t kind, peer, comm, tag;
};
VT_MPI_EXPORT void vt_mpi_completed(const struct vt_mpi_done *d, unsigned n);
/* A blocking collective that began at t0 (vt_mpi_now() after its Enter) and ends now: its
 * CollectiveBegin and CollectiveEnd, written in one step after the call returned. */
VT_MPI_EXPORT void vt_mpi_coll(uint64_t t0, uint32_t op, uint32_t comm, uint32_t root,
			       uint64_t sent, uint64_t received);

/* The same, then the Leave of the call's region (descriptor d), in one reservation where
 * the Leave is a plain record (else as vt_mpi_coll, then vt_inst_exit(d)). */
VT_MPI_EXPORT void vt_mpi_coll_leave(uint64_t t0, uint32_t op, uint32_t comm, uint32_t root,
				     uint64_t sent, uint64_t received, struct vt_inst_desc *d);
/* A non-blocking collective: its request (kind VT_REC_MPI_NBC_REQUEST through
 * vt_mpi_request), and its completion at the Wait or Test that saw it done. */
VT_MPI_EXPORT void vt_mpi_nbc_complete(uint32_t op, uint32_t comm, uint32_t root, uint64_t sent,
				       uint64_t received, uint64_t request);

/*
 * Communicators. A local id per communicator this process knows; key identifies it across
 * ranks (the same key on every member), my_rank/size are this rank's place in it. Keys
 * (VT_MPI_KEY_WORLD, VT_MPI_KEY_SELF, others: creator's world rank << 32 | counter) and
 * the longest name kept (VT_COMM_NAME_MAX) are those of the registry, defs/vt_mpi_defs.h.
 */
VT_MPI_EXPORT uint32_t vt_mpi_comm_define(uint64_t key, uint32_t my_rank, uint32_t size);
/*
 * One-sided communication and MPI-IO. Windows and I/O handles are defined like communicators
 * (key: the same on every member; comm: the local id of their communicator), groups of
 * processes by their world ranks ("0,2,5").
 */
VT_MPI_EXPORT uint32_t vt_mpi_win_define(uint64_t key, uint32_t comm, const char *name);
VT_MPI_EXPORT void vt_mpi_win_name(uint32_t id, const char *name);
VT_MPI_EXPORT uint32_t vt_mpi_group_define(const char *members);
VT_MPI_EXPORT uint32_t vt_mpi_io_define(uint64_t key, uint32_t comm, const char *file);
/*
 * Any event of kind (vt_rec.h) stamped ts (0: now), with its head value and up to two
 * payloads laid out as vt_rec_rma {value, win, remote} and vt_rec_nbc {received, id}: the
 * RMA, MPI-IO and NonBlockingCollectiveRequest events (an I/O event's handle and flags sit
 * where a window and remote rank do; a request id where the value does).
 */
VT_MPI_EXPORT void vt_mpi_event(uint64_t ts, uint32_t kind, uint32_t head, uint64_t value,
				uint32_t win, uint32_t remote, uint64_t received, uint64_t id);
/* The name of communicator id in the trace (MPI_Comm_set_name's, or the adapter's default). */
VT_MPI_EXPORT void vt_mpi_comm_name(uint32_t id, const char *name);
/* Copies the name communicator id has now into buf (len bytes, cut); false (buf "") when
 * it has none. The adapter names what it makes after it ("MPI_Comm_dup of NAME"). */
VT_MPI_EXPORT bool vt_mpi_comm_name_get(uint32_t id, char *buf, size_t len);

/* The adapter's own locks are libc's, never the program's that vt records (VT_PTHREAD):
 * libvt-mpi is compiled with -Dpthread_mutex_lock=vt_real_mutex_lock and so on (see
 * interpose/vt_interpose.h, where libvt defines them). */
struct timespec;
int vt_real_mutex_lock(pthread_mutex_t *m);
int vt_real_mutex_trylock(pthread_mutex_t *m);
int vt_real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at);
int vt_real_mutex_unlock(pthread_mutex_t *m);
int vt_real_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int vt_real_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at);
int vt_real_cond_signal(pthread_cond_t *c);
int vt_real_cond_broadcast(pthread_cond_t *c);
int vt_real_join(pthread_t th, void **ret);

#endif
