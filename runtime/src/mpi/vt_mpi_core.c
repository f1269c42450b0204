/* SPDX-License-Identifier: BSD-3-Clause */
/* libvt's side of MPI mode: what the MPI adapter calls (see vt_mpi_iface.h). */
#include "archive/vt_otf2.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_topo.h"
#include "mpi/vt_mpi_iface.h"
#include "record/vt_thread.h"
#include "vt/vt_inst.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

VT_MPI_EXPORT int vt_mpi_host_of(int rank)
{
	const struct vt_topo *topo = vt_topo();
	return topo && rank >= 0 && rank < topo->size ? (int)topo->host_of[rank] : -1;
}

VT_MPI_EXPORT void vt_mpi_clock_offset(uint64_t t, int64_t offset, double stddev)
{
	vt_mpi_defs_clock_offset(t, offset, stddev);
}

VT_MPI_EXPORT int vt_mpi_trace_enabled(void)
{
	return vt_core_state() == VT_STATE_ON && vt_cfg.mpitrace;
}

static const char *const group_names[] = {"CG",	   "COLL", "ENV",  "ERR",	"EXT",
					  "IO",	   "MISC", "P2P",  "QUERY",	"RMA",
					  "SPAWN", "TOPO", "TYPE", "XNONBLOCK", "XREQTEST"};
#define GROUPS_ALL     ((1u << (sizeof(group_names) / sizeof(group_names[0]))) - 1)
#define GROUPS_DEFAULT (GROUPS_ALL & ~(uint32_t)VT_MPI_G_QUERY)

/* One word of VT_MPI_GROUPS: its bits, or 0 when unknown. */
static uint32_t group_bits(const char *w, size_t n)
{
	if (n == 7 && strncasecmp(w, "DEFAULT", 7) == 0)
		return GROUPS_DEFAULT;
	if (n == 3 && strncasecmp(w, "ALL", 3) == 0)
		return GROUPS_ALL;
	for (size_t i = 0; i < sizeof(group_names) / sizeof(group_names[0]); i++)
		if (strlen(group_names[i]) == n && strncasecmp(w, group_names[i], n) == 0)
			return 1u << i;
	return 0;
}

/* "NONE", or words separated by ',': NAME and +NAME add, -NAME removes. */
static int groups_parse(const char *s, uint32_t *out)
{
	uint32_t g = 0;
	if (strcasecmp(s, "NONE") == 0) {
		*out = 0;
		return 0;
	}
	for (;;) {
		size_t n = strcspn(s, ",");
		const char *w = s;
		int sign = 1;
		while (n && (*w == ' ' || *w == '\t'))
			w++, n--;
		while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
			n--;
		if (n && (*w == '+' || *w == '-'))
			sign = *w == '-' ? -1 : 1, w++, n--;
		uint32_t b = group_bits(w, n);
		if (!b)
			return -1;
		g = sign < 0 ? g & ~b : g | b;
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
	}
	if (!(g & VT_MPI_G_P2P))
		g &= ~(uint32_t)(VT_MPI_G_XNONBLOCK | VT_MPI_G_XREQTEST);
	*out = g;
	return 0;
}

VT_MPI_EXPORT uint32_t vt_mpi_groups(bool warn)
{
	const char *s = vt_cfg.mpi_groups ? vt_cfg.mpi_groups : "DEFAULT";
	uint32_t g;
	if (groups_parse(s, &g) == 0)
		return g;
	if (warn)
		vt_warn(
		    "VT_MPI_GROUPS=%s: not a ','-separated list of [+-]NAME, NAME one of DEFAULT, "
		    "ALL, CG, COLL, ENV, ERR, EXT, IO, MISC, P2P, QUERY, RMA, SPAWN, TOPO, TYPE, "
		    "XNONBLOCK, XREQTEST (or NONE); DEFAULT used",
		    s);
	return GROUPS_DEFAULT;
}

VT_MPI_EXPORT uint64_t vt_mpi_now(void)
{
	return vt_clock_now();
}

/* vt_mpi_enter but for its common case: the Enter as vt_inst_enter writes it (the first
 * call registers the region), and its time read back when it is the last record of the half
 * being filled (not when filtered or too deep, nor when synchronous counters or a signal
 * handler's events followed it); else now. */
