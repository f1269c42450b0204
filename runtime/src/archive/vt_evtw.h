/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's own OTF2 writer: event and local definition records encoded straight into OTF2 chunks. */
#ifndef VT_EVTW_H
#define VT_EVTW_H

/*
 * libotf2's event writer costs ~115 instructions per Enter or Leave (checks, the record's
 * size estimated, the buffer asked for room in several calls) and zero-fills the unused
 * rest of each chunk it writes, a quarter of a MiB at every location's end. This writer
 * produces the same bytes libotf2 3.0 writes for the same calls (test/unit/test-evtw.c
 * compares them record kind by record kind, edge values included, and reads a stream of
 * many chunks back with libotf2's reader), with the worst-case size of a record reserved
 * once and the fields written without checks, as OTF2's own encoders are organised.
 *
 * The format, as libotf2 writes and reads it (little-endian on this platform):
 * - a file is a sequence of chunks of the archive's event chunk size; each starts with a
 *   header (0x03, 0x42, the number of its first event and of its last, 8 raw bytes each;
 *   events count from 1) and a chunk that is not the last ends with a 0x00 byte, the rest
 *   of it unread; the last chunk ends with 0x02 0x01 and the file ends there.
 * - before an event whose time differs from the chunk's last time record (or is 0) a time
 *   record: 0x05 and 8 raw bytes. An attribute list for the event comes after it.
 * - an event: its type byte, for most kinds one byte of length (0xff and 8 raw bytes when
 *   it is 255 or more; Enter, Leave and four MPI request kinds have none), its fields.
 * - fields: an unsigned 32- or 64-bit integer is 0x00 for 0, 0xff for its maximum, else the
 *   count of its significant bytes and those bytes; a signed 64-bit one is its two's
 *   complement's bytes the same way, with no 0xff short form; 8-bit fields and timestamps
 *   are raw; a metric value is its 64 bits as an unsigned integer.
 *
 * The chunks are handed to the writer's output function when the last kept is full (whole
 * chunks) and at the end (the last cut after its last byte). An output that fails makes the writer
 * failed: it takes no record afterwards and says so by its return values.
 */

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A finished chunk, n bytes: written by the output, 0 if all of it was, else -errno. */
typedef int (*vt_evtw_out_fn)(void *arg, const uint8_t *bytes, size_t n);

struct vt_evtw {
	uint8_t *buf; /* the chunks kept until all are full: buf_size bytes */
	size_t buf_size;
	uint8_t *chunk;	   /* the chunk being filled: chunk_size bytes */
	uint8_t *pos;	   /* its next byte */
	uint8_t *limit;	   /* where a record may end: the chunk's end, less its end byte */
	uint64_t last_ts;  /* the chunk's last time record, 0 if none yet */
	uint64_t n_events; /* events written, the last one's number */
	uint64_t first;	   /* the number of the chunk's first event */
	size_t chunk_size;
	vt_evtw_out_fn out;
	void *arg;
	int error; /* the first failed output's -errno; no record is taken after it */
};

/* An attribute of the next event: its id, OTF2 type (UINT8, UINT32, UINT64 or INT64) and
 * value. */
struct vt_evtw_attr {
	uint32_t id;
	OTF2_Type type;
	uint64_t value;
};

/* Ready to write events into chunks of chunk_size bytes (OTF2's limits: 256 KiB to 16
 * MiB), n_chunks of them kept and handed to out(arg, ...) at once, in one large write, when
 * the last is full. 0, or -ENOMEM (the chunks are allocated here; a page is touched when
 * the events reach it). */
int vt_evtw_init(struct vt_evtw *w, size_t chunk_size, unsigned n_chunks, vt_evtw_out_fn out,
		 void *arg);

/* The last chunk handed to the output (also a file with no event has one), the memory
 * freed. 0 or the writer's error. */
int vt_evtw_close(struct vt_evtw *w);

/* The memory freed, nothing written (a writer given up). */
void vt_evtw_discard(struct vt_evtw *w);

