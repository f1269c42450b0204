/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's own OTF2 writer: chunks, time records, attributes, event and local definition kinds. */
#include "archive/vt_evtw.h"

#include <errno.h>
#include <otf2/OTF2_IdMap.h>
#include <stdlib.h>

/* A chunk's header: its kind, the byte libotf2 writes for this platform's order, the
 * numbers of its first and last event. */
#define CHUNK_HEADER 18u
#define TS_RECORD    9u
/* What the compressed writes may touch past their last byte (a whole word copied): the
 * chunk's memory has that much more than the chunk, so a record's room is its exact bound. */
#define SLACK 8u
/* Kept at a chunk's end for its end byte: a record fits if its bound does in the rest. */
#define END_ROOM 1u

static void header(struct vt_evtw *w)
{
	w->chunk[0] = 0x03;
	w->chunk[1] = 0x42;
	w->first = w->n_events + 1;
	memcpy(w->chunk + 2, &w->first, 8);
	memset(w->chunk + 10, 0, 8);
	w->pos = w->chunk + CHUNK_HEADER;
	w->limit = w->chunk + w->chunk_size - END_ROOM;
	w->last_ts = 0;
}

int vt_evtw_init(struct vt_evtw *w, size_t chunk_size, unsigned n_chunks, vt_evtw_out_fn out,
		 void *arg)
{
	memset(w, 0, sizeof(*w));
	w->buf_size = chunk_size * (n_chunks ? n_chunks : 1);
	w->buf = malloc(w->buf_size + SLACK + 2);
	if (!w->buf)
		return -ENOMEM;
	w->chunk = w->buf;
	w->chunk_size = chunk_size;
	w->out = out;
	w->arg = arg;
	header(w);
	return 0;
}

/* The chunks from the buffer's start to end handed over. */
static int hand_over(struct vt_evtw *w, const uint8_t *end)
{
	int rc = w->out(w->arg, w->buf, (size_t)(end - w->buf));
	if (rc < 0 && !w->error)
		w->error = rc;
	return rc;
}

/*
 * A full chunk ended (its last event's number in its header, its end byte, the unread rest
 * zeroed: the file holds no stale memory); the buffer handed over when this was its last
 * chunk; the next chunk begun.
 */
static int next_chunk(struct vt_evtw *w)
{
	memcpy(w->chunk + 10, &w->n_events, 8);
	*w->pos = 0x00;
	uint8_t *end = w->chunk + w->chunk_size;
	memset(w->pos + 1, 0, (size_t)(end - w->pos - 1));
	int rc = 0;
	if (end == w->buf + w->buf_size) {
		rc = hand_over(w, end);
		w->chunk = w->buf;
	} else {
		w->chunk = end;
	}
	header(w);
	if (rc < 0) /* no room ever after: every event takes the slow path, which refuses it */
		w->limit = w->pos;
	return rc;
}

int vt_evtw_close(struct vt_evtw *w)
{
	if (!w->buf)
		return w->error;
	/* The end's two bytes stay in their chunk: a chunk full to its last byte but one ends
	 * there, and a chunk of its own holds the end. */
	if (!w->error && w->pos + 2 > w->chunk + w->chunk_size)
		next_chunk(w);
	if (!w->error) {
		memcpy(w->chunk + 10, &w->n_events, 8);
		w->pos[0] = 0x02;
		w->pos[1] = 0x01;
		hand_over(w, w->pos + 2);
	}
	vt_evtw_discard(w);
	return w->error;
}

void vt_evtw_discard(struct vt_evtw *w)
{
	free(w->buf);
	w->buf = w->chunk = w->pos = w->limit = NULL;
}

/* A signed 64-bit integer: as an unsigned one, without the short form of all ones. */
static uint8_t *put_i64(uint8_t *p, int64_t s)
{
	uint64_t v = (uint64_t)s;
	if (v == 0) {
		*p = 0;
		return p + 1;
	}
	unsigned n = 8 - (unsigned)__builtin_clzll(v) / 8;
	*p = (uint8_t)n;
	memcpy(p + 1, &v, 8);
	return p + 1 + n;
}

/* The counts from which libotf2's bound reaches 255: 15 bytes an attribute, 10 a metric
 * value (found by writing lists and metrics of each count with libotf2 3.0). */
#define ATTRS_LONG  17u
#define VALUES_LONG 25u

