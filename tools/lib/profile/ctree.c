/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-path model: every distinct path of regions, its calls, inclusive and exclusive time. */
/*
 * Every distinct path of regions from a location's outermost region down (main > compute >
 * fib > fib) is one node of a tree shared by all locations; a node has the Enter count,
 * inclusive time (every activation on the path, recursion being a longer path) and exclusive
 * time (inclusive minus that of the paths directly below).
 */
#include "ctree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	uint32_t region, parent, depth;
	uint32_t first, next; /* first child, next sibling: VTR_NONE for none */
	uint64_t calls, incl, excl;
};

struct frame {
	uint32_t node;
	uint64_t child; /* inclusive time of the activations directly inside */
};

struct stack {
	struct frame *f;
	size_t depth, cap;
};

/* Read location by location (vt_prof_ctree_read), one stack serves all; read merged in time
 * order (vt_prof_ctree_new with the number of locations), each location has its own. */
struct tree {
	struct node *nodes; /* nodes[0]: the root above every location's outermost regions */
	size_t n, cap;
	uint32_t *slots; /* open addressing over (parent, region), node index + 1; 0: empty */
	size_t nslots;
	struct stack *stacks;
	size_t nstacks;
};

static struct stack *stack_of(struct tree *t, const struct vtr_location *l)
{
	return &t->stacks[t->nstacks > 1 && l->index < t->nstacks ? l->index : 0];
}

static size_t slot_of(uint32_t parent, uint32_t region, size_t nslots)
{
	uint64_t h = ((uint64_t)parent << 32 | region) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (nslots - 1);
}

