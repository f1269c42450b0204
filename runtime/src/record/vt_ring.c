/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode: buffer halves kept in turn, the oldest replayed into the window's open frames. */
#include "record/vt_ring.h"
#include "base/vt_compiler.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_sys.h"
#include "regions/vt_region.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A frame open at the window's start: its region and when it was entered. */
struct ring_frame {
	uint32_t region;
	uint64_t ts;
};

/* The frames a new ring has room for before it allocates (not in a signal handler). */
#define RING_FRAMES 64

/* The channels a new table has room for before it allocates. */
#define TAB_CHANS 16

struct vt_ring {
	struct vt_rec **slot; /* n_slots halves: the buffer's two, then the mapping's */
	struct vt_rec **end;  /* where each full slot's records end */
	struct vt_rec *extra; /* the slots beyond the buffer's two, one mapping */
	size_t extra_bytes;
	size_t half; /* records per slot */
	unsigned n_slots;
	unsigned cur;	 /* the slot being filled */
	unsigned n_full; /* full slots, oldest at cur - n_full (mod n_slots) */
	uint64_t left;	 /* slots that left the ring */
	/* The frames open at the window's start, outermost first. */
	struct ring_frame *open;
	size_t depth, cap;
	uint64_t too_deep; /* frames a signal handler's replay could not keep */
	bool has_seq;	   /* the location's VT_REC_THREAD_BEGIN, kept when its half left */
	struct vt_rec seq[2];
	/* The channels of the messages and collective ends that left: v[0] counts them. */
	struct vt_msg_tab chans;
};

struct vt_ring *vt_ring_new(struct vt_rec *half0, struct vt_rec *half1, size_t half)
{
	size_t half_bytes = half * sizeof(struct vt_rec);
	uint64_t kept = vt_cfg.ring_size / half_bytes;
	if (kept < 1)
		kept = 1;
	if (kept > 1u << 20)
		kept = 1u << 20;
	struct vt_ring *g = calloc(1, sizeof(*g));
	/* The kept halves, the one being filled and the one that left last, until it is
	 * replayed. */
	unsigned n = (unsigned)kept + 2;
	if (g) {
		g->slot = calloc(n, sizeof(*g->slot));
		g->end = calloc(n, sizeof(*g->end));
		g->open = malloc(RING_FRAMES * sizeof(*g->open));
		vt_msg_tab_init(&g->chans);
	}
	if (n > 2 && g && g->slot) {
		/* mmap: pages become resident as the ring fills, not up front. */
		g->extra_bytes = (n - 2) * half_bytes;
		g->extra = vt_sys_mmap(NULL, g->extra_bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->extra == MAP_FAILED)
			g->extra = NULL;
	}
	if (!g || !g->slot || !g->end || !g->open || !g->chans.t || (n > 2 && !g->extra)) {
		vt_error("cannot allocate a %lu-byte ring (VT_RING_SIZE) for a new thread: %s; "
			 "that thread is not recorded",
			 (unsigned long)vt_cfg.ring_size, strerror(errno));
		vt_ring_free(g);
		return NULL;
	}
	g->half = half;
	g->n_slots = n;
	g->cap = RING_FRAMES;
	g->slot[0] = half0;
	g->slot[1] = half1;
	for (unsigned k = 2; k < n; k++)
		g->slot[k] = g->extra + (size_t)(k - 2) * half;
	return g;
}

void vt_ring_free(struct vt_ring *g)
{
	if (!g)
		return;
	if (g->extra)
		vt_sys_munmap(g->extra, g->extra_bytes);
	free(g->slot);
	free(g->end);
	free(g->open);
	vt_msg_tab_free(&g->chans);
	free(g);
}

static void push_slow(struct vt_ring *g, uint32_t region, uint64_t ts, bool in_handler)
{
	if (g->depth == g->cap) {
		struct ring_frame *f =
		    in_handler ? NULL : realloc(g->open, 2 * g->cap * sizeof(*f));
		if (!f) {
			g->too_deep++;
			return;
		}
		g->open = f;
		g->cap *= 2;
	}
	g->open[g->depth++] = (struct ring_frame){region, ts};
}