/* The bound of an attribute list of n, libotf2's: 15 bytes an attribute. */
static size_t attrs_max(uint32_t n)
{
	return n ? 1 + (n >= ATTRS_LONG ? 9 : 1) + 5 + (size_t)n * (5 + 1 + 9) : 0;
}

/* A value of an attribute or of a field, by its OTF2 type. */
static uint8_t *put_typed(uint8_t *p, OTF2_Type type, uint64_t v)
{
	switch (type) {
	case OTF2_TYPE_UINT8:
		*p = (uint8_t)v;
		return p + 1;
	case OTF2_TYPE_UINT32:
		return vt_evtw_u32(p, (uint32_t)v);
	case OTF2_TYPE_INT64:
		return put_i64(p, (int64_t)v);
	default: /* UINT64 */
		return vt_evtw_u64(p, v);
	}
}

/* A record's length before its n bytes at p + 1: one byte, or 0xff and eight (the bytes
 * moved to make room) when the record's kind and count could reach 255 bytes: libotf2
 * decides by that bound, not by the record's size. The record's end. */
static uint8_t *put_length(uint8_t *p, size_t n, bool long_form)
{
	if (!long_form) {
		*p = (uint8_t)n;
		return p + 1 + n;
	}
	memmove(p + 9, p + 1, n);
	uint64_t n64 = n;
	*p = 0xff;
	memcpy(p + 1, &n64, 8);
	return p + 9 + n;
}

static uint8_t *put_attrs(uint8_t *p, const struct vt_evtw_attr *a, uint32_t n)
{
	*p = 0x06;
	uint8_t *q = vt_evtw_u32(p + 2, n);
	for (uint32_t i = 0; i < n; i++) {
		q = vt_evtw_u32(q, a[i].id);
		*q++ = a[i].type;
		q = put_typed(q, a[i].type, a[i].value);
	}
	return put_length(p + 1, (size_t)(q - p - 2), n >= ATTRS_LONG);
}

uint8_t *vt_evtw_begin_slow(struct vt_evtw *w, uint64_t ts, size_t max,
			    const struct vt_evtw_attr *attrs, uint32_t n_attrs)
{
	if (w->error)
		return NULL;
	size_t need = TS_RECORD + attrs_max(n_attrs) + max;
	if ((size_t)(w->limit - w->pos) < need && next_chunk(w) < 0)
		return NULL;
	uint8_t *p = w->pos;
	if (ts != w->last_ts || ts == 0) {
		*p = 0x05;
		memcpy(p + 1, &ts, 8);
		w->last_ts = ts;
		p += TS_RECORD;
	}
	if (n_attrs)
		p = put_attrs(p, attrs, n_attrs);
	w->n_events++;
	return p;
}

/*
 * A record of the kinds with few fields, described by fmt: 'u' a compressed 32-bit
 * unsigned, 'U' 64-bit, 'b' a raw byte, 's' a signed 64-bit, 't' a raw time; type's kind
 * has a length unless no_length.
 */
static bool rec(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs, uint64_t ts,
		uint8_t type, bool no_length, const char *fmt, const uint64_t *f)
{
	size_t max = no_length ? 1 : 2; /* its bound, libotf2's */
	for (const char *c = fmt; *c; c++)
		max += *c == 'u' ? 5 : *c == 'b' ? 1 : *c == 't' ? 8 : 9;
	uint8_t *p =
	    n_attrs ? vt_evtw_begin_slow(w, ts, max, attrs, n_attrs) : vt_evtw_begin(w, ts, max);
	if (!p)
		return false;
	*p = type;
	uint8_t *q = p + (no_length ? 1 : 2);
	for (const char *c = fmt; *c; c++, f++) {
		switch (*c) {
		case 'u':
			q = vt_evtw_u32(q, (uint32_t)*f);
			break;
		case 'U':
			q = vt_evtw_u64(q, *f);
			break;
		case 'b':
			*q++ = (uint8_t)*f;
			break;
		case 's':
			q = put_i64(q, (int64_t)*f);
			break;
		default: /* 't' */
			memcpy(q, f, 8);
			q += 8;
			break;
		}
	}
	w->pos = no_length ? q : put_length(p + 1, (size_t)(q - p - 2), false);
	return true;
}

#define REC(w, a, n, ts, type, fmt, ...)                                                           \
	rec(w, a, n, ts, type, false, fmt, (const uint64_t[]){__VA_ARGS__})