static void rehash(struct tree *t)
{
	size_t nslots = t->nslots ? 2 * t->nslots : 1024;
	uint32_t *slots = vtr_xcalloc(nslots, sizeof(*slots));
	for (size_t i = 1; i < t->n; i++) {
		size_t s = slot_of(t->nodes[i].parent, t->nodes[i].region, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

/* The child of parent for region, made on first use: O(1) expected per Enter. */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t region)
{
	if (2 * t->n >= t->nslots)
		rehash(t);
	size_t s = slot_of(parent, region, t->nslots);
	for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		const struct node *x = &t->nodes[t->slots[s] - 1];
		if (x->parent == parent && x->region == region)
			return t->slots[s] - 1;
	}
	if (t->n == t->cap) {
		t->cap = 2 * t->cap;
		t->nodes = vtr_xrealloc(t->nodes, t->cap, sizeof(*t->nodes));
	}
	uint32_t i = (uint32_t)t->n++;
	t->nodes[i] = (struct node){.region = region,
				    .parent = parent,
				    .depth = t->nodes[parent].depth + 1,
				    .first = VTR_NONE,
				    .next = VTR_NONE};
	t->slots[s] = i + 1;
	return i;
}

static void on_enter(void *user, const struct vtr_location *l, uint64_t time, uint32_t region)
{
	struct tree *t = user;
	struct stack *s = stack_of(t, l);
	(void)time;
	uint32_t parent = s->depth ? s->f[s->depth - 1].node : 0;
	uint32_t node = child(t, parent, region);
	t->nodes[node].calls++;
	if (s->depth == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->f = vtr_xrealloc(s->f, s->cap, sizeof(*s->f));
	}
	s->f[s->depth++] = (struct frame){.node = node};
}

/* The layer closes every open region, the repairs too, so the stack always matches. */
static void on_leave(void *user, const struct vtr_location *l, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct tree *t = user;
	struct stack *s = stack_of(t, l);
	(void)region;
	if (!s->depth)
		return;
	struct frame f = s->f[--s->depth];
	uint64_t dur = time > enter ? time - enter : 0;
	t->nodes[f.node].incl += dur;
	t->nodes[f.node].excl += dur > f.child ? dur - f.child : 0;
	if (s->depth)
		s->f[s->depth - 1].child += dur;
}

static void on_begin(void *user, const struct vtr_location *l)
{
	struct tree *t = user;
	stack_of(t, l)->depth = 0;
}

/* ---- the paths in order ---- */

static const struct vt_prof_trace *sort_trace;
static enum vt_prof_sort sort_key;
static const struct node *sort_nodes;

static int cmp_nodes(const void *pa, const void *pb)
{
	const struct node *a = &sort_nodes[*(const uint32_t *)pa];
	const struct node *b = &sort_nodes[*(const uint32_t *)pb];
	uint64_t x = 0, y = 0;
	switch (sort_key) {
	case VT_PROF_SORT_EXCL:
		x = a->excl, y = b->excl;
		break;
	case VT_PROF_SORT_INCL:
		x = a->incl, y = b->incl;
		break;
	case VT_PROF_SORT_CALLS:
		x = a->calls, y = b->calls;
		break;
	case VT_PROF_SORT_NAME:
		break;
	}
	if (x != y)
		return x < y ? 1 : -1;
	int c = strcmp(sort_trace->regions[a->region].name, sort_trace->regions[b->region].name);
	return c ? c : (a->region > b->region) - (a->region < b->region);
}

/* Links every node's children, sorted, and returns the nodes in depth-first order. */
static uint32_t *preorder(struct tree *t, const struct vt_prof_trace *tr, enum vt_prof_sort key,
			  size_t *count)
{
	uint32_t *order = vtr_xrealloc(NULL, t->n, sizeof(*order));
	size_t n = 0;
	/* Children sorted per parent: sort all nodes, then prepend in reverse. */
	uint32_t *all = vtr_xrealloc(NULL, t->n, sizeof(*all));
	for (size_t i = 1; i < t->n; i++)
		all[i - 1] = (uint32_t)i;
	sort_trace = tr;
	sort_key = key;
	sort_nodes = t->nodes;
	qsort(all, t->n - 1, sizeof(*all), cmp_nodes);
	for (size_t i = t->n - 1; i-- > 0;) {
		struct node *x = &t->nodes[all[i]];
		x->next = t->nodes[x->parent].first;
		t->nodes[x->parent].first = all[i];
	}
	free(all);
	/* Depth-first without recursion: the stack holds the next sibling to visit. */
	uint32_t *stack = vtr_xrealloc(NULL, t->n + 1, sizeof(*stack));
	size_t sp = 0;
	if (t->nodes[0].first != VTR_NONE)
		stack[sp++] = t->nodes[0].first;
	while (sp) {
		uint32_t i = stack[--sp];
		order[n++] = i;
		if (t->nodes[i].next != VTR_NONE)
			stack[sp++] = t->nodes[i].next;
		if (t->nodes[i].first != VTR_NONE)
			stack[sp++] = t->nodes[i].first;
	}
	free(stack);
	*count = n;
	return order;
}

static void init(struct tree *t, size_t nstacks)
{
	*t = (struct tree){.cap = 256};
	t->nodes = vtr_xrealloc(NULL, t->cap, sizeof(*t->nodes));
	t->nodes[0] = (struct node){.region = VTR_NONE, .first = VTR_NONE, .next = VTR_NONE};
	t->n = 1;
	t->nstacks = nstacks ? nstacks : 1;
	t->stacks = vtr_xcalloc(t->nstacks, sizeof(*t->stacks));
	rehash(t);
}

static void drop(struct tree *t)
{
	free(t->nodes);
	free(t->slots);
	for (size_t i = 0; i < t->nstacks; i++)
		free(t->stacks[i].f);
	free(t->stacks);
}

/* The call paths as a list in the order --call-tree gives them. */
static struct vt_prof_path *paths_of(struct tree *t, const struct vt_prof_trace *tr,
				     enum vt_prof_sort key, size_t *count)
{
	size_t n;
	uint32_t *order = preorder(t, tr, key, &n);
	struct vt_prof_path *p = vtr_xrealloc(NULL, n + 1, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		const struct node *x = &t->nodes[order[i]];
		p[i] = (struct vt_prof_path){.id = order[i],
					     .parent = x->parent,
					     .depth = x->depth,
					     .region = x->region,
					     .calls = x->calls,
					     .incl = x->incl,
					     .excl = x->excl};
	}
	free(order);
	*count = n;
	return p;
}

struct vt_prof_ctree {
	struct tree t;
};

struct vt_prof_ctree *vt_prof_ctree_new(size_t nlocations)
{
	struct vt_prof_ctree *c = vtr_xcalloc(1, sizeof(*c));
	init(&c->t, nlocations);
	return c;
}

void vt_prof_ctree_enter(struct vt_prof_ctree *c, const struct vtr_location *l, uint64_t time,
			 uint32_t region)
{
	on_enter(&c->t, l, time, region);
}

void vt_prof_ctree_leave(struct vt_prof_ctree *c, const struct vtr_location *l, uint64_t time,
			 uint32_t region, uint64_t enter)
{
	on_leave(&c->t, l, time, region, enter);
}

/* Location by location, one stack serves all. */
struct vt_prof_ctree *vt_prof_ctree_read(const struct vt_prof_trace *tr, char *err, size_t errlen)
{
	struct vt_prof_ctree *c = vt_prof_ctree_new(1);
	const struct vtr_callbacks cb = {
	    .location_begin = on_begin, .enter = on_enter, .leave = on_leave};
	if (vtr_read_locations(tr->layer, &cb, &c->t) == 0)
		return c;
	snprintf(err, errlen, "%s", tr->layer->err);
	vt_prof_ctree_free(c);
	return NULL;
}

struct vt_prof_path *vt_prof_ctree_paths(struct vt_prof_ctree *c, const struct vt_prof_trace *tr,
					 enum vt_prof_sort key, size_t *count)
{
	return paths_of(&c->t, tr, key, count);
}

void vt_prof_ctree_free(struct vt_prof_ctree *c)
{
	if (!c)
		return;
	drop(&c->t);
	free(c);
}
