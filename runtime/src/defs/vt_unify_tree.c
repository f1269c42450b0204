/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification's reduction tree: parts compacted, sent up and down (vt_unify_tree.h). */
#include "defs/vt_unify_tree.h"

#include <stdlib.h>
#include <string.h>

/* A part on the wire: its rank count (0: a part that was lost below), the largest of its
 * ranks' streams before compaction (at most UINT32_MAX), the ranks' sizes, their streams. */
#define HEAD(n) (2 * sizeof(uint32_t) + (size_t)(n) * sizeof(uint64_t))

/* The kinds compaction replaces: each record begins with its local id (u32) after the kind
 * byte; the rest is its content. */
bool vt_unify_tree_kind(enum vt_def_kind kind)
{
	return kind == VT_DEF_REGION || kind == VT_DEF_METRIC || kind == VT_DEF_IGEN ||
	       kind == VT_DEF_GROUP;
}

#define CONTENT (1 + sizeof(uint32_t))

/* The contents seen, by kind and bytes: their ordinal among the kind's records kept whole. */
struct seen {
	struct entry {
		const char *p; /* NULL: free */
		size_t len;
		uint32_t ordinal;
		uint8_t kind;
	} * tab;
	size_t cap, n;
	uint32_t next[VT_DEF_KIND_MAX];
};

static size_t hash(uint8_t kind, const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ kind;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

static struct entry *slot(struct entry *tab, size_t cap, uint8_t kind, const char *p, size_t len)
{
	size_t i = hash(kind, p, len) & (cap - 1);
	while (tab[i].p &&
	       !(tab[i].kind == kind && tab[i].len == len && memcmp(tab[i].p, p, len) == 0))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* The ordinal of the content, or UINT32_MAX after adding it (a new one); *fail on no memory. */
static uint32_t seen_ref(struct seen *s, uint8_t kind, const char *p, size_t len, bool *fail)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct entry *t = calloc(cap, sizeof(*t));
		if (!t) {
			*fail = true;
			return UINT32_MAX;
		}
		for (size_t i = 0; i < s->cap; i++)
			if (s->tab[i].p)
				*slot(t, cap, s->tab[i].kind, s->tab[i].p, s->tab[i].len) =
				    s->tab[i];
		free(s->tab);
		s->tab = t;
		s->cap = cap;
	}
	struct entry *e = slot(s->tab, s->cap, kind, p, len);
	if (e->p)
		return e->ordinal;
	*e = (struct entry){p, len, s->next[kind]++, kind};
	s->n++;
	return UINT32_MAX;
}

/* Per kind, a part's ordinals -> the compacted concatenation's. */
struct ords {
	uint32_t *o;
	uint32_t n, cap;
};

static bool ords_add(struct ords *m, uint32_t v)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? 2 * m->cap : 64;
		uint32_t *o = realloc(m->o, cap * sizeof(*o));
		if (!o)
			return false;
		m->o = o;
		m->cap = cap;
	}
	m->o[m->n++] = v;
	return true;
}

/* Appends that local id of kind is the record kept whole number ordinal: to the last
 * record's range when it is a VT_DEF_SAME that this one continues (*last: its offset in
 * out, SIZE_MAX: none). */
#define SAME_LEN (1 + 4 * sizeof(uint32_t))

static void same(struct vt_defs_buf *out, size_t *last, uint32_t kind, uint32_t id,
		 uint32_t ordinal)
{
	if (*last != SIZE_MAX && *last + SAME_LEN == out->n && !out->failed) {
		uint32_t v[4];
		memcpy(v, out->p + *last + 1, sizeof(v));
		if (v[0] == kind && v[1] + v[3] == id && v[2] + v[3] == ordinal) {
			v[3]++;
			memcpy(out->p + *last + 1 + 3 * sizeof(uint32_t), &v[3], sizeof(v[3]));
			return;
		}
	}
	*last = out->n;
	union vt_def d = {.same = {kind, id, ordinal, 1}};
	vt_defs_put(out, VT_DEF_SAME, &d);
}

