/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI adapter's maps: communicators and requests by handle (see vt_mpi_maps.h). */
#include "vt_mpi_maps.h"

#include <stdlib.h>

/* Handles are pointers (Open MPI) or small ints (MPICH): mixed, so that both spread. */
static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ull;
	key ^= key >> 29;
	return (size_t)key & (cap - 1);
}

/* The slot of key, or the empty slot where it would go (m->cap > 0). */
static struct vt_u64map_slot *find(const struct vt_u64map *m, uint64_t key)
{
	size_t i = slot_of(key, m->cap);
	while (m->slots[i].val && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *vt_u64map_get(const struct vt_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i].val)
			return NULL;
		if (m->slots[i].key == key)
			return m->slots[i].val;
	}
}

static int grow(struct vt_u64map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct vt_u64map_slot *s = calloc(cap, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].val)
			continue;
		size_t j = slot_of(m->slots[i].key, cap);
		while (s[j].val)
			j = (j + 1) & (cap - 1);
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

int vt_u64map_set(struct vt_u64map *m, uint64_t key, void *val)
{
	/* At most half full: probes stay short. */
	if (2 * (m->n + 1) > m->cap && grow(m) < 0)
		return -1;
	size_t i = slot_of(key, m->cap);
	while (m->slots[i].val && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i].val)
		m->n++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	return 0;
}

/* Empties the full slot i. */
static void del_at(struct vt_u64map *m, size_t i)
{
	/* Backward shift: every later entry of the run that may move closer to its home does. */
	size_t hole = i;
	for (size_t j = (i + 1) & (m->cap - 1); m->slots[j].val; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m->slots[j].key, m->cap);
		/* j may fill the hole unless its home lies cyclically in (hole, j]. */
		bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			m->slots[hole] = m->slots[j];
			hole = j;
		}
	}
	m->slots[hole].val = NULL;
	m->n--;
}

void *vt_u64map_del(struct vt_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	struct vt_u64map_slot *s = find(m, key);
	void *val = s->val;
	if (val)
		del_at(m, (size_t)(s - m->slots));
	return val;
}

void vt_u64map_free(struct vt_u64map *m)
{
	free(m->slots);
	*m = (struct vt_u64map){0};
}

struct vt_req *vt_reqmap_add(struct vt_reqmap *m, uint64_t handle, bool persistent)
{
	struct vt_req *r = m->spare;
	if (r)
		m->spare = r->next;
	else if (!(r = malloc(sizeof(*r))))
		return NULL;
	*r = (struct vt_req){.handle = handle, .persistent = persistent};
	/* One probe of the handle's slot: its youngest is replaced by r. */
	struct vt_u64map *y = &m->youngest;
	if ((2 * (y->n + 1) > y->cap && grow(y) < 0) ||
	    (persistent && vt_u64map_set(&m->persistent, handle, r) < 0)) {
		r->next = m->spare;
		m->spare = r;
		return NULL;
	}
	struct vt_u64map_slot *s = find(y, handle);
	struct vt_req *youngest = s->val;
	if (!youngest)
		y->n++;
	s->key = handle;
	s->val = r;
	if (youngest) {
		r->next = youngest->next; /* the oldest */
		youngest->next = r;
	} else {
		r->next = r;
	}
	m->n++;
	return r;
}

struct vt_req *vt_reqmap_oldest(const struct vt_reqmap *m, uint64_t handle)
{
	struct vt_req *youngest = vt_u64map_get(&m->youngest, handle);
	return youngest ? youngest->next : NULL;
}

struct vt_req *vt_reqmap_persistent(const struct vt_reqmap *m, uint64_t handle)
{
	return m->persistent.n ? vt_u64map_get(&m->persistent, handle) : NULL;
}

bool vt_reqmap_complete(struct vt_reqmap *m, uint64_t handle, struct vt_req *out)
{
	struct vt_req *p = vt_reqmap_persistent(m, handle);
	if (p && p->active) {
		*out = *p;
		p->active = false;
		return true;
	}
	if (!m->youngest.cap)
		return false;
	struct vt_u64map_slot *s = find(&m->youngest, handle);
	struct vt_req *youngest = s->val;
	if (!youngest)
		return false;
	struct vt_req *r = youngest->next; /* the oldest */
	*out = *r;
	if (r->persistent) {
		r->active = false;
		return true;
	}
	/* Unlinked from the front of its ring without another probe. */
	if (r == youngest)
		del_at(&m->youngest, (size_t)(s - m->youngest.slots));
	else
		youngest->next = r->next;
	r->next = m->spare;
	m->spare = r;
	m->n--;
	return true;
}

void vt_reqmap_remove(struct vt_reqmap *m, struct vt_req *r)
{
	struct vt_req *youngest = vt_u64map_get(&m->youngest, r->handle);
	if (!youngest)
		return;
	if (r->persistent && vt_u64map_get(&m->persistent, r->handle) == r)
		vt_u64map_del(&m->persistent, r->handle);
	if (r->next == r) {
		vt_u64map_del(&m->youngest, r->handle);
	} else {
		/* The one before r in the ring: the youngest when r is the oldest (the usual). */
		struct vt_req *prev = youngest;
		while (prev->next != r)
			prev = prev->next;
		prev->next = r->next;
		if (r == youngest)
			vt_u64map_set(&m->youngest, r->handle, prev); /* replaces: cannot fail */
	}
	r->next = m->spare;
	m->spare = r;
	m->n--;
}

void vt_reqmap_free(struct vt_reqmap *m)
{
	for (size_t i = 0; i < m->youngest.cap; i++) {
		struct vt_req *y = m->youngest.slots[i].val;
		if (!y)
			continue;
		struct vt_req *r = y->next;
		while (r != y) {
			struct vt_req *next = r->next;
			free(r);
			r = next;
		}
		free(y);
	}
	vt_u64map_free(&m->youngest);
	vt_u64map_free(&m->persistent);
	while (m->spare) {
		struct vt_req *next = m->spare->next;
		free(m->spare);
		m->spare = next;
	}
	m->n = 0;
}