__attribute__((noinline, cold)) static uint64_t enter_slow(struct vt_inst_desc *d)
{
	vt_inst_enter(d);
	struct vt_tls *t = &vt_tls;
	const struct vt_rec *p = t->pos;
	uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
	if (p && h && t->loc && p > t->loc->buf && p[-1].kind == VT_REC_ENTER &&
	    p[-1].region == h - 1)
		return p[-1].ts;
	return vt_clock_now();
}

/*
 * Whether the Enter (entering) or Leave of descriptor d's region is a plain record on thread
 * t, as vt_inst_enter and vt_inst_exit write it: the region registered (handle h, read into
 * *h) and not filtered, within VT_MAX_STACK_DEPTH, no synchronous counters, the TSC as the
 * clock. The one-step writers below take their common case on it.
 */
static inline __attribute__((always_inline)) bool
plain_region(const struct vt_tls *t, struct vt_inst_desc *d, bool entering, uint32_t *h)
{
	*h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
	return *h && !((*h - 1) & VT_REGION_FILTERED) && !t->sync && vt_clock_tsc &&
	       (entering ? t->depth < vt_max_depth : t->depth <= vt_max_depth);
}

VT_MPI_EXPORT uint64_t vt_mpi_enter(struct vt_inst_desc *d)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* The common case, a plain Enter and room in the half being filled; its time is the
	 * call's beginning. The other cases are out of line (this path makes no call). */
	if (vt_unlikely(!plain_region(t, d, true, &h)))
		return enter_slow(d);
	struct vt_rec *p = vt_buf_reserve_fast(t, 1);
	if (vt_unlikely(!p))
		return enter_slow(d);
	t->depth++;
	uint64_t now = __rdtsc();
	*p = (struct vt_rec){now, h - 1, VT_REC_ENTER};
	vt_buf_commit(t, p, 1);
	return now;
}

/*
 * The message and request events' common case: the TSC as the clock and room in the half
 * being filled, for an outermost producer; written in place with no call (they are most of
 * what a request costs, several per request). ts: 0 for now, else a time taken before (an
 * Isend's, at its call's entry), never later than now. false: nothing written, the caller
 * takes the general path (vt_thread_put_event: a thread that does not record yet or no
 * longer, a full half, a signal handler's event).
 */
static inline __attribute__((always_inline)) bool
put_fast(uint64_t ts, uint32_t head, uint32_t kind, const union vt_rec_payload *pl, unsigned n)
{
	struct vt_tls *t = &vt_tls;
	if (vt_unlikely(!vt_clock_tsc))
		return false;
	struct vt_rec *p = vt_buf_reserve_fast(t, 1 + n);
	if (vt_unlikely(!p))
		return false;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){ts && ts < now ? ts : now, head, kind};
	memcpy(p + 1, pl, n * sizeof(*p));
	vt_buf_commit(t, p, 1 + n);
	return true;
}

static void event(uint32_t kind, uint32_t head, const union vt_rec_payload *p, unsigned n)
{
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_put_event(t, head, kind, p, n);
}

VT_MPI_EXPORT void vt_mpi_p2p(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
			      uint64_t bytes)
{
	union vt_rec_payload p = {.msg = {bytes, comm, tag}};
	if (!put_fast(0, peer, kind, &p, 1))
		event(kind, peer, &p, 1);
}

/* vt_mpi_enter_p2p and vt_mpi_p2p_leave but for their common case: one event at a time. */
__attribute__((noinline, cold)) static void enter_p2p_slow(struct vt_inst_desc *d, uint32_t kind,
							   uint32_t peer, uint32_t comm,
							   uint32_t tag, uint64_t bytes)
{
	vt_mpi_enter(d);
	vt_mpi_p2p(kind, peer, comm, tag, bytes);
}

__attribute__((noinline, cold)) static void p2p_leave_slow(uint32_t kind, uint32_t peer,
							   uint32_t comm, uint32_t tag,
							   uint64_t bytes, struct vt_inst_desc *d)
{
	vt_mpi_p2p(kind, peer, comm, tag, bytes);
	vt_inst_exit(d);
}