int vt_unify_compact(const struct vt_unify_part *parts, uint32_t n_parts, struct vt_defs_buf *out,
		     size_t *sizes)
{
	struct seen s = {0};
	struct ords map[VT_DEF_KIND_MAX];
	bool fail = false;
	size_t rank = 0;
	for (uint32_t i = 0; i < n_parts && !fail; i++) {
		memset(map, 0, sizeof(map));
		const char *p = parts[i].data;
		for (uint32_t j = 0; j < parts[i].n && !fail; p += parts[i].sizes[j], j++) {
			size_t before = out->n, last = SIZE_MAX;
			struct vt_defs_reader r = {p, p + parts[i].sizes[j], false};
			enum vt_def_kind kind;
			union vt_def d;
			int rc = 0;
			const char *rec = r.p;
			while (!fail && (rc = vt_defs_next(&r, &kind, &d)) > 0) {
				size_t len = (size_t)(r.p - rec);
				if (kind == VT_DEF_SAME) {
					/* repeats within the part: their ordinals in ours */
					const struct vt_def_same *sm = &d.same;
					if (sm->kind >= VT_DEF_KIND_MAX ||
					    sm->ordinal >= map[sm->kind].n ||
					    sm->count > map[sm->kind].n - sm->ordinal) {
						fail = true;
						break;
					}
					for (uint32_t k = 0; k < sm->count; k++)
						same(out, &last, sm->kind, sm->id + k,
						     map[sm->kind].o[sm->ordinal + k]);
				} else if (vt_unify_tree_kind(kind) && len >= CONTENT) {
					uint32_t o = seen_ref(&s, (uint8_t)kind, rec + CONTENT,
							      len - CONTENT, &fail);
					if (o == UINT32_MAX) {
						o = s.next[kind] - 1;
						vt_defs_append(out, rec, len);
					} else {
						uint32_t id;
						memcpy(&id, rec + 1, sizeof(id));
						same(out, &last, kind, id, o);
					}
					if (!fail && !ords_add(&map[kind], o))
						fail = true;
				} else {
					vt_defs_append(out, rec, len);
				}
				rec = r.p;
			}
			if (rc < 0)
				fail = true;
			sizes[rank++] = out->n - before;
		}
		for (int k = 0; k < VT_DEF_KIND_MAX; k++)
			free(map[k].o);
	}
	free(s.tab);
	return fail || out->failed ? -1 : 0;
}

int vt_unify_tree_parent(int rank)
{
	return rank & (rank - 1);
}

int vt_unify_tree_end(int rank, int size)
{
	long end = rank ? (long)rank + (rank & -rank) : (long)size;
	return end < size ? (int)end : size;
}

/* A part received: its header read into p (NULL: lost). */
static bool part_read(char *msg, size_t n, struct vt_unify_part *p, size_t **sizes, size_t *largest)
{
	uint32_t k = 0, big = 0;
	if (!msg || n < HEAD(0))
		return false;
	memcpy(&k, msg, sizeof(k));
	memcpy(&big, msg + sizeof(k), sizeof(big));
	if (big > *largest)
		*largest = big;
	if (!k || (n - HEAD(0)) / sizeof(uint64_t) < k)
		return false;
	*sizes = malloc(k * sizeof(**sizes));
	if (!*sizes)
		return false;
	size_t total = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint64_t v;
		memcpy(&v, msg + HEAD(0) + i * sizeof(v), sizeof(v));
		(*sizes)[i] = (size_t)v;
		total += (size_t)v;
	}
	if (total != n - HEAD(k))
		return false;
	*p = (struct vt_unify_part){msg + HEAD(k), *sizes, k};
	return true;
}

/* The message of a part of k ranks (their sizes, their data); NULL: no memory. */
static char *part_msg(uint32_t k, const size_t *sizes, const char *data, size_t total,
		      size_t largest, size_t *n)
{
	char *m = malloc(HEAD(k) + total);
	if (!m)
		return NULL;
	uint32_t big = largest < UINT32_MAX ? (uint32_t)largest : UINT32_MAX;
	memcpy(m, &k, sizeof(k));
	memcpy(m + sizeof(k), &big, sizeof(big));
	for (uint32_t i = 0; i < k; i++) {
		uint64_t v = sizes[i];
		memcpy(m + HEAD(0) + i * sizeof(v), &v, sizeof(v));
	}
	if (total)
		memcpy(m + HEAD(k), data, total);
	*n = HEAD(k) + total;
	return m;
}