bool vt_evtw_enter_attrs(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t region)
{
	return rec(w, attrs, n_attrs, ts, 0x0c, true, "u", (const uint64_t[]){region});
}

bool vt_evtw_leave_attrs(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t region)
{
	return rec(w, attrs, n_attrs, ts, 0x0d, true, "u", (const uint64_t[]){region});
}

bool vt_evtw_buffer_flush(struct vt_evtw *w, uint64_t ts, uint64_t stop)
{
	return REC(w, NULL, 0, ts, 0x0a, "t", stop);
}

bool vt_evtw_measurement(struct vt_evtw *w, uint64_t ts, OTF2_MeasurementMode mode)
{
	return REC(w, NULL, 0, ts, 0x0b, "b", mode);
}

bool vt_evtw_metric(struct vt_evtw *w, uint64_t ts, uint32_t metric, uint8_t n,
		    const OTF2_Type *types, const OTF2_MetricValue *values)
{
	uint8_t *p = vt_evtw_begin(w, ts, 1 + (n >= VALUES_LONG ? 9 : 1) + 5 + 1 + (size_t)n * 10);
	if (!p)
		return false;
	*p = 0x1f;
	uint8_t *q = vt_evtw_u32(p + 2, metric);
	*q++ = n;
	for (uint8_t i = 0; i < n; i++) {
		*q++ = types[i];
		q = vt_evtw_u64(q, values[i].unsigned_int);
	}
	w->pos = put_length(p + 1, (size_t)(q - p - 2), n >= VALUES_LONG);
	return true;
}

bool vt_evtw_sample(struct vt_evtw *w, uint64_t ts, uint32_t context, uint32_t distance,
		    uint32_t generator)
{
	return REC(w, NULL, 0, ts, 0x44, "uuu", context, distance, generator);
}

bool vt_evtw_mpi_send(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t len)
{
	return REC(w, attrs, n_attrs, ts, 0x0e, "uuuU", receiver, comm, tag, len);
}

bool vt_evtw_mpi_isend(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		       uint64_t ts, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t len,
		       uint64_t request)
{
	return REC(w, attrs, n_attrs, ts, 0x0f, "uuuUU", receiver, comm, tag, len, request);
}

bool vt_evtw_mpi_recv(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t len)
{
	return REC(w, attrs, n_attrs, ts, 0x12, "uuuU", sender, comm, tag, len);
}

bool vt_evtw_mpi_irecv(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		       uint64_t ts, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t len,
		       uint64_t request)
{
	return REC(w, attrs, n_attrs, ts, 0x13, "uuuUU", sender, comm, tag, len, request);
}

bool vt_evtw_request(struct vt_evtw *w, uint64_t ts, uint8_t type, uint64_t request)
{
	/* the non-blocking collective's request is the one of these kinds with a length */
	return rec(w, NULL, 0, ts, type, type != VT_EVTW_NBC_REQUEST, "U",
		   (const uint64_t[]){request});
}

bool vt_evtw_coll_begin(struct vt_evtw *w, uint64_t ts)
{
	return rec(w, NULL, 0, ts, 0x16, false, "", NULL);
}

bool vt_evtw_coll_end(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
		      uint64_t sent, uint64_t received)
{
	return REC(w, attrs, n_attrs, ts, 0x17, "buuUU", op, comm, root, sent, received);
}

bool vt_evtw_nbc_complete(struct vt_evtw *w, uint64_t ts, OTF2_CollectiveOp op, uint32_t comm,
			  uint32_t root, uint64_t sent, uint64_t received, uint64_t request)
{
	return REC(w, NULL, 0, ts, 0x56, "buuUUU", op, comm, root, sent, received, request);
}

bool vt_evtw_rma_win(struct vt_evtw *w, uint64_t ts, bool create, uint32_t win)
{
	return REC(w, NULL, 0, ts, create ? 0x23 : 0x24, "u", win);
}

bool vt_evtw_rma_coll_begin(struct vt_evtw *w, uint64_t ts)
{
	return rec(w, NULL, 0, ts, 0x25, false, "", NULL);
}

bool vt_evtw_rma_coll_end(struct vt_evtw *w, uint64_t ts, OTF2_CollectiveOp op,
			  OTF2_RmaSyncLevel level, uint32_t win, uint32_t root, uint64_t sent,
			  uint64_t received)
{
	return REC(w, NULL, 0, ts, 0x26, "buuuUU", op, level, win, root, sent, received);
}