static inline void push(struct vt_ring *g, uint32_t region, uint64_t ts, bool in_handler)
{
	if (vt_likely(g->depth < g->cap))
		g->open[g->depth++] = (struct ring_frame){region, ts};
	else
		push_slow(g, region, ts, in_handler);
}

/* A Leave closes its innermost frame (and those above it, as the encoder does); a Leave
 * of a frame not kept (too deep) closes one of those first. */
static void pop_slow(struct vt_ring *g, uint32_t region)
{
	if (g->too_deep) {
		g->too_deep--;
		return;
	}
	size_t d = g->depth;
	while (d > 0 && g->open[d - 1].region != region)
		d--;
	if (d > 0)
		g->depth = d - 1;
}

static inline void pop(struct vt_ring *g, uint32_t region)
{
	if (vt_likely(g->depth && !g->too_deep && g->open[g->depth - 1].region == region))
		g->depth--;
	else
		pop_slow(g, region);
}

/* A message's or collective end's channel; false for other records. */
static bool msg_of(const struct vt_rec *r, struct vt_ring_msg *m)
{
	const union vt_rec_payload *p = (const union vt_rec_payload *)(r + 1);
	switch (r->kind) {
	case VT_REC_MPI_SEND:
	case VT_REC_MPI_ISEND:
	case VT_REC_MPI_RECV:
	case VT_REC_MPI_IRECV:
		m->kind = r->kind == VT_REC_MPI_SEND || r->kind == VT_REC_MPI_ISEND ? VT_RING_SEND
										    : VT_RING_RECV;
		m->comm = p[0].msg.comm;
		m->peer = r->region & ~VT_REC_CUT;
		m->tag = p[0].msg.tag;
		return true;
	case VT_REC_MPI_COLL_END:
		*m = (struct vt_ring_msg){VT_RING_COLL, p[0].coll.comm, 0, 0};
		return true;
	default:
		return false;
	}
}

static size_t chan_hash(const struct vt_ring_msg *m, size_t mask)
{
	uint64_t h = ((uint64_t)m->kind << 56) ^ ((uint64_t)m->comm << 32) ^
		     ((uint64_t)m->peer << 16) ^ m->tag;
	h *= 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & mask;
}

static struct vt_msg_chan *chan_slot(struct vt_msg_chan *t, size_t n, const struct vt_ring_msg *m)
{
	size_t i = chan_hash(m, n - 1);
	while (t[i].used && memcmp(&t[i].key, m, sizeof(*m)) != 0)
		i = (i + 1) & (n - 1);
	return &t[i];
}

void vt_msg_tab_init(struct vt_msg_tab *tab)
{
	*tab = (struct vt_msg_tab){calloc(TAB_CHANS, sizeof(*tab->t)), TAB_CHANS, 0, false};
}

void vt_msg_tab_free(struct vt_msg_tab *tab)
{
	free(tab->t);
	tab->t = NULL;
}

struct vt_msg_chan *vt_msg_tab_get(struct vt_msg_tab *tab, const struct vt_ring_msg *m,
				   bool may_grow)
{
	struct vt_msg_chan *c = tab->t ? chan_slot(tab->t, tab->n, m) : NULL;
	if (!c || c->used)
		return c;
	if (2 * (tab->used + 1) > tab->n) {
		size_t n = 2 * tab->n;
		struct vt_msg_chan *t = may_grow ? calloc(n, sizeof(*t)) : NULL;
		if (!t) {
			tab->lost = true;
			return NULL;
		}
		for (size_t i = 0; i < tab->n; i++)
			if (tab->t[i].used)
				*chan_slot(t, n, &tab->t[i].key) = tab->t[i];
		free(tab->t);
		tab->t = t;
		tab->n = n;
		c = chan_slot(t, n, m);
	}
	c->key = *m;
	c->used = true;
	tab->used++;
	return c;
}

