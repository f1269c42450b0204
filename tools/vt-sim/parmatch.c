/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim-mpi's records packed and unpacked, the pairing of their ends, the distributed shares. */
#include "parmatch.h"

#include <stdlib.h>
#include <string.h>

uint32_t vts_pack(struct vts_prec *p, const struct vtr_location *loc, const struct vtr_record *r)
{
	if (r->kind == VTR_EV_Unknown) /* the replay leaves them out */
		return 0;
	*p = (struct vts_prec){
	    .time = r->time, .loc = (uint32_t)loc->index, .kind = r->kind, .nslots = 1};
	struct vts_pext x = {0};
	switch (r->kind) {
	case VTR_EV_Enter:
	case VTR_EV_Leave:
		p->arg = r->region;
		break;
	case VTR_EV_MeasurementOnOff:
		p->arg = r->mode;
		break;
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv:
		x = (struct vts_pext){r->request, r->bytes, 0, r->comm, r->tag, r->peer, 0};
		p->nslots += VTS_EXT_SLOTS;
		break;
	case VTR_EV_MpiIrecvRequest:
	case VTR_EV_MpiIsendComplete:
		x.request = r->request;
		p->nslots += VTS_EXT_SLOTS;
		break;
	case VTR_EV_MpiCollectiveEnd:
		x = (struct vts_pext){0, r->sent, r->received, r->comm, r->op, r->root, 0};
		p->nslots += VTS_EXT_SLOTS;
		break;
	default:
		break;
	}
	if (p->nslots > 1)
		memcpy(p + 1, &x, sizeof(x));
	return p->nslots;
}

/* ---- the distributed replay's shares ---- */

uint32_t *vts_dist_owners(const struct vtr_trace *tr, uint32_t nprocs)
{
	/* Groups: a world rank's locations, or a location without a rank alone. */
	size_t n = tr->nlocations, nranks = 0;
	for (size_t i = 0; i < n; i++)
		if (tr->locations[i].rank != VTR_NONE && tr->locations[i].rank + 1 > nranks)
			nranks = tr->locations[i].rank + 1;
	uint64_t *ev = vtr_xcalloc(nranks + n + 1, sizeof(uint64_t)), total = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = tr->locations[i].rank;
		ev[r != VTR_NONE ? r : nranks + i] += tr->locations[i].events;
		total += tr->locations[i].events;
	}
	uint32_t *gowner = vtr_xcalloc(nranks + n + 1, sizeof(uint32_t));
	uint64_t acc = 0;
	for (size_t g = 0; g < nranks + n; g++) {
		uint64_t mid = acc + ev[g] / 2;
		uint32_t o = total ? (uint32_t)((unsigned __int128)mid * nprocs / total)
				   : (uint32_t)(g * nprocs / (nranks + n));
		gowner[g] = o < nprocs ? o : nprocs - 1;
		acc += ev[g];
	}
	uint32_t *owner = vtr_xcalloc(n + 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t r = tr->locations[i].rank;
		owner[i] = gowner[r != VTR_NONE ? r : nranks + i];
	}
	free(ev);
	free(gowner);
	return owner;
}

/* ---- the table ---- */

static size_t home(uint64_t a, uint64_t b, uint64_t c, size_t cap)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^
		     (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
		     c * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (size_t)h & (cap - 1);
}

struct vts_ent *vts_table_find(struct vts_table *t, uint64_t a, uint64_t b, uint64_t c, bool make)
{
	if (make && 2 * (t->used + 1) > t->cap) {
		size_t live = 1, cap = 64;
		for (size_t i = 0; i < t->cap; i++)
			live += t->e[i].state == 1;
		while (cap < 4 * live)
			cap *= 2;
		struct vts_table g = {vtr_xcalloc(cap, sizeof(struct vts_ent)), 0, cap};
		for (size_t i = 0; i < t->cap; i++) {
			if (t->e[i].state != 1)
				continue;
			size_t j = home(t->e[i].a, t->e[i].b, t->e[i].c, cap);
			while (g.e[j].state)
				j = (j + 1) & (cap - 1);
			g.e[j] = t->e[i];
			g.used++;
		}
		free(t->e);
		*t = g;
	}
	if (!t->cap)
		return NULL;
	size_t i = home(a, b, c, t->cap);
	for (; t->e[i].state; i = (i + 1) & (t->cap - 1))
		if (t->e[i].state == 1 && t->e[i].a == a && t->e[i].b == b && t->e[i].c == c)
			return &t->e[i];
	if (!make)
		return NULL;
	t->e[i] = (struct vts_ent){a, b, c, NULL, 0, 1};
	t->used++;
	return &t->e[i];
}