VT_MPI_EXPORT void vt_mpi_enter_p2p(struct vt_inst_desc *d, uint32_t kind, uint32_t peer,
				    uint32_t comm, uint32_t tag, uint64_t bytes)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* vt_mpi_enter's common case, with room for the message after the Enter. */
	if (vt_unlikely(!plain_region(t, d, true, &h)))
		return enter_p2p_slow(d, kind, peer, comm, tag, bytes);
	struct vt_rec *p = vt_buf_reserve_fast(t, 3);
	if (vt_unlikely(!p))
		return enter_p2p_slow(d, kind, peer, comm, tag, bytes);
	t->depth++;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){now, h - 1, VT_REC_ENTER};
	p[1] = (struct vt_rec){now, peer, kind};
	((union vt_rec_payload *)(p + 2))->msg = (struct vt_rec_msg){bytes, comm, tag};
	vt_buf_commit(t, p, 3);
}

VT_MPI_EXPORT void vt_mpi_p2p_leave(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
				    uint64_t bytes, struct vt_inst_desc *d)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* vt_mpi_isend_leave's common case, for a message of one payload. */
	if (vt_unlikely(!plain_region(t, d, false, &h)))
		return p2p_leave_slow(kind, peer, comm, tag, bytes, d);
	struct vt_rec *p = vt_buf_reserve_fast(t, 3);
	if (vt_unlikely(!p))
		return p2p_leave_slow(kind, peer, comm, tag, bytes, d);
	t->depth--;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){now, peer, kind};
	((union vt_rec_payload *)(p + 1))->msg = (struct vt_rec_msg){bytes, comm, tag};
	p[2] = (struct vt_rec){now, h - 1, VT_REC_LEAVE};
	vt_buf_commit(t, p, 3);
}

VT_MPI_EXPORT void vt_mpi_p2p_request(uint32_t kind, uint32_t peer, uint32_t comm, uint32_t tag,
				      uint64_t bytes, uint64_t request)
{
	union vt_rec_payload p[2] = {{.msg = {bytes, comm, tag}}, {.req = {request, 0}}};
	if (!put_fast(0, peer, kind, p, 2))
		event(kind, peer, p, 2);
}

VT_MPI_EXPORT void vt_mpi_p2p_request_at(uint64_t ts, uint32_t kind, uint32_t peer, uint32_t comm,
					 uint32_t tag, uint64_t bytes, uint64_t request)
{
	union vt_rec_payload p[2] = {{.msg = {bytes, comm, tag}}, {.req = {request, 0}}};
	if (put_fast(ts, peer, kind, p, 2))
		return;
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_put_event_at(t, ts, peer, kind, p, 2);
}

/* vt_mpi_isend_leave but for its common case: the events one at a time. */
__attribute__((noinline, cold)) static void isend_leave_slow(uint64_t ts, uint32_t peer,
							     uint32_t comm, uint32_t tag,
							     uint64_t bytes, uint64_t request,
							     struct vt_inst_desc *d)
{
	vt_mpi_p2p_request_at(ts, VT_REC_MPI_ISEND, peer, comm, tag, bytes, request);
	vt_inst_exit(d);
}

VT_MPI_EXPORT void vt_mpi_isend_leave(uint64_t ts, uint32_t peer, uint32_t comm, uint32_t tag,
				      uint64_t bytes, uint64_t request, struct vt_inst_desc *d)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* The Leave as vt_thread_leave would write it alone (as in vt_mpi_coll_leave), and room
	 * in the half being filled; the other cases out of line. */
	if (vt_unlikely(!plain_region(t, d, false, &h)))
		return isend_leave_slow(ts, peer, comm, tag, bytes, request, d);
	struct vt_rec *p = vt_buf_reserve_fast(t, 4);
	if (vt_unlikely(!p))
		return isend_leave_slow(ts, peer, comm, tag, bytes, request, d);
	t->depth--;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){ts && ts < now ? ts : now, peer, VT_REC_MPI_ISEND};
	union vt_rec_payload *pl = (union vt_rec_payload *)(p + 1);
	pl[0].msg = (struct vt_rec_msg){bytes, comm, tag};
	pl[1].req = (struct vt_rec_req){request, 0};
	p[3] = (struct vt_rec){now, h - 1, VT_REC_LEAVE};
	vt_buf_commit(t, p, 4);
}

VT_MPI_EXPORT void vt_mpi_request(uint32_t kind, uint64_t request)
{
	union vt_rec_payload p = {.req = {request, 0}};
	/* Every Isend's completion and every Irecv's request: one record, the id in the head
	 * (no payload: p is not read). */
	if (request <= UINT32_MAX &&
	    (kind == VT_REC_MPI_ISEND_COMPLETE || kind == VT_REC_MPI_IRECV_REQUEST)) {
		kind = kind == VT_REC_MPI_ISEND_COMPLETE ? VT_REC_MPI_ISEND_COMPLETE_ID32
							 : VT_REC_MPI_IRECV_REQUEST_ID32;
		if (!put_fast(0, (uint32_t)request, kind, &p, 0))
			event(kind, (uint32_t)request, &p, 0);
		return;
	}
	if (!put_fast(0, 0, kind, &p, 1))
		event(kind, 0, &p, 1);
}

