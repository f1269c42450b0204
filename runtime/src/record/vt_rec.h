/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw records of the per-thread buffer: one table of kinds, their payloads and sizes. */
#ifndef VT_REC_H
#define VT_REC_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An event is a head record and 0..2 payload records that follow it in the same half of the
 * buffer. Every record is 16 bytes; a kind's payload has a struct of its own below, so no
 * field carries another meaning by convention. Adding a kind: one enum value, one payload
 * struct if it needs one, one row in vt_rec_kinds (vt_rec.c) and its encoder in
 * archive/vt_encode.c. Payload views may alias the records they overlay (may_alias): producers
 * write them, the encoder reads heads and payloads through them.
 */
enum vt_rec_kind {
	VT_REC_ENTER = 1,
	VT_REC_LEAVE,
	VT_REC_MPI_SEND,	      /* head: peer; + vt_rec_msg */
	VT_REC_MPI_RECV,	      /* head: peer; + vt_rec_msg */
	VT_REC_MPI_ISEND,	      /* head: peer; + vt_rec_msg, vt_rec_req */
	VT_REC_MPI_IRECV,	      /* head: peer; + vt_rec_msg, vt_rec_req */
	VT_REC_MPI_ISEND_COMPLETE,    /* + vt_rec_req */
	VT_REC_MPI_IRECV_REQUEST,     /* + vt_rec_req */
	VT_REC_MPI_REQUEST_TEST,      /* + vt_rec_req */
	VT_REC_MPI_REQUEST_CANCELLED, /* + vt_rec_req */
	VT_REC_MPI_COLL_BEGIN,
	VT_REC_MPI_COLL_END, /* head: the OTF2 collective op; + vt_rec_coll, vt_rec_req (bytes
				received in its id) */
	VT_REC_METRIC,	     /* a vt_rec_metric of its own: a value at the preceding event's time */
	VT_REC_COUNTER,	     /* head: the metric; + vt_rec_value: a value set by the program */
	VT_REC_MEASURE,	     /* head: 1 recording resumes, 0 it pauses (MeasurementOnOff) */
	VT_REC_SAMPLE,	     /* head: frames (low 16 bits) and VT_REC_SAMPLE_CUT; + the frames'
				addresses, innermost first, two per record (vt_sample.h) */
	VT_REC_MPI_NBC_REQUEST,	 /* + vt_rec_req: a non-blocking collective began */
	VT_REC_MPI_NBC_COMPLETE, /* head: the OTF2 collective op; + vt_rec_coll, vt_rec_nbc */
	/* One-sided communication: the window's local id in every event's vt_rec_rma. */
	VT_REC_RMA_WIN_CREATE,	/* head: the window */
	VT_REC_RMA_WIN_DESTROY, /* head: the window */
	VT_REC_RMA_COLL_BEGIN,
	VT_REC_RMA_COLL_END,   /* head: op | sync level << 8; + vt_rec_rma (bytes sent, root),
				  vt_rec_nbc (bytes received) */
	VT_REC_RMA_PUT,	       /* + vt_rec_rma (bytes, target), vt_rec_nbc (id: matching id) */
	VT_REC_RMA_GET,	       /* the same */
	VT_REC_RMA_ATOMIC,     /* head: OTF2_RmaAtomicType; + vt_rec_rma (bytes sent, target),
				  vt_rec_nbc (bytes received, matching id) */
	VT_REC_RMA_COMPLETE,   /* head: VT_RMA_COMPLETE_*; + vt_rec_rma (value: matching id) */
	VT_REC_RMA_LOCK,       /* head: VT_RMA_LOCK_* | OTF2_LockType << 8; + vt_rec_rma (value:
				  lock id, remote: rank or OTF2_UNDEFINED_UINT32 for all) */
	VT_REC_RMA_GROUP_SYNC, /* head: OTF2_RmaSyncLevel; + vt_rec_rma (value: group id) */
	/* I/O (MPI-IO, and POSIX through io/): the I/O handle's local id in every event's
	 * vt_rec_io. */
	VT_REC_IO_CREATE,    /* head: OTF2_IoAccessMode; + vt_rec_io (value: creation flags,
				flags: status flags) */
	VT_REC_IO_DESTROY,   /* + vt_rec_io */
	VT_REC_IO_BEGIN,     /* head: OTF2_IoOperationMode | OTF2_IoOperationFlag << 8;
				+ vt_rec_io (value: bytes requested), vt_rec_nbc (id: matching id) */
	VT_REC_IO_ISSUED,    /* + vt_rec_io (value: matching id) */
	VT_REC_IO_COMPLETE,  /* + vt_rec_io (value: bytes done), vt_rec_nbc (id: matching id) */
	VT_REC_IO_CANCELLED, /* + vt_rec_io (value: matching id) */
	VT_REC_IO_SEEK,	     /* head: OTF2_IoSeekOption; + vt_rec_io (value: offset requested),
				vt_rec_nbc (received: the offset reached) */
	VT_REC_IO_DUP,	     /* + vt_rec_io (handle: the old, value: the new handle, flags:
				the new one's status flags) */
	VT_REC_IO_STATUS,    /* + vt_rec_io (flags: the handle's status flags now) */
	VT_REC_IO_DELETE,    /* + vt_rec_io (handle: a POSIX handle's local id, naming its file) */
	/* A POSIX operation (io/): the call's Enter with its IoOperationBegin and, once its
	 * vt_rec_io_end has a time, its IoOperationComplete (or Cancelled) with its Leave, all
	 * in one event written at the beginning and completed in place at the end, when nothing
	 * was recorded between. Otherwise the end is an event of its own (VT_REC_IO_OP_END),
	 * and Enter and Leave are apart with VT_REC_IO_OP_ALONE. Its matching id is the count
	 * of them on the location, kept by the encoder (operations on one thread never
	 * overlap). */
	VT_REC_IO_OP_BEGIN, /* head: the region; + vt_rec_io (value: bytes requested, flags:
			       OTF2_IoOperationMode | VT_REC_IO_OP_*), vt_rec_io_end */
	VT_REC_IO_OP_END,   /* head: the region; + vt_rec_io (value: bytes done, flags:
			       VT_REC_IO_OP_*) */
	/* OTF2's thread model (OpenMP through OMPT, pthreads through interpose/). A team is a
	 * process-local communicator id the definitions know (defs/); a lock a number unique in
	 * its paradigm; a thread's sequence number ties its creation to its begin, and its end
	 * to the wait for it. */
	VT_REC_THREAD_FORK,	     /* head: threads requested; + vt_rec_thread (paradigm) */
	VT_REC_THREAD_JOIN,	     /* + vt_rec_thread (paradigm) */
	VT_REC_THREAD_TEAM_BEGIN,    /* head: the team */
	VT_REC_THREAD_TEAM_END,	     /* head: the team */
	VT_REC_THREAD_ACQUIRE_LOCK,  /* head: the lock; + vt_rec_thread (paradigm, order) */
	VT_REC_THREAD_RELEASE_LOCK,  /* head: the lock; + vt_rec_thread (paradigm, order) */
	VT_REC_THREAD_TASK_CREATE,   /* head: the team; + vt_rec_thread (creating thread,
					generation) */
	VT_REC_THREAD_TASK_SWITCH,   /* the same */
	VT_REC_THREAD_TASK_COMPLETE, /* the same */
	VT_REC_THREAD_CREATE,	     /* + vt_rec_thread (value: the new thread's sequence) */
	VT_REC_THREAD_WAIT,	     /* + vt_rec_thread (value: the awaited thread's sequence) */
	VT_REC_THREAD_BEGIN,	     /* + vt_rec_thread (value: this thread's sequence): its
					location's first event, before which its ThreadBegin would
					carry the location's index */
	VT_REC_ENTER_BEFORE, /* head: the region; + vt_rec_value (value: when it was entered):
				a frame open at the start of a ring's window (vt_ring.h), entered
				at the head's time, the window's start */
	/* The request events of every Isend and Irecv in one record, when the request id fits
	 * the head (below 2^32; else the kinds above, with a vt_rec_req). */
	VT_REC_MPI_ISEND_COMPLETE_ID32, /* head: the request id */
	VT_REC_MPI_IRECV_REQUEST_ID32,	/* head: the request id */
	VT_REC_KIND_MAX,
};