char *vt_unify_tree_gather(const struct vt_mpi_ops *ops, const void *mine, size_t n, size_t **sizes,
			   struct vt_unify_tree_stats *st)
{
	int rank = ops->rank, end = vt_unify_tree_end(ops->rank, ops->size);
	uint32_t span = (uint32_t)(end - rank), n_parts = 1;
	struct vt_unify_part *parts = calloc(span, sizeof(*parts));
	char **msgs = calloc(span, sizeof(*msgs));
	size_t **psizes = calloc(span, sizeof(*psizes));
	size_t *out_sizes = malloc(span * sizeof(*out_sizes)), held = 0, largest = n;
	bool ok = parts && msgs && psizes && out_sizes;
	struct vt_defs_buf out = {0};
	if (st)
		*st = (struct vt_unify_tree_stats){0};
	if (ok)
		parts[0] = (struct vt_unify_part){mine, &n, 1};
	/* The children in rank order, each the first rank of the subtree after the last. */
	for (int child = rank + 1; child < end; child = vt_unify_tree_end(child, ops->size)) {
		size_t len = 0;
		char *m = ops->recv(child, &len);
		if (ok && part_read(m, len, &parts[n_parts], &psizes[n_parts], &largest)) {
			msgs[n_parts++] = m;
			held += len;
		} else {
			ok = false;
			free(m);
		}
		if (st)
			st->received += len;
	}
	ok = ok && vt_unify_compact(parts, n_parts, &out, out_sizes) == 0;
	if (st) {
		st->peak = held + out.cap;
		st->largest = largest;
	}
	for (uint32_t i = 1; msgs && i < n_parts; i++) {
		free(msgs[i]);
		free(psizes[i]);
	}
	free(msgs);
	free(psizes);
	free(parts);
	if (rank == 0) {
		if (!ok) {
			free(out.p);
			free(out_sizes);
			return NULL;
		}
		*sizes = out_sizes;
		return out.p ? out.p : malloc(1);
	}
	size_t len = 0;
	char *m = ok ? part_msg(span, out_sizes, out.p, out.n, largest, &len) : NULL;
	uint32_t lost[2] = {0, 0}; /* a part of no ranks: lost below or here */
	ops->send(m ? m : (char *)lost, m ? len : sizeof(lost), vt_unify_tree_parent(rank));
	if (st)
		st->sent = m ? len : sizeof(lost);
	free(m);
	free(out.p);
	free(out_sizes);
	return NULL;
}

void *vt_unify_tree_scatter(const struct vt_mpi_ops *ops, void *const *bufs, const size_t *sizes,
			    size_t *n)
{
	int rank = ops->rank, end = vt_unify_tree_end(ops->rank, ops->size);
	uint32_t span = (uint32_t)(end - rank);
	/* This subtree's buffers: rank 0's are given; a node's come from its parent. */
	char *msg = NULL, *data = NULL;
	size_t *mine = NULL, len = 0;
	struct vt_unify_part part = {0};
	void *const *given = NULL;
	if (rank == 0) {
		given = bufs;
		mine = sizes ? NULL : calloc(span, sizeof(*mine));
	} else {
		msg = ops->recv(vt_unify_tree_parent(rank), &len);
		size_t unused = 0;
		if (!part_read(msg, len, &part, &mine, &unused) || part.n != span) {
			free(mine);
			mine = calloc(span, sizeof(*mine)); /* a lost map: each gets none */
			part = (struct vt_unify_part){NULL, mine, span};
		}
		data = (char *)part.data;
	}
	const size_t *sz = rank == 0 && sizes ? sizes : mine;
	size_t *off = calloc(span + 1, sizeof(*off));
	for (uint32_t i = 0; off && sz && i < span; i++)
		off[i + 1] = off[i] + sz[i];
	/* The largest subtree first: its depth is the longest. */
	int children[64], n_children = 0;
	for (int c = rank + 1; c < end && n_children < 64; c = vt_unify_tree_end(c, ops->size))
		children[n_children++] = c;
	for (int i = n_children - 1; i >= 0; i--) {
		int c = children[i], ce = vt_unify_tree_end(c, ops->size);
		uint32_t k = (uint32_t)(ce - c), first = (uint32_t)(c - rank);
		size_t total = off && sz ? off[first + k] - off[first] : 0, mlen = 0;
		char *m = NULL;
		static const size_t none = 0;
		if (rank == 0 && given && sizes && off) {
			/* rank 0's buffers are apart: gathered for the child's part */
			char *cat = malloc(total ? total : 1);
			for (uint32_t j = 0; cat && j < k; j++)
				if (sizes[first + j])
					memcpy(cat + off[first + j] - off[first], given[first + j],
					       sizes[first + j]);
			m = cat ? part_msg(k, sizes + first, cat, total, 0, &mlen) : NULL;
			free(cat);
		} else if (off && sz) {
			m = part_msg(k, sz + first, data ? data + off[first] : NULL,
				     data ? total : 0, 0, &mlen);
		}
		if (!m) { /* every rank of the child's subtree gets no map */
			size_t *zero = calloc(k, sizeof(*zero));
			m = zero ? part_msg(k, zero, NULL, 0, 0, &mlen) : NULL;
			free(zero);
		}
		ops->send(m ? m : (const char *)&none, m ? mlen : 0, c);
		free(m);
	}
	/* Its own. */
	size_t own = sz && (rank != 0 || (given && given[0])) ? sz[0] : 0;
	char *res = malloc(own ? own : 1);
	if (res && own)
		memcpy(res, rank == 0 ? given[0] : data, own);
	*n = res ? own : 0;
	free(off);
	free(mine);
	free(msg);
	return res;
}