/* vt_mpi_request_leave but for its common case: the events one at a time. */
__attribute__((noinline, cold)) static void request_leave_slow(uint32_t kind, uint64_t request,
							       struct vt_inst_desc *d)
{
	vt_mpi_request(kind, request);
	vt_inst_exit(d);
}

VT_MPI_EXPORT void vt_mpi_request_leave(uint32_t kind, uint64_t request, struct vt_inst_desc *d)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* The common case of vt_mpi_isend_leave's, for the one-record kinds of vt_mpi_request. */
	if (vt_unlikely(!plain_region(t, d, false, &h) || request > UINT32_MAX ||
			(kind != VT_REC_MPI_ISEND_COMPLETE && kind != VT_REC_MPI_IRECV_REQUEST)))
		return request_leave_slow(kind, request, d);
	struct vt_rec *p = vt_buf_reserve_fast(t, 2);
	if (vt_unlikely(!p))
		return request_leave_slow(kind, request, d);
	t->depth--;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){now, (uint32_t)request,
			       kind == VT_REC_MPI_ISEND_COMPLETE ? VT_REC_MPI_ISEND_COMPLETE_ID32
								 : VT_REC_MPI_IRECV_REQUEST_ID32};
	p[1] = (struct vt_rec){now, h - 1, VT_REC_LEAVE};
	vt_buf_commit(t, p, 2);
}

/* vt_mpi_completed but for its common case: the events one at a time. */
__attribute__((noinline, cold)) static void completed_slow(const struct vt_mpi_done *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (d[i].kind == VT_REC_MPI_IRECV)
			vt_mpi_p2p_request(VT_REC_MPI_IRECV, d[i].peer, d[i].comm, d[i].tag,
					   d[i].bytes, d[i].id);
		else
			vt_mpi_request(VT_REC_MPI_ISEND_COMPLETE, d[i].id);
	}
}

VT_MPI_EXPORT void vt_mpi_completed(const struct vt_mpi_done *d, unsigned n)
{
	unsigned recs = 0;
	for (unsigned i = 0; i < n; i++)
		recs += d[i].kind == VT_REC_MPI_IRECV ? 3 : d[i].id <= UINT32_MAX ? 1 : 2;
	struct vt_tls *t = &vt_tls;
	struct vt_rec *p = vt_clock_tsc ? vt_buf_reserve_fast(t, recs) : NULL;
	if (vt_unlikely(!p))
		return completed_slow(d, n);
	struct vt_rec *q = p;
	for (unsigned i = 0; i < n; i++) {
		uint64_t now = __rdtsc();
		union vt_rec_payload *pl = (union vt_rec_payload *)(q + 1);
		if (d[i].kind == VT_REC_MPI_IRECV) {
			q[0] = (struct vt_rec){now, d[i].peer, VT_REC_MPI_IRECV};
			pl[0].msg = (struct vt_rec_msg){d[i].bytes, d[i].comm, d[i].tag};
			pl[1].req = (struct vt_rec_req){d[i].id, 0};
			q += 3;
		} else if (d[i].id <= UINT32_MAX) {
			q[0] =
			    (struct vt_rec){now, (uint32_t)d[i].id, VT_REC_MPI_ISEND_COMPLETE_ID32};
			q += 1;
		} else {
			q[0] = (struct vt_rec){now, 0, VT_REC_MPI_ISEND_COMPLETE};
			pl[0].req = (struct vt_rec_req){d[i].id, 0};
			q += 2;
		}
	}
	vt_buf_commit(t, p, recs);
}

VT_MPI_EXPORT void vt_mpi_coll(uint64_t t0, uint32_t op, uint32_t comm, uint32_t root,
			       uint64_t sent, uint64_t received)
{
	struct vt_tls *t = vt_thread_self();
	if (!t)
		return;
	union vt_rec_payload p[2] = {{.coll = {sent, comm, root}}, {.req = {received, 0}}};
	vt_thread_put_pair(t, t0, 0, VT_REC_MPI_COLL_BEGIN, op, VT_REC_MPI_COLL_END, p, 2);
}

