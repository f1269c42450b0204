/* SPDX-License-Identifier: BSD-3-Clause */
/* Call paths numbered by (parent, region), for the profiles that break time down by path. */
#include "paths.h"
#include "vtr_out.h"

#include <otf2/otf2.h>
#include <stdlib.h>

uint64_t vt_prof_mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static size_t slot_of(uint32_t parent, uint32_t region, size_t n)
{
	return (size_t)vt_prof_mix((uint64_t)parent << 32 | region) & (n - 1);
}

static void rehash(struct vt_prof_paths *p)
{
	free(p->slots);
	p->nslots = p->nslots ? 2 * p->nslots : 256;
	p->slots = vtr_xcalloc(p->nslots, sizeof(*p->slots));
	for (size_t i = 0; i < p->n; i++) {
		size_t s = slot_of(p->nodes[i].parent, p->nodes[i].region, p->nslots);
		while (p->slots[s])
			s = (s + 1) & (p->nslots - 1);
		p->slots[s] = (uint32_t)i + 1;
	}
}

uint32_t vt_prof_path_of(struct vt_prof_paths *p, uint32_t parent, uint32_t region)
{
	if (!p->slots)
		rehash(p);
	size_t s = slot_of(parent, region, p->nslots);
	for (; p->slots[s]; s = (s + 1) & (p->nslots - 1)) {
		const struct vt_prof_pathnode *n = &p->nodes[p->slots[s] - 1];
		if (n->parent == parent && n->region == region)
			return p->slots[s];
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->nodes = vtr_xrealloc(p->nodes, p->cap, sizeof(*p->nodes));
	}
	p->nodes[p->n] = (struct vt_prof_pathnode){parent, region};
	p->slots[s] = (uint32_t)++p->n;
	if (2 * p->n > p->nslots)
		rehash(p);
	return (uint32_t)p->n;
}

void vt_prof_path_print(FILE *out, const struct vt_prof_paths *p, const struct vtr_trace *t,
			uint32_t path, const char *sep, bool json)
{
	uint32_t chain[256];
	size_t d = 0;
	for (uint32_t q = path; q && d < 256; q = p->nodes[q - 1].parent)
		chain[d++] = p->nodes[q - 1].region;
	if (json)
		fputc('[', out);
	for (size_t k = d; k-- > 0;) {
		const char *name = chain[k] < t->nregions ? t->regions[chain[k]].name : "?";
		if (k + 1 < d)
			fputs(json ? ", " : sep, out);
		if (json)
			vtr_json_string(out, name);
		else if (*sep == ';') /* CSV, inside quotes */
			for (; *name; name++)
				fputs(*name == '"' ? "\"\"" : (char[]){*name, 0}, out);
		else
			fputs(name, out);
	}
	if (json)
		fputc(']', out);
	else if (!d)
		fputs("(none)", out);
}

void vt_prof_paths_free(struct vt_prof_paths *p)
{
	free(p->nodes);
	free(p->slots);
	*p = (struct vt_prof_paths){0};
}

bool vt_prof_path_in_mpi(const struct vt_prof_paths *p, const struct vtr_trace *t, uint32_t path)
{
	uint32_t region = vt_prof_path_region(p, path);
	return region < t->nregions && t->regions[region].paradigm == OTF2_PARADIGM_MPI;
}

struct vt_prof_coll_paths *vt_prof_coll_paths_of(struct vt_prof_coll_paths **list, void **match,
						 uint32_t size)
{
	struct vt_prof_coll_paths *x = *match;
	if (x)
		return x;
	x = vtr_xcalloc(1, sizeof(*x) + (size_t)size * sizeof(uint32_t));
	x->next = *list;
	if (*list)
		(*list)->prev = x;
	*list = x;
	*match = x;
	return x;
}

void vt_prof_coll_paths_drop(struct vt_prof_coll_paths **list, struct vt_prof_coll_paths *x)
{
	if (!x)
		return;
	if (x->prev)
		x->prev->next = x->next;
	else
		*list = x->next;
	if (x->next)
		x->next->prev = x->prev;
	free(x);
}

void vt_prof_coll_paths_free(struct vt_prof_coll_paths **list)
{
	while (*list)
		vt_prof_coll_paths_drop(list, *list);
}