bool vt_ring_left_msgs(const struct vt_ring *g,
		       void (*fn)(void *arg, const struct vt_ring_msg *m, uint64_t n), void *arg)
{
	for (size_t i = 0; i < g->chans.n; i++)
		if (g->chans.t[i].used)
			fn(arg, &g->chans.t[i].key, g->chans.t[i].v[0]);
	return !g->chans.lost;
}

void vt_ring_replay(struct vt_ring *g, const struct vt_rec *r, const struct vt_rec *to,
		    bool in_handler)
{
	for (; r < to; r++) {
		/* Enter and Leave, by far the most, first. */
		if (r->kind == VT_REC_ENTER) {
			push(g, r->region & VT_REGION_ID_MASK, r->ts, in_handler);
			continue;
		}
		if (r->kind == VT_REC_LEAVE) {
			pop(g, r->region & VT_REGION_ID_MASK);
			continue;
		}
		if (r->kind == VT_REC_METRIC)
			continue;
		unsigned n = vt_rec_payloads(r);
		uint32_t region = r->region & VT_REGION_ID_MASK;
		if (r + n >= to && n)
			break;
		const union vt_rec_payload *p = (const union vt_rec_payload *)(r + 1);
		struct vt_ring_msg m;
		struct vt_msg_chan *c;
		if (msg_of(r, &m) && (c = vt_msg_tab_get(&g->chans, &m, !in_handler)))
			c->v[0]++;
		switch (r->kind) {
		case VT_REC_IO_OP_BEGIN:
			if (p[0].io.flags & VT_REC_IO_OP_ALONE)
				break;
			push(g, region, r->ts, in_handler);
			if (__atomic_load_n(&p[1].io_end.ts, __ATOMIC_ACQUIRE))
				pop(g, region);
			break;
		case VT_REC_IO_OP_END:
			if (!(p[0].io.flags & VT_REC_IO_OP_ALONE))
				pop(g, region);
			break;
		case VT_REC_THREAD_BEGIN:
			g->seq[0] = r[0];
			g->seq[1] = r[1];
			g->has_seq = true;
			break;
		default:
			break;
		}
		r += n;
	}
}

struct vt_rec *vt_ring_rotate(struct vt_ring *g, struct vt_rec *pos, const struct vt_rec **from,
			      const struct vt_rec **to)
{
	g->end[g->cur] = pos;
	g->n_full++;
	g->cur = (g->cur + 1) % g->n_slots;
	*from = *to = NULL;
	if (g->n_full > g->n_slots - 2) {
		/* The oldest half leaves the window; it is the slot to fill after this one. */
		unsigned oldest = (g->cur + g->n_slots - g->n_full) % g->n_slots;
		*from = g->slot[oldest];
		*to = g->end[oldest];
		g->n_full--;
		g->left++;
	}
	return g->slot[g->cur];
}

uint64_t vt_ring_lost_bytes(const struct vt_ring *g)
{
	return g->left * g->half * sizeof(struct vt_rec);
}

/* A job's snapshot: the window every rank writes (vt_ring_cut). */
static struct {
	uint64_t t0, t1;
	bool on;
} cut;

void vt_ring_cut(uint64_t t0, uint64_t t1)
{
	cut.t0 = t0;
	cut.t1 = t1;
	cut.on = true;
}

uint64_t vt_ring_window_start(const struct vt_ring *g, const struct vt_rec *upto)
{
	unsigned first = (g->cur + g->n_slots - g->n_full) % g->n_slots;
	const struct vt_rec *cur = g->slot[g->cur];
	if (!g->left)
		return 0;
	if (g->n_full)
		return g->slot[first][0].ts;
	return upto > cur && upto <= cur + g->half ? cur[0].ts : 0;
}

/* The first record of [r, to) whose time is past ts (after: >, else >=); to if none. */
static const struct vt_rec *first_from(const struct vt_rec *r, const struct vt_rec *to, uint64_t ts,
				       bool after)
{
	while (r < to && (after ? r->ts <= ts : r->ts < ts))
		r += 1 + (r->kind == VT_REC_METRIC ? 0 : vt_rec_payloads(r));
	return r < to ? r : to;
}