/* Room for the time record, an attribute list of n_attrs and a record of at most max bytes
 * in the chunk, the time record and the list written, the event counted; the record's first
 * byte, or NULL if the writer failed (the event is not counted). Out of line: the path for
 * a new chunk or attributes. */
uint8_t *vt_evtw_begin_slow(struct vt_evtw *w, uint64_t ts, size_t max,
			    const struct vt_evtw_attr *attrs, uint32_t n_attrs);

/* The largest record this writer takes: with a length of 8 bytes, 64 metric values. */
#define VT_EVTW_RECORD_MAX 1024u

static inline uint8_t *vt_evtw_begin(struct vt_evtw *w, uint64_t ts, size_t max)
{
	uint8_t *p = w->pos;
	/* room for a time record whether it is written or not, as libotf2 asks */
	if (__builtin_expect((size_t)(w->limit - p) < max + 9, 0))
		return vt_evtw_begin_slow(w, ts, max, NULL, 0);
	if (__builtin_expect(ts == w->last_ts && ts != 0, 1)) {
		w->n_events++;
		return p;
	}
	if (__builtin_expect(ts > w->last_ts, 1)) {
		*p = 0x05;
		memcpy(p + 1, &ts, 8);
		w->last_ts = ts;
		w->n_events++;
		return p + 9;
	}
	return vt_evtw_begin_slow(w, ts, max, NULL, 0);
}

/* An unsigned integer as OTF2 compresses it, at p; the byte after it. */
static inline uint8_t *vt_evtw_u64(uint8_t *p, uint64_t v)
{
	if (v == 0 || v == UINT64_MAX) {
		*p = (uint8_t)v;
		return p + 1;
	}
	unsigned n = 8 - (unsigned)__builtin_clzll(v) / 8;
	*p = (uint8_t)n;
	memcpy(p + 1, &v, 8); /* the bytes past n are overwritten by what follows */
	return p + 1 + n;
}

static inline uint8_t *vt_evtw_u32(uint8_t *p, uint32_t v)
{
	if (v == 0 || v == UINT32_MAX) {
		*p = (uint8_t)v;
		return p + 1;
	}
	unsigned n = 4 - (unsigned)__builtin_clz(v) / 8;
	*p = (uint8_t)n;
	memcpy(p + 1, &v, 4);
	return p + 1 + n;
}

/* An Enter (type 0x0c) or Leave (0x0d): no length, the region compressed. */
static inline bool vt_evtw_region(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t region)
{
	uint8_t *p = vt_evtw_begin(w, ts, 1 + 5);
	if (!p)
		return false;
	*p = type;
	w->pos = vt_evtw_u32(p + 1, region);
	return true;
}

static inline bool vt_evtw_enter(struct vt_evtw *w, uint64_t ts, uint32_t region)
{
	return vt_evtw_region(w, ts, 0x0c, region);
}

static inline bool vt_evtw_leave(struct vt_evtw *w, uint64_t ts, uint32_t region)
{
	return vt_evtw_region(w, ts, 0x0d, region);
}

/*
 * Every other kind vt writes, with libotf2's arguments in its order (OTF2_EvtWriter.h) and an
 * attribute list of n_attrs (attrs may be NULL if 0). true if written; false if the writer
 * failed (the event is not counted).
 */
bool vt_evtw_enter_attrs(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t region);
bool vt_evtw_leave_attrs(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t region);
bool vt_evtw_buffer_flush(struct vt_evtw *w, uint64_t ts, uint64_t stop);
bool vt_evtw_measurement(struct vt_evtw *w, uint64_t ts, OTF2_MeasurementMode mode);
bool vt_evtw_metric(struct vt_evtw *w, uint64_t ts, uint32_t metric, uint8_t n,
		    const OTF2_Type *types, const OTF2_MetricValue *values);
bool vt_evtw_sample(struct vt_evtw *w, uint64_t ts, uint32_t context, uint32_t distance,
		    uint32_t generator);