/* The head record of every event: when, what (region or the kind's head value), which kind. */
struct vt_rec {
	uint64_t ts;
	uint32_t region;
	uint32_t kind;
};

/* A message's size, communicator and tag. */
struct __attribute__((may_alias)) vt_rec_msg {
	uint64_t bytes;
	uint32_t comm;
	uint32_t tag;
};

/* A request id (or, for VT_REC_MPI_COLL_END, the bytes received). */
struct __attribute__((may_alias)) vt_rec_req {
	uint64_t id;
	uint64_t unused;
};

/* A collective's bytes sent, communicator and root (OTF2_UNDEFINED_UINT32: none). */
struct __attribute__((may_alias)) vt_rec_coll {
	uint64_t sent;
	uint32_t comm;
	uint32_t root;
};

/* A window, a value that depends on the kind, and a remote rank (or root). */
struct __attribute__((may_alias)) vt_rec_rma {
	uint64_t value;
	uint32_t win;
	uint32_t remote;
};

/* An I/O handle and a value that depends on the kind. */
struct __attribute__((may_alias)) vt_rec_io {
	uint64_t value;
	uint32_t handle;
	uint32_t flags;
};

/* A POSIX operation's end in its VT_REC_IO_OP_BEGIN: when (0: not yet, or an event of its
 * own ends it) and its result (bytes done; negative: it failed). ts is written last. */