/* ---- the pairing ---- */

/* The member of location l in comm (libvttrace's rule: its process's rank there). */
static uint32_t member_of(struct vts_table *cache, const struct vtr_trace *tr, uint32_t l,
			  uint32_t comm)
{
	struct vts_ent *e = vts_table_find(cache, l, comm, 0, true);
	if (!e->n) {
		uint32_t m = VTR_NONE, rank = tr->locations[l].rank;
		if (comm < tr->ncomms && tr->comms[comm].rank_of_member && rank != VTR_NONE)
			for (uint32_t i = 0; i < tr->comms[comm].size; i++)
				if (tr->comms[comm].rank_of_member[i] == rank) {
					m = i;
					break;
				}
		e->n = (uint64_t)m + 1;
	}
	return (uint32_t)(e->n - 1);
}

/* One record to the replay with its match, as the serial merged reading hands it over. */
void vts_pmatch_deliver(struct vts_pmatch *mt, const struct vtr_trace *tr,
			const struct vtr_callbacks *cb, void *user, const struct vts_prec *p)
{
	const struct vtr_location *loc = &tr->locations[p->loc];
	if (p->kind == VTR_EV_Enter || p->kind == VTR_EV_Leave) {
		/* most events: the fields of the others stay as they are (0) */
		mt->simple.kind = p->kind, mt->simple.time = p->time, mt->simple.region = p->arg;
		cb->record(user, loc, &mt->simple);
		return;
	}
	struct vtr_record r = {.kind = p->kind, .time = p->time, .member = VTR_NONE};
	struct vts_pext x = {0};
	if (p->nslots > 1)
		memcpy(&x, p + 1, sizeof(x));
	struct vts_ent *e = NULL;
	void *slot = NULL;
	uint64_t a = 0, b = 0, c = 0;
	struct vts_table *t = NULL;
	switch (p->kind) {
	case VTR_EV_Enter:
	case VTR_EV_Leave:
		r.region = p->arg;
		break;
	case VTR_EV_MeasurementOnOff:
		r.mode = p->arg;
		break;
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv: {
		r.comm = x.comm, r.tag = x.tag, r.peer = x.peer;
		r.bytes = x.bytes, r.request = x.request;
		bool send = p->kind == VTR_EV_MpiSend || p->kind == VTR_EV_MpiIsend;
		uint32_t me = member_of(&mt->member, tr, p->loc, x.comm);
		t = &mt->p2p;
		a = (uint64_t)x.comm << 32 | x.tag;
		b = send ? (uint64_t)me << 32 | x.peer : (uint64_t)x.peer << 32 | me;
		c = 2 +
		    vts_table_find(t, a, b, send ? 0 : 1, true)->n++; /* the k-th end of the key */
		e = vts_table_find(t, a, b, c, false);
		slot = e ? e->slot : NULL;
		r.match = &slot;
		break;
	}
	case VTR_EV_MpiIrecvRequest:
	case VTR_EV_MpiIsendComplete:
		r.request = x.request;
		break;
	case VTR_EV_MpiCollectiveEnd: {
		r.comm = x.comm, r.op = x.tag, r.root = x.peer;
		r.sent = x.bytes, r.received = x.received;
		uint32_t me = member_of(&mt->member, tr, p->loc, x.comm);
		if (me == VTR_NONE || x.comm >= tr->ncomms)
			break;
		t = &mt->coll;
		a = x.comm, b = UINT32_MAX;
		c = 1 + vts_table_find(t, x.comm, me, 0, true)->n++;
		e = vts_table_find(t, a, b, c, false);
		slot = e ? e->slot : NULL;
		r.member = me;
		r.match = &slot;
		break;
	}
	default:
		break;
	}
	mt->key[0] = a, mt->key[1] = b, mt->key[2] = c;
	cb->record(user, loc, &r);
	if (!t)
		return;
	/* The other ends find what the tool kept; the last one takes the entry out. */
	uint64_t ends = t == &mt->p2p ? 2 : tr->comms[x.comm].size;
	e = vts_table_find(t, a, b, c, true);
	e->slot = slot;
	if (++e->n >= ends)
		e->state = 2;
}

void vts_pmatch_init(struct vts_pmatch *mt)
{
	*mt = (struct vts_pmatch){.simple = {.member = VTR_NONE}};
}

void vts_pmatch_free(struct vts_pmatch *mt)
{
	free(mt->p2p.e);
	free(mt->coll.e);
	free(mt->member.e);
}