bool vt_evtw_rma_group_sync(struct vt_evtw *w, uint64_t ts, OTF2_RmaSyncLevel level, uint32_t win,
			    uint32_t group)
{
	return REC(w, NULL, 0, ts, 0x27, "uuu", level, win, group);
}

bool vt_evtw_rma_request_lock(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			      uint64_t lock, OTF2_LockType type)
{
	return REC(w, NULL, 0, ts, 0x28, "uuUb", win, remote, lock, type);
}

bool vt_evtw_rma_release_lock(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			      uint64_t lock)
{
	return REC(w, NULL, 0, ts, 0x2b, "uuU", win, remote, lock);
}

bool vt_evtw_rma_xfer(struct vt_evtw *w, uint64_t ts, bool put, uint32_t win, uint32_t remote,
		      uint64_t bytes, uint64_t matching)
{
	return REC(w, NULL, 0, ts, put ? 0x2e : 0x2f, "uuUU", win, remote, bytes, matching);
}

bool vt_evtw_rma_atomic(struct vt_evtw *w, uint64_t ts, uint32_t win, uint32_t remote,
			OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
			uint64_t matching)
{
	return REC(w, NULL, 0, ts, 0x30, "uubUUU", win, remote, type, sent, received, matching);
}

bool vt_evtw_rma_complete(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t win,
			  uint64_t matching)
{
	return REC(w, NULL, 0, ts, type, "uU", win, matching);
}

bool vt_evtw_thread_fork(struct vt_evtw *w, uint64_t ts, OTF2_Paradigm model, uint32_t n)
{
	return REC(w, NULL, 0, ts, 0x35, "bu", model, n);
}

bool vt_evtw_thread_join(struct vt_evtw *w, uint64_t ts, OTF2_Paradigm model)
{
	return REC(w, NULL, 0, ts, 0x36, "b", model);
}

bool vt_evtw_thread_team(struct vt_evtw *w, uint64_t ts, bool begin, uint32_t team)
{
	return REC(w, NULL, 0, ts, begin ? 0x37 : 0x38, "u", team);
}

bool vt_evtw_thread_lock(struct vt_evtw *w, uint64_t ts, bool acquire, OTF2_Paradigm model,
			 uint32_t lock, uint32_t order)
{
	return REC(w, NULL, 0, ts, acquire ? 0x39 : 0x3a, "buu", model, lock, order);
}

bool vt_evtw_thread_task(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t team,
			 uint32_t creator, uint32_t generation)
{
	return REC(w, NULL, 0, ts, type, "uuu", team, creator, generation);
}

bool vt_evtw_thread_seq(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t contingent,
			uint64_t sequence)
{
	return REC(w, NULL, 0, ts, type, "uU", contingent, sequence);
}

bool vt_evtw_io_create_handle(struct vt_evtw *w, uint64_t ts, uint32_t handle,
			      OTF2_IoAccessMode mode, OTF2_IoCreationFlag creation,
			      OTF2_IoStatusFlag status)
{
	return REC(w, NULL, 0, ts, 0x45, "ubuu", handle, mode, creation, status);
}

bool vt_evtw_io_destroy_handle(struct vt_evtw *w, uint64_t ts, uint32_t handle)
{
	return REC(w, NULL, 0, ts, 0x46, "u", handle);
}

bool vt_evtw_io_duplicate_handle(struct vt_evtw *w, uint64_t ts, uint32_t old_handle,
				 uint32_t new_handle, OTF2_IoStatusFlag status)
{
	return REC(w, NULL, 0, ts, 0x47, "uuu", old_handle, new_handle, status);
}

bool vt_evtw_io_seek(struct vt_evtw *w, uint64_t ts, uint32_t handle, int64_t request,
		     OTF2_IoSeekOption whence, uint64_t result)
{
	return REC(w, NULL, 0, ts, 0x48, "usbU", handle, (uint64_t)request, whence, result);
}

bool vt_evtw_io_change_status(struct vt_evtw *w, uint64_t ts, uint32_t handle,
			      OTF2_IoStatusFlag status)
{
	return REC(w, NULL, 0, ts, 0x49, "uu", handle, status);
}

bool vt_evtw_io_delete_file(struct vt_evtw *w, uint64_t ts, OTF2_IoParadigmRef paradigm,
			    uint32_t file)
{
	return REC(w, NULL, 0, ts, 0x4a, "bu", paradigm, file);
}