bool vt_evtw_mpi_send(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t len);
bool vt_evtw_mpi_isend(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		       uint64_t ts, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t len,
		       uint64_t request);
bool vt_evtw_mpi_recv(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t len);
bool vt_evtw_mpi_irecv(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		       uint64_t ts, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t len,
		       uint64_t request);
/* MpiIsendComplete 0x10, MpiIrecvRequest 0x11, MpiRequestTest 0x14, MpiRequestCancelled
 * 0x15, NonBlockingCollectiveRequest 0x55 (this one with a length). */
bool vt_evtw_request(struct vt_evtw *w, uint64_t ts, uint8_t type, uint64_t request);
#define VT_EVTW_ISEND_COMPLETE	  0x10
#define VT_EVTW_IRECV_REQUEST	  0x11
#define VT_EVTW_REQUEST_TEST	  0x14
#define VT_EVTW_REQUEST_CANCELLED 0x15
#define VT_EVTW_NBC_REQUEST	  0x55
bool vt_evtw_coll_begin(struct vt_evtw *w, uint64_t ts);
bool vt_evtw_coll_end(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
		      uint64_t sent, uint64_t received);
bool vt_evtw_nbc_complete(struct vt_evtw *w, uint64_t ts, OTF2_CollectiveOp op, uint32_t comm,
			  uint32_t root, uint64_t sent, uint64_t received, uint64_t request);

bool vt_evtw_rma_win(struct vt_evtw *w, uint64_t ts, bool create, uint32_t win);
bool vt_evtw_rma_coll_begin(struct vt_evtw *w, uint64_t ts);
bool vt_evtw_rma_coll_end(struct vt_evtw *w, uint64_t ts, OTF2_CollectiveOp op,
			  OTF2_RmaSyncLevel level, uint32_t win, uint32_t root, uint64_t sent,
			  uint64_t received);
bool vt_evtw_rma_group_sync(struct vt_evtw *w, uint64_t ts, OTF2_RmaSyncLevel level, uint32_t win,
			    uint32_t group);
bool vt_evtw_rma_request_lock(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			      uint64_t lock, OTF2_LockType type);
bool vt_evtw_rma_release_lock(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			      uint64_t lock);
/* RmaPut 0x2e, RmaGet 0x2f. */
bool vt_evtw_rma_xfer(struct vt_evtw *w, uint64_t ts, bool put, uint32_t win, uint32_t remote,
		      uint64_t bytes, uint64_t matching);
bool vt_evtw_rma_atomic(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
			uint64_t matching);
/* RmaOpCompleteBlocking 0x31, NonBlocking 0x32, Remote 0x34. */
bool vt_evtw_rma_complete(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t win,
			  uint64_t matching);
#define VT_EVTW_RMA_COMPLETE_BLOCKING	 0x31
#define VT_EVTW_RMA_COMPLETE_NONBLOCKING 0x32
#define VT_EVTW_RMA_COMPLETE_REMOTE	 0x34

bool vt_evtw_thread_fork(struct vt_evtw *w, uint64_t ts, OTF2_Paradigm model, uint32_t n);
bool vt_evtw_thread_join(struct vt_evtw *w, uint64_t ts, OTF2_Paradigm model);
/* ThreadTeamBegin 0x37, ThreadTeamEnd 0x38. */
bool vt_evtw_thread_team(struct vt_evtw *w, uint64_t ts, bool begin, uint32_t team);
/* ThreadAcquireLock 0x39, ThreadReleaseLock 0x3a. */
bool vt_evtw_thread_lock(struct vt_evtw *w, uint64_t ts, bool acquire, OTF2_Paradigm model,
			 uint32_t lock, uint32_t order);
bool vt_evtw_thread_task(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t team,
			 uint32_t creator, uint32_t generation);
#define VT_EVTW_TASK_CREATE   0x3b
#define VT_EVTW_TASK_SWITCH   0x3c
#define VT_EVTW_TASK_COMPLETE 0x3d
bool vt_evtw_thread_seq(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t contingent,
			uint64_t sequence);