void vt_ring_each_msg(struct vt_ring *g, struct vt_rec *upto,
		      void (*fn)(void *arg, const struct vt_ring_msg *m, int where,
				 struct vt_rec *head),
		      void *arg)
{
	unsigned first = (g->cur + g->n_slots - g->n_full) % g->n_slots;
	struct vt_rec *cur = g->slot[g->cur];
	bool has_cur = upto > cur && upto <= cur + g->half;
	for (unsigned i = 0; i < g->n_full + (has_cur ? 1 : 0); i++) {
		unsigned s = (first + i) % g->n_slots;
		struct vt_rec *r = i < g->n_full ? g->slot[s] : cur;
		struct vt_rec *to = i < g->n_full ? g->end[s] : upto;
		while (r < to) {
			unsigned n = r->kind == VT_REC_METRIC ? 0 : vt_rec_payloads(r);
			struct vt_ring_msg m;
			if (r + n >= to && n)
				break;
			if (msg_of(r, &m)) {
				int where = !cut.on	     ? 0
					    : r->ts < cut.t0 ? -1
					    : r->ts > cut.t1 ? 1
							     : 0;
				fn(arg, &m, where, r);
			}
			r += 1 + n;
		}
	}
}

void vt_ring_write(struct vt_ring *g, struct vt_rec *upto, void *arg,
		   void (*encode)(void *arg, const struct vt_rec *from, const struct vt_rec *to))
{
	unsigned first = (g->cur + g->n_slots - g->n_full) % g->n_slots;
	struct vt_rec *cur = g->slot[g->cur];
	bool has_cur = upto > cur && upto <= cur + g->half;
	/* The window's parts in order: the full halves oldest first, the current one. */
	unsigned n = g->n_full + (has_cur ? 1 : 0), i = 0;
	const struct vt_rec **from = malloc(2 * (n ? n : 1) * sizeof(*from)), **to = from + n;
	if (!from) {
		vt_error("no memory to write a ring's window; that thread's window is not written");
		return;
	}
	for (unsigned k = 0; k < g->n_full; k++) {
		unsigned s = (first + k) % g->n_slots;
		from[k] = g->slot[s];
		to[k] = g->end[s];
	}
	if (has_cur) {
		from[n - 1] = cur;
		to[n - 1] = upto;
	}
	/* A job's snapshot: what came before its window joins the frames open at its start. */
	bool cutting = false;
	uint64_t start = n ? from[0]->ts : 0;
	for (; cut.on && i < n; i++) {
		const struct vt_rec *at = first_from(from[i], to[i], cut.t0, false);
		if (at > from[i]) {
			vt_ring_replay(g, from[i], at, false);
			cutting = true;
			start = cut.t0;
		}
		from[i] = at;
		if (at < to[i])
			break;
	}
	if (cutting && i == n)
		start = cut.t0;
	if (g->left || cutting) {
		/* The window's start: its first record's time, or the job's. */
		size_t k = 0, m = 2 * g->depth + 3;
		struct vt_rec *pre = malloc(m * sizeof(*pre));
		if (!pre) {
			vt_error("no memory for the %zu frames open at the ring's window start; "
				 "that thread's window is not written",
				 g->depth);
			free(from);
			return;
		}
		if (g->has_seq) {
			pre[k] = g->seq[0];
			pre[k++].ts = start;
			pre[k++] = g->seq[1];
		}
		for (size_t d = 0; d < g->depth; d++) {
			pre[k++] = (struct vt_rec){start, g->open[d].region, VT_REC_ENTER_BEFORE};
			struct vt_rec_value *v = (struct vt_rec_value *)&pre[k++];
			v->value = g->open[d].ts;
			v->unused = 0;
		}
		pre[k++] = (struct vt_rec){start, 1, VT_REC_MEASURE};
		encode(arg, pre, pre + k);
		free(pre);
	}
	for (; i < n; i++) {
		const struct vt_rec *end =
		    cut.on ? first_from(from[i], to[i], cut.t1, true) : to[i];
		encode(arg, from[i], end);
		if (end < to[i])
			break;
	}
	free(from);
}