struct __attribute__((may_alias)) vt_rec_io_end {
	uint64_t ts;
	int64_t result;
};

/* VT_REC_IO_OP_*'s flags: the region's Enter or Leave was written apart (or not at all: a
 * filtered region, past VT_MAX_STACK_DEPTH); the operation failed (IoOperationCancelled). */
#define VT_REC_IO_OP_ALONE  0x100u
#define VT_REC_IO_OP_FAILED 0x200u

enum { VT_RMA_COMPLETE_BLOCKING, VT_RMA_COMPLETE_NONBLOCKING, VT_RMA_COMPLETE_REMOTE };
enum { VT_RMA_LOCK_REQUEST, VT_RMA_LOCK_RELEASE };

/* A non-blocking collective's bytes received and request id (and an RMA event's). */
struct __attribute__((may_alias)) vt_rec_nbc {
	uint64_t received;
	uint64_t id;
};

/* A thread-model event's numbers: a sequence number or a lock's acquisition order (value),
 * the paradigm (OTF2_Paradigm) or a task's creating thread (a), a task's generation (b). */
struct __attribute__((may_alias)) vt_rec_thread {
	uint64_t value;
	uint32_t a;
	uint32_t b;
};

/* A synchronous metric value; kind sits where the head's kind does. */
struct __attribute__((may_alias)) vt_rec_metric {
	uint64_t value;
	uint32_t metric;
	uint32_t kind;
};

/* A counter's value, set by the program at the head's time (user counters, perfstubs). */
struct __attribute__((may_alias)) vt_rec_value {
	uint64_t value;
	uint64_t unused;
};

/* What follows a head, as the encoder reads it. */
union __attribute__((may_alias)) vt_rec_payload {
	struct vt_rec raw;
	struct vt_rec_msg msg;
	struct vt_rec_req req;
	struct vt_rec_coll coll;
	struct vt_rec_nbc nbc;
	struct vt_rec_rma rma;
	struct vt_rec_io io;
	struct vt_rec_io_end io_end;
	struct vt_rec_value value;
	struct vt_rec_thread thread;
};

static_assert(sizeof(struct vt_rec) == 16, "a record is 16 bytes");
static_assert(sizeof(struct vt_rec_msg) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_req) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_coll) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_nbc) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_rma) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_io) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_io_end) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_value) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_thread) == 16, "payloads are one record");
static_assert(sizeof(struct vt_rec_metric) == 16, "metric values are one record");
static_assert(sizeof(union vt_rec_payload) == 16, "payloads are one record");
static_assert(offsetof(struct vt_rec_metric, kind) == offsetof(struct vt_rec, kind),
	      "a metric record is told apart by its kind like any head");

/* The largest event of a fixed size in records: an Isend or Irecv, a collective's end. */
#define VT_REC_MAX_FIXED 3

/* The head of a message (MPI_SEND, RECV, ISEND, IRECV) or a collective's end, in a job's
 * snapshot: the window cuts it from its other end (record/vt_ring.h, vt_ring_each_msg). */
#define VT_REC_CUT 0x80000000u

/* A sample's head: its stack was deeper than VT_SAMPLING_DEPTH and is cut there. */
#define VT_REC_SAMPLE_CUT 0x10000u
/* The deepest stack a sample keeps (VT_SAMPLING_DEPTH's maximum): 129 records. */
#define VT_REC_SAMPLE_MAX	     256
#define VT_REC_SAMPLE_FRAMES(region) ((region)&0xFFFFu)

struct vt_rec_kind_info {
	const char *name;
	unsigned payloads; /* records after the head */
};

extern const struct vt_rec_kind_info vt_rec_kinds[VT_REC_KIND_MAX];

/* Records after this head (0 for an unknown kind): the kind's payloads, or for a sample its
 * frames, two per record. */
static inline unsigned vt_rec_payloads(const struct vt_rec *h)
{
	if (h->kind == VT_REC_SAMPLE)
		return (VT_REC_SAMPLE_FRAMES(h->region) + 1) / 2;
	return h->kind < VT_REC_KIND_MAX ? vt_rec_kinds[h->kind].payloads : 0;
}

#endif