#define VT_EVTW_THREAD_CREATE 0x3e
#define VT_EVTW_THREAD_BEGIN  0x3f
#define VT_EVTW_THREAD_WAIT   0x40
#define VT_EVTW_THREAD_END    0x41

bool vt_evtw_io_create_handle(struct vt_evtw *w, uint64_t ts, uint32_t handle,
			      OTF2_IoAccessMode mode, OTF2_IoCreationFlag creation,
			      OTF2_IoStatusFlag status);
bool vt_evtw_io_destroy_handle(struct vt_evtw *w, uint64_t ts, uint32_t handle);
bool vt_evtw_io_duplicate_handle(struct vt_evtw *w, uint64_t ts, uint32_t old_handle,
				 uint32_t new_handle, OTF2_IoStatusFlag status);
bool vt_evtw_io_seek(struct vt_evtw *w, uint64_t ts, uint32_t handle, int64_t request,
		     OTF2_IoSeekOption whence, uint64_t result);
bool vt_evtw_io_change_status(struct vt_evtw *w, uint64_t ts, uint32_t handle,
			      OTF2_IoStatusFlag status);
bool vt_evtw_io_delete_file(struct vt_evtw *w, uint64_t ts, OTF2_IoParadigmRef paradigm,
			    uint32_t file);
bool vt_evtw_io_begin(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t handle, OTF2_IoOperationMode mode,
		      OTF2_IoOperationFlag flags, uint64_t request, uint64_t matching);
/* IoOperationIssued 0x4d, IoOperationCancelled 0x4f: handle and matching id. */
bool vt_evtw_io_mark(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t handle,
		     uint64_t matching);
#define VT_EVTW_IO_ISSUED    0x4d
#define VT_EVTW_IO_CANCELLED 0x4f
bool vt_evtw_io_complete(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t handle, uint64_t result, uint64_t matching);

/*
 * Local definitions. A location's local definition file (N.def) is the same chunks with no
 * event in them: every chunk's header says events 1 to 0, and the records need no time
 * record. vt writes two kinds (libotf2 3.0's bytes, test/unit/test-defw.c):
 * - ClockOffset: 0x06, its length (25), the time as 8 raw bytes, the offset as a signed
 *   64-bit field, the deviation's 8 raw bytes (a double);
 * - MappingTable: 0x05, its length (0xff and 8 raw bytes when it is 255 or more: libotf2
 *   sizes an id map exactly, not by a bound), the mapping type byte, the id map: its count of
 * mappings (an unsigned 64-bit field), its mode byte (0 dense, 1 sparse) and its ids, unsigned
 *   64-bit fields (dense: the global ids of local 0, 1, ...; sparse: local and global id in
 *   pairs by local id).
 * A writer for them is vt_evtw_init's with one chunk kept of the archive's definition
 * chunk size; its output gets the chunks as it gets events', the last cut after its end.
 */

/* A ClockOffset record: true if written; false if the writer failed. */
bool vt_evtw_clock_offset(struct vt_evtw *w, uint64_t time, int64_t offset, double stddev);

/* A MappingTable record of OTF2 mapping type type (OTF2_MappingType) with an id map of mode
 * (OTF2_ID_MAP_DENSE or _SPARSE) and n mappings, items as libotf2's OTF2_IdMap keeps them
 * (dense: n global ids; sparse: 2n ids, pairs sorted by local id, each once). true if
 * written; false if the writer failed, or the record does not fit in a chunk (-EMSGSIZE). */
bool vt_evtw_mapping_table(struct vt_evtw *w, uint8_t type, uint8_t mode, uint64_t n,
			   const uint64_t *items);

/* The sparse id map libotf2 makes of n (local, global) pairs added in this order
 * (OTF2_IdMap_AddIdPair: sorted by local id, a local id added again keeps its last global
 * id), into items (2n ids); how many mappings it has. */
uint64_t vt_evtw_sparse_map(const uint32_t *pairs, uint64_t n, uint64_t *items);

#endif
