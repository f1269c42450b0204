/* SPDX-License-Identifier: BSD-3-Clause */
/* The calling-context tree of samples and its definitions (vt_callctx.h). */
#include "defs/vt_callctx.h"
#include "regions/vt_region.h"
#include "regions/vt_strtab.h"
#include "regions/vt_symbols.h"

#include <otf2/otf2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A node is a code address below its parent: the interrupted instruction for a sample's
 * innermost frame, a call instruction (return address - 1) for the others. Encoders of
 * several threads add nodes, so the tree has a lock; it is taken once per sample, never in
 * the signal handler.
 */
struct node {
	uint64_t ip;
	uint32_t parent;
	int32_t module;
};

static struct {
	pthread_mutex_t lock;
	struct node *nodes;
	uint32_t n_nodes, cap_nodes;
	uint32_t *slots; /* node index + 1; 0: empty */
	uint32_t n_slots;
	struct {
		char name[64];
		uint32_t mode;
		uint64_t period;
		bool set;
	} generator;
} cct = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t hash(uint32_t parent, uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)parent << 40 | parent)) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static bool grow_slots(void)
{
	uint32_t n = cct.n_slots ? 2 * cct.n_slots : 4096;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return false;
	for (uint32_t i = 0; i < cct.n_nodes; i++) {
		uint64_t k = hash(cct.nodes[i].parent, cct.nodes[i].ip) & (n - 1);
		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = i + 1;
	}
	free(cct.slots);
	cct.slots = s;
	cct.n_slots = n;
	return true;
}

/* The node of ip below parent, made on first sight; VT_CALLCTX_NONE when memory ran out.
 * Caller holds the lock. */
static uint32_t child(uint32_t parent, uint64_t ip)
{
	if (2 * (cct.n_nodes + 1) > cct.n_slots && !grow_slots())
		return VT_CALLCTX_NONE;
	uint64_t k = hash(parent, ip) & (cct.n_slots - 1);
	for (; cct.slots[k]; k = (k + 1) & (cct.n_slots - 1)) {
		const struct node *o = &cct.nodes[cct.slots[k] - 1];
		if (o->ip == ip && o->parent == parent)
			return cct.slots[k] - 1;
	}
	if (cct.n_nodes == cct.cap_nodes) {
		uint32_t cap = cct.cap_nodes ? 2 * cct.cap_nodes : 4096;
		struct node *p = realloc(cct.nodes, cap * sizeof(*p));
		if (!p)
			return VT_CALLCTX_NONE;
		cct.nodes = p;
		cct.cap_nodes = cap;
	}
	/* The module now: a library may be gone by the end of the run (dlclose). */
	cct.nodes[cct.n_nodes] =
	    (struct node){ip, parent, ip ? vt_region_module_of((uintptr_t)ip) : -1};
	cct.slots[k] = cct.n_nodes + 1;
	return cct.n_nodes++;
}

uint32_t vt_callctx_path(const uint64_t *frames, uint32_t n, bool cut, uint32_t *out,
			 uint32_t *depth)
{
	uint32_t ctx = VT_CALLCTX_NONE, k = 0;
	*depth = 0;
	if (!n)
		return ctx;
	pthread_mutex_lock(&cct.lock);
	if (cut)
		out[k++] = ctx = child(VT_CALLCTX_NONE, 0);
	for (uint32_t i = n; i-- > 0 && !(cut && ctx == VT_CALLCTX_NONE);) {
		ctx = child(ctx, frames[i]);
		if (ctx == VT_CALLCTX_NONE)
			break;
		out[k++] = ctx;
	}
	pthread_mutex_unlock(&cct.lock);
	*depth = ctx == VT_CALLCTX_NONE ? 0 : k;
	return ctx;
}

uint32_t vt_callctx_count(void)
{
	pthread_mutex_lock(&cct.lock);
	uint32_t n = cct.n_nodes;
	pthread_mutex_unlock(&cct.lock);
	return n;
}

void vt_callctx_set_generator(const char *name, uint32_t mode, uint64_t period)
{
	snprintf(cct.generator.name, sizeof(cct.generator.name), "%s", name);
	cct.generator.mode = mode;
	cct.generator.period = period;
	cct.generator.set = true;
}

/* One code address resolved; shared by the nodes of that address. */
struct resolved {
	struct vt_sym_info fn, src;
	uint32_t paradigm;
};

static int by_ip(const void *a, const void *b)
{
	uint64_t x = cct.nodes[*(const uint32_t *)a].ip, y = cct.nodes[*(const uint32_t *)b].ip;
	return x < y ? -1 : x > y;
}