/* vt_mpi_coll_leave but for its common case: the events one at a time. */
__attribute__((noinline, cold)) static void coll_leave_slow(uint64_t t0, uint32_t op, uint32_t comm,
							    uint32_t root, uint64_t sent,
							    uint64_t received,
							    struct vt_inst_desc *d)
{
	vt_mpi_coll(t0, op, comm, root, sent, received);
	vt_inst_exit(d);
}

VT_MPI_EXPORT void vt_mpi_coll_leave(uint64_t t0, uint32_t op, uint32_t comm, uint32_t root,
				     uint64_t sent, uint64_t received, struct vt_inst_desc *d)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	/* The common case, the Leave as vt_thread_leave would write it alone (the region
	 * registered and not filtered, within VT_MAX_STACK_DEPTH, no synchronous counters to
	 * read, the TSC as the clock) and room in the half being filled: Begin, End and Leave cost
	 * one reservation and one clock read, and the other cases are out of line, so that this
	 * path makes no call and saves no register. */
	if (vt_unlikely(!plain_region(t, d, false, &h)))
		return coll_leave_slow(t0, op, comm, root, sent, received, d);
	struct vt_rec *p = vt_buf_reserve_fast(t, 5);
	if (vt_unlikely(!p))
		return coll_leave_slow(t0, op, comm, root, sent, received, d);
	t->depth--;
	uint64_t now = __rdtsc();
	p[0] = (struct vt_rec){t0 < now ? t0 : now, 0, VT_REC_MPI_COLL_BEGIN};
	p[1] = (struct vt_rec){now, op, VT_REC_MPI_COLL_END};
	/* The payloads written in place, not built aside and copied. */
	union vt_rec_payload *pl = (union vt_rec_payload *)(p + 2);
	pl[0].coll = (struct vt_rec_coll){sent, comm, root};
	pl[1].req = (struct vt_rec_req){received, 0};
	p[4] = (struct vt_rec){now, h - 1, VT_REC_LEAVE};
	vt_buf_commit(t, p, 5);
}

VT_MPI_EXPORT void vt_mpi_nbc_complete(uint32_t op, uint32_t comm, uint32_t root, uint64_t sent,
				       uint64_t received, uint64_t request)
{
	union vt_rec_payload p[2] = {{.coll = {sent, comm, root}}, {.nbc = {received, request}}};
	event(VT_REC_MPI_NBC_COMPLETE, op, p, 2);
}

VT_MPI_EXPORT uint32_t vt_mpi_win_define(uint64_t key, uint32_t comm, const char *name)
{
	return vt_mpi_defs_win(key, comm, name);
}

VT_MPI_EXPORT void vt_mpi_win_name(uint32_t id, const char *name)
{
	vt_mpi_defs_win_name(id, name);
}

VT_MPI_EXPORT uint32_t vt_mpi_io_define(uint64_t key, uint32_t comm, const char *file)
{
	return vt_mpi_defs_io(key, comm, file);
}

VT_MPI_EXPORT uint32_t vt_mpi_group_define(const char *members)
{
	return vt_mpi_defs_group(members);
}

VT_MPI_EXPORT void vt_mpi_event(uint64_t ts, uint32_t kind, uint32_t head, uint64_t value,
				uint32_t win, uint32_t remote, uint64_t received, uint64_t id)
{
	struct vt_tls *t = vt_thread_self();
	if (!t || kind >= VT_REC_KIND_MAX)
		return;
	union vt_rec_payload p[2] = {{.rma = {value, win, remote}}, {.nbc = {received, id}}};
	unsigned n = vt_rec_kinds[kind].payloads;
	if (ts)
		vt_thread_put_event_at(t, ts, head, kind, p, n);
	else
		vt_thread_put_event(t, head, kind, p, n);
}

VT_MPI_EXPORT void vt_mpi_comm_name(uint32_t id, const char *name)
{
	vt_mpi_defs_comm_name(id, name);
}

VT_MPI_EXPORT uint32_t vt_mpi_comm_define(uint64_t key, uint32_t my_rank, uint32_t size)
{
	return vt_mpi_defs_comm(key, my_rank, size);
}

VT_MPI_EXPORT bool vt_mpi_comm_name_get(uint32_t id, char *buf, size_t len)
{
	return vt_mpi_defs_comm_name_get(id, buf, len);
}