bool vt_evtw_io_begin(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
		      uint64_t ts, uint32_t handle, OTF2_IoOperationMode mode,
		      OTF2_IoOperationFlag flags, uint64_t request, uint64_t matching)
{
	return REC(w, attrs, n_attrs, ts, 0x4b, "ubuUU", handle, mode, flags, request, matching);
}

bool vt_evtw_io_mark(struct vt_evtw *w, uint64_t ts, uint8_t type, uint32_t handle,
		     uint64_t matching)
{
	return REC(w, NULL, 0, ts, type, "uU", handle, matching);
}

bool vt_evtw_io_complete(struct vt_evtw *w, const struct vt_evtw_attr *attrs, uint32_t n_attrs,
			 uint64_t ts, uint32_t handle, uint64_t result, uint64_t matching)
{
	return REC(w, attrs, n_attrs, ts, 0x4e, "uUU", handle, result, matching);
}

/* ---- local definitions ---- */

/* Room for a definition record of at most max bytes (no time record, nothing counted); its
 * first byte, or NULL if the writer failed or the record can never fit in a chunk. */
static uint8_t *def_begin(struct vt_evtw *w, size_t max)
{
	if (w->error)
		return NULL;
	if (max > w->chunk_size - CHUNK_HEADER - END_ROOM) {
		w->error = -EMSGSIZE;
		return NULL;
	}
	if ((size_t)(w->limit - w->pos) < max && next_chunk(w) < 0)
		return NULL;
	return w->pos;
}

bool vt_evtw_clock_offset(struct vt_evtw *w, uint64_t time, int64_t offset, double stddev)
{
	/* libotf2 sizes a definition record exactly, not by a bound */
	uint64_t v = (uint64_t)offset;
	uint8_t *p = def_begin(w, 2 + 8 + (v ? 9 - (size_t)__builtin_clzll(v) / 8 : 1) + 8);
	if (!p)
		return false;
	*p = 0x06;
	memcpy(p + 2, &time, 8);
	uint8_t *q = put_i64(p + 10, offset);
	memcpy(q, &stddev, 8);
	w->pos = put_length(p + 1, (size_t)(q + 8 - p - 2), false);
	return true;
}

/* The bytes of an unsigned 64-bit field holding v. */
static size_t u64_size(uint64_t v)
{
	return v == 0 || v == UINT64_MAX ? 1 : 9 - (size_t)__builtin_clzll(v) / 8;
}

bool vt_evtw_mapping_table(struct vt_evtw *w, uint8_t type, uint8_t mode, uint64_t n,
			   const uint64_t *items)
{
	uint64_t ids = mode == OTF2_ID_MAP_SPARSE ? 2 * n : n;
	if (ids > w->chunk_size) { /* a byte an id at least: no chunk takes it */
		if (!w->error)
			w->error = -EMSGSIZE;
		return false;
	}
	/* exactly, too; the length takes 8 bytes more from 255 */
	size_t size = 1 + u64_size(n) + 1;
	for (uint64_t i = 0; i < ids; i++)
		size += u64_size(items[i]);
	bool long_form = size >= 255;
	uint8_t *p = def_begin(w, 1 + (long_form ? 9 : 1) + size);
	if (!p)
		return false;
	*p = 0x05;
	p[2] = type;
	uint8_t *q = vt_evtw_u64(p + 3, n);
	*q++ = mode;
	for (uint64_t i = 0; i < ids; i++)
		q = vt_evtw_u64(q, items[i]);
	w->pos = put_length(p + 1, (size_t)(q - p - 2), long_form);
	return true;
}

uint64_t vt_evtw_sparse_map(const uint32_t *pairs, uint64_t n, uint64_t *items)
{
	uint64_t size = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t local = pairs[2 * k], global = pairs[2 * k + 1];
		/* where it goes: after every smaller local id (input in order: at the end) */
		uint64_t lo = 0, hi = size;
		if (size && items[2 * (size - 1)] < local)
			lo = size;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (items[2 * mid] < local)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < size && items[2 * lo] == local) {
			items[2 * lo + 1] = global;
			continue;
		}
		memmove(items + 2 * lo + 2, items + 2 * lo, (size - lo) * 2 * sizeof(*items));
		items[2 * lo] = local;
		items[2 * lo + 1] = global;
		size++;
	}
	return size;
}