/*
 * The functions that are regions of this process too (instrumented ones) keep those regions'
 * paradigm, so that the unification makes the sampled function and the instrumented region
 * one region; the others are the sampling paradigm's.
 */
static void paradigms(struct resolved *res, uint32_t n)
{
	struct vt_strtab keys = {0};
	uint32_t *par = NULL, cap = 0;
	char key[4096];
	uint32_t regions = vt_region_count();
	for (uint32_t id = 0; id < regions; id++) {
		const struct vt_region *r = vt_region_at(id);
		if (!r->name || r->kind == VT_REGION_USER)
			continue;
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%u", r->name, r->file ? r->file : "",
			 r->line);
		uint32_t k = vt_strtab_ref(&keys, key);
		if (k >= cap) {
			uint32_t c = cap ? 2 * cap : 256;
			uint32_t *p = realloc(par, c * sizeof(*p));
			if (!p)
				break;
			par = p;
			cap = c;
		}
		par[k] = r->paradigm ? r->paradigm : OTF2_PARADIGM_COMPILER; /* not USER: skipped */
	}
	for (uint32_t i = 0; i < n; i++) {
		res[i].paradigm = OTF2_PARADIGM_SAMPLING;
		if (!res[i].fn.name || !par)
			continue;
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%u", res[i].fn.name,
			 res[i].fn.file ? res[i].fn.file : "", res[i].fn.line);
		uint32_t k = vt_strtab_find(&keys, key);
		if (k != UINT32_MAX && k < cap)
			res[i].paradigm = par[k];
	}
	free(par);
	vt_strtab_free(&keys);
}

void vt_callctx_put_defs(struct vt_defs_buf *b)
{
	pthread_mutex_lock(&cct.lock);
	uint32_t n = cct.n_nodes;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	uint32_t *res_of = malloc((n ? n : 1) * sizeof(*res_of));
	struct resolved *res = calloc(n ? n : 1, sizeof(*res));
	if (!n || !order || !res_of || !res)
		goto out;
	/* Each distinct address is resolved once. */
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	qsort(order, n, sizeof(*order), by_ip);
	uint32_t n_res = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct node *o = &cct.nodes[order[i]];
		if (!i || o->ip != cct.nodes[order[i - 1]].ip) {
			if (o->ip)
				vt_region_resolve_code((uintptr_t)o->ip, o->module, &res[n_res].fn,
						       &res[n_res].src);
			n_res++;
		}
		res_of[order[i]] = n_res - 1;
	}
	paradigms(res, n_res);
	for (uint32_t i = 0; i < n; i++) {
		const struct node *o = &cct.nodes[i];
		const struct resolved *r = &res[res_of[i]];
		char addr[256];
		const char *name = r->fn.name;
		if (!o->ip)
			name = "[stack cut at VT_SAMPLING_DEPTH]";
		else if (!name) {
			/* Code without a symbol (a PLT stub, stripped code): one region per
			 * module, as perf has it, "[s1]"; an address outside any, by itself. */
			const char *path = vt_sym_module_path(o->module);
			const char *base = path ? strrchr(path, '/') : NULL;
			if (path)
				snprintf(addr, sizeof(addr), "[%s]", base ? base + 1 : path);
			else
				snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)o->ip);
			name = addr;
		}
		union vt_def d = {.callctx = {i, o->parent, name, r->fn.file ? r->fn.file : "",
					      r->fn.line, r->paradigm,
					      r->src.file ? r->src.file : "", r->src.line}};
		vt_defs_put(b, VT_DEF_CALLCTX, &d);
	}
	if (cct.generator.set) {
		union vt_def d = {
		    .igen = {0, cct.generator.name, cct.generator.mode, cct.generator.period}};
		vt_defs_put(b, VT_DEF_IGEN, &d);
	}
out:
	for (uint32_t i = 0; res && i < n; i++) {
		free((char *)res[i].fn.name);
		free((char *)res[i].fn.file);
		free((char *)res[i].src.file);
	}
	free(res);
	free(res_of);
	free(order);
	pthread_mutex_unlock(&cct.lock);
}

void vt_callctx_reset(void)
{
	pthread_mutex_lock(&cct.lock);
	free(cct.nodes);
	free(cct.slots);
	cct.nodes = NULL;
	cct.slots = NULL;
	cct.n_nodes = cct.cap_nodes = cct.n_slots = 0;
	cct.generator.set = false;
	pthread_mutex_unlock(&cct.lock);
}
