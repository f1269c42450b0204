/* SPDX-License-Identifier: BSD-3-Clause */
/* The unification of every process's definitions into one set, and the maps back (vt_unify.h). */
#include "defs/vt_unify.h"
#include "base/vt_log.h"
#include "defs/vt_mpi_defs.h"
#include "regions/vt_strtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What merge keeps per process until the maps are written. */
struct pending {
	struct vt_defs_buf regions, comms, ctxs, igens, wins, groups, ios; /* runs (map_add) */
	struct vt_defs_buf files; /* runs: a handle's local id -> its global file */
	uint32_t *ctx_of;	  /* local calling context id -> global (parents come first) */
	uint32_t cap_ctx;
	uint32_t *metric_of; /* local metric id -> global */
	uint32_t n_metrics, cap_metrics;
	uint32_t first_inst, n_inst; /* its instances in u->insts */
	uint32_t *inst_local;	     /* their local ids */
	struct vt_def_commuse *uses; /* its threads' communicators (local ids) */
	uint32_t n_uses;
	struct vt_defs_buf thread_comms; /* quadruples of vt_unify_maps */
};

/* Appends n bytes to b, which starts small: merge keeps several per process. */
static void add(struct vt_defs_buf *b, const void *v, size_t n)
{
	if (b->failed || !n)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 48;
		while (cap < b->n + n)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->failed = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void pair(struct vt_defs_buf *b, uint32_t local, uint32_t global)
{
	uint32_t p[2] = {local, global};
	add(b, p, sizeof(p));
}

/*
 * A map as merge makes it and sends it: runs of consecutive ids (local start, global start,
 * length), in the order its pairs came. The ranks of an SPMD program define the same regions
 * in the same order, so a rank's map is a handful of runs, not a pair per id.
 */
static void map_add(struct vt_defs_buf *b, uint32_t local, uint32_t global)
{
	uint32_t run[3];
	if (b->n >= sizeof(run) && !b->failed) {
		memcpy(run, b->p + b->n - sizeof(run), sizeof(run));
		if ((uint64_t)run[0] + run[2] == local && (uint64_t)run[1] + run[2] == global) {
			run[2]++;
			memcpy(b->p + b->n - sizeof(run), run, sizeof(run));
			return;
		}
	}
	run[0] = local;
	run[1] = global;
	run[2] = 1;
	add(b, run, sizeof(run));
}

static void *grow(void *p, size_t n, size_t size)
{
	return realloc(p, (n ? n : 1) * size);
}

static uint32_t region_id(struct vt_unified *u, struct vt_strtab *keys,
			  const struct vt_def_region *g)
{
	char key[4096];
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%u\x1f%u\x1f%u", g->name, g->file, g->line,
		 g->paradigm, g->role);
	uint32_t id = vt_strtab_ref(keys, key);
	if (id == u->n_regions) {
		struct vt_unify_region *r = grow(u->regions, id + 1, sizeof(*r));
		if (!r)
			return 0;
		u->regions = r;
		u->regions[id] =
		    (struct vt_unify_region){g->name, g->file, g->line, g->paradigm, g->role};
		u->n_regions++;
	}
	return id;
}

/* The keys that make global ids of what several processes may define alike; and per kind
 * that a compacted stream may refer to (vt_unify_tree.h), the global id of each of its
 * records kept whole, in the order of the concatenation. */
struct keys {
	struct vt_strtab regions, metrics, scls, ctxs, igens, groups, files;
	struct {
		uint32_t *gid;
		uint32_t n, cap;
	} ord[VT_DEF_KIND_MAX];
	/* The communicators by (key, thread rank): open addressing, u->comms index + 1 (0:
	 * free), cap a power of two at least twice their number. */
	uint32_t *comm_at;
	uint32_t comm_cap;
};

/* The next record kept whole of kind got global id gid. 0, or -1 when memory ran out. */
static int ord_add(struct keys *k, enum vt_def_kind kind, uint32_t gid)
{
	if (k->ord[kind].n == k->ord[kind].cap) {
		uint32_t cap = k->ord[kind].cap ? 2 * k->ord[kind].cap : 64;
		uint32_t *g = grow(k->ord[kind].gid, cap, sizeof(*g));
		if (!g)
			return -1;
		k->ord[kind].gid = g;
		k->ord[kind].cap = cap;
	}
	k->ord[kind].gid[k->ord[kind].n++] = gid;
	return 0;
}

/* A process's local metric id has global id g. 0, or -1 when memory ran out. */
static int set_metric(struct pending *pd, uint32_t local, uint32_t g)
{
	if (local >= pd->cap_metrics) {
		uint32_t cap = local + 16;
		uint32_t *m = grow(pd->metric_of, cap, sizeof(*m));
		if (!m)
			return -1;
		pd->metric_of = m;
		pd->cap_metrics = cap;
	}
	pd->metric_of[local] = g;
	if (local >= pd->n_metrics)
		pd->n_metrics = local + 1;
	return 0;
}

/* The global id a process's local id has in its map's runs (map_add), or fallback. */
static uint32_t paired(const struct vt_defs_buf *runs, uint32_t local, uint32_t fallback)
{
	uint32_t r[3];
	for (size_t off = 0; off + sizeof(r) <= runs->n; off += sizeof(r)) {
		memcpy(r, runs->p + off, sizeof(r));
		if (local >= r[0] && local - r[0] < r[2])
			return r[1] + (local - r[0]);
	}
	return fallback;
}

static uint32_t win_id(struct vt_unified *u, const struct vt_def_rmawin *w, uint32_t comm)
{
	for (uint32_t i = 0; i < u->n_wins; i++)
		if (u->wins[i].key == w->key) {
			/* the lowest rank that named it (ranks merge in order) */
			if (!u->wins[i].name && w->name && *w->name)
				u->wins[i].name = w->name;
			return i;
		}
	struct vt_unify_win *n = grow(u->wins, u->n_wins + 1, sizeof(*n));
	if (!n)
		return 0;
	u->wins = n;
	u->wins[u->n_wins] =
	    (struct vt_unify_win){w->key, comm, w->name && *w->name ? w->name : NULL};
	return u->n_wins++;
}

static uint32_t io_id(struct vt_unified *u, struct keys *k, const struct vt_def_iohandle *h,
		      uint32_t comm, uint32_t parent)
{
	for (uint32_t i = 0; h->key && i < u->n_ios; i++)
		if (u->ios[i].key == h->key)
			return i;
	uint32_t file = vt_strtab_ref(&k->files, h->file);
	if (file == u->n_files) {
		const char **f = grow(u->files, file + 1, sizeof(*f));
		if (!f)
			return 0;
		u->files = f;
		u->files[u->n_files++] = h->file;
	}
	struct vt_unify_io *n = grow(u->ios, u->n_ios + 1, sizeof(*n));
	if (!n)
		return 0;
	u->ios = n;
	u->ios[u->n_ios] = (struct vt_unify_io){h->key, comm, file, h->paradigm, parent};
	return u->n_ios++;
}

static uint32_t group_id(struct vt_unified *u, struct keys *k, const char *members)
{
	uint32_t id = vt_strtab_ref(&k->groups, members);
	if (id == u->n_groups) {
		const char **g = grow(u->groups, id + 1, sizeof(*g));
		if (!g)
			return 0;
		u->groups = g;
		u->groups[u->n_groups++] = members;
	}
	return id;
}

static uint32_t scl_id(struct vt_unified *u, struct keys *k, const char *file, uint32_t line)
{
	if (!file || !file[0])
		return UINT32_MAX;
	char key[4096];
	snprintf(key, sizeof(key), "%s\x1f%u", file, line);
	uint32_t id = vt_strtab_ref(&k->scls, key);
	if (id == u->n_scls) {
		struct vt_unify_scl *s = grow(u->scls, id + 1, sizeof(*s));
		if (!s)
			return UINT32_MAX;
		u->scls = s;
		u->scls[u->n_scls++] = (struct vt_unify_scl){file, line};
	}
	return id;
}

static uint32_t ctx_id(struct vt_unified *u, struct keys *k, uint32_t region, uint32_t scl,
		       uint32_t parent)
{
	char key[64];
	snprintf(key, sizeof(key), "%u,%u,%u", region, scl, parent);
	uint32_t id = vt_strtab_ref(&k->ctxs, key);
	if (id == u->n_ctxs) {
		/* Doubling at powers of two: a sampled run may have many. */
		if (!id || !(id & (id - 1))) {
			struct vt_unify_ctx *c = grow(u->ctxs, id ? 2 * id : 64, sizeof(*c));
			if (!c)
				return UINT32_MAX;
			u->ctxs = c;
		}
		u->ctxs[u->n_ctxs++] = (struct vt_unify_ctx){region, scl, parent};
	}
	return id;
}

static uint32_t igen_id(struct vt_unified *u, struct keys *k, const struct vt_def_igen *g)
{
	char key[512];
	snprintf(key, sizeof(key), "%s\x1f%u\x1f%llu", g->name, g->mode,
		 (unsigned long long)g->period);
	uint32_t id = vt_strtab_ref(&k->igens, key);
	if (id == u->n_igens) {
		struct vt_def_igen *n = grow(u->igens, id + 1, sizeof(*n));
		if (!n)
			return 0;
		u->igens = n;
		u->igens[u->n_igens] = *g;
		u->igens[u->n_igens++].id = id;
	}
	return id;
}

/* The global ids of a metric class's members, from their keys: metrics the same process
 * defined before it (a process defines its metrics first). -1 when one is not known or
 * memory ran out. */
static int member_ids(struct vt_def_metric *g, const struct vt_strtab *keys)
{
	uint32_t n = 0, *ids = NULL;
	for (const char *p = g->members; *p;) {
		const char *end = strchr(p, VT_DEF_MEMBER_END);
		char *key = end ? strndup(p, (size_t)(end - p)) : NULL;
		uint32_t *more = key ? grow(ids, n + 1, sizeof(*ids)) : NULL;
		uint32_t id = key ? vt_strtab_find(keys, key) : UINT32_MAX;
		free(key);
		if (!more || id == UINT32_MAX) {
			free(more ? more : ids);
			return -1;
		}
		ids = more;
		ids[n++] = id;
		p = end + 1;
	}
	g->member_ids = ids;
	g->n_members = n;
	return 0;
}

static uint32_t metric_id(struct vt_unified *u, struct vt_strtab *keys,
			  const struct vt_def_metric *m)
{
	/* A class of several is named by its members; a metric by its definition. */
	bool group = m->members && *m->members;
	int len = group ? (int)strlen(m->members) + 2 : vt_def_metric_key(m, NULL, 0) + 1;
	char *key = malloc((size_t)len);
	if (!key)
		return 0;
	if (group)
		snprintf(key, (size_t)len, "G%s", m->members);
	else
		vt_def_metric_key(m, key, (size_t)len);
	uint32_t id = vt_strtab_ref(keys, key);
	free(key);
	if (id == u->n_metrics) {
		struct vt_def_metric *ms = grow(u->metrics, id + 1, sizeof(*ms));
		if (!ms)
			return 0;
		u->metrics = ms;
		u->metrics[id] = *m;
		u->metrics[id].id = id;
		u->metrics[id].n_members = 0;
		u->metrics[id].member_ids = NULL;
		u->n_metrics++;
		if (group && member_ids(&u->metrics[id], keys) < 0)
			vt_error("unification: the members of a class of synchronous counters are "
				 "not known; its values are not in the trace");
	}
	return id;
}

static uint32_t comm_slot(const struct keys *k, const struct vt_unify_comm *comms, uint64_t key,
			  uint32_t thread_rank)
{
	uint64_t h = (key ^ ((uint64_t)thread_rank << 40)) * 0x9E3779B97F4A7C15ull;
	uint32_t i = (uint32_t)(h >> 32) & (k->comm_cap - 1);
	while (k->comm_at[i] && (comms[k->comm_at[i] - 1].key != key ||
				 comms[k->comm_at[i] - 1].thread_rank != thread_rank))
		i = (i + 1) & (k->comm_cap - 1);
	return i;
}

/* A run with a communicator per rank (splits by rank, MPI_COMM_SELF-like keys) has as many
 * as ranks: found by a table, not a scan. */
static uint32_t comm_id(struct vt_unified *u, struct keys *k, uint64_t key, uint32_t size,
			uint32_t thread_rank)
{
	if (2 * (u->n_comms + 1) > k->comm_cap) {
		uint32_t cap = k->comm_cap ? 2 * k->comm_cap : 64;
		uint32_t *at = calloc(cap, sizeof(*at));
		if (!at)
			return 0;
		free(k->comm_at);
		k->comm_at = at;
		k->comm_cap = cap;
		for (uint32_t i = 0; i < u->n_comms; i++)
			at[comm_slot(k, u->comms, u->comms[i].key, u->comms[i].thread_rank)] =
			    i + 1;
	}
	uint32_t slot = comm_slot(k, u->comms, key, thread_rank);
	if (k->comm_at[slot])
		return k->comm_at[slot] - 1;
	struct vt_unify_comm *c = grow(u->comms, u->n_comms + 1, sizeof(*c));
	if (!c)
		return 0;
	u->comms = c;
	c = &u->comms[u->n_comms];
	*c = (struct vt_unify_comm){key,	 size, calloc(size ? size : 1, sizeof(uint32_t)),
				    thread_rank, NULL, 0};
	for (uint32_t i = 0; i < size && c->members; i++)
		c->members[i] = UINT32_MAX;
	k->comm_at[slot] = u->n_comms + 1;
	return u->n_comms++;
}

static uint32_t host_node(struct vt_unified *u, const char *host)
{
	for (uint32_t i = 0; i < u->n_hosts; i++)
		if (strcmp(u->hosts[i], host) == 0)
			return i + 1;
	const char **h = grow(u->hosts, u->n_hosts + 1, sizeof(*h));
	if (!h)
		return 1;
	u->hosts = h;
	u->hosts[u->n_hosts++] = host;
	return u->n_hosts;
}

/* One process's stream into u; 0 or -1 (damaged). */
static int merge_one(struct vt_unified *u, uint32_t rank, struct vt_defs_reader *r,
		     struct pending *pd, struct keys *keys)
{
	struct vt_strtab *rkeys = &keys->regions, *mkeys = &keys->metrics;
	enum vt_def_kind kind;
	union vt_def d;
	int rc;
	uint32_t n_threads = 0;
	bool thread_events = false;
	pd->first_inst = u->n_insts;
	while ((rc = vt_defs_next(r, &kind, &d)) > 0) {
		switch (kind) {
		case VT_DEF_PROCESS: {
			struct vt_unify_process *p = &u->procs[rank];
			p->pid = d.process.pid;
			p->host = d.process.host;
			p->node = host_node(u, p->host);
			if (rank == 0) {
				u->resolution = d.process.resolution;
				u->realtime = d.process.realtime;
			}
			if (d.process.first < u->first)
				u->first = d.process.first;
			if (d.process.last > u->last)
				u->last = d.process.last;
			thread_events = d.process.thread_events != 0;
			break;
		}
		case VT_DEF_LOCATION: {
			struct vt_unify_loc *l = grow(u->locs, u->n_locs + 1, sizeof(*l));
			if (!l)
				return -1;
			u->locs = l;
			u->locs[u->n_locs++] = (struct vt_unify_loc){
			    d.location.ref, d.location.name, d.location.events, rank};
			n_threads++;
			break;
		}
		case VT_DEF_REGION: {
			uint32_t g = region_id(u, rkeys, &d.region);
			if (ord_add(keys, kind, g) < 0)
				return -1;
			map_add(&pd->regions, d.region.id, g);
			break;
		}
		case VT_DEF_COMM: {
			uint32_t g = comm_id(u, keys, d.comm.key, d.comm.size, UINT32_MAX);
			if (u->comms[g].members && d.comm.my_rank < u->comms[g].size)
				u->comms[g].members[d.comm.my_rank] = rank;
			/* MPI_Comm_set_name is local: ranks may disagree; the lowest wins. */
			if (d.comm.name && *d.comm.name &&
			    (!u->comms[g].name || d.comm.my_rank < u->comms[g].name_rank)) {
				u->comms[g].name = d.comm.name;
				u->comms[g].name_rank = d.comm.my_rank;
			}
			map_add(&pd->comms, d.comm.id, g);
			break;
		}
		case VT_DEF_RMAWIN:
			map_add(&pd->wins, d.rmawin.id,
				win_id(u, &d.rmawin, paired(&pd->comms, d.rmawin.comm, 0)));
			break;
		case VT_DEF_GROUP: {
			uint32_t g = group_id(u, keys, d.group.members);
			if (ord_add(keys, kind, g) < 0)
				return -1;
			map_add(&pd->groups, d.group.id, g);
			break;
		}
		case VT_DEF_IOHANDLE: {
			uint32_t g = io_id(u, keys, &d.iohandle,
					   d.iohandle.comm == UINT32_MAX
					       ? UINT32_MAX
					       : paired(&pd->comms, d.iohandle.comm, 0),
					   /* a parent is defined before its children */
					   d.iohandle.parent == UINT32_MAX
					       ? UINT32_MAX
					       : paired(&pd->ios, d.iohandle.parent, UINT32_MAX));
			map_add(&pd->ios, d.iohandle.id, g);
			if (g < u->n_ios)
				map_add(&pd->files, d.iohandle.id, u->ios[g].file);
			break;
		}
		case VT_DEF_METRIC: {
			uint32_t g = metric_id(u, mkeys, &d.metric);
			if (ord_add(keys, kind, g) < 0 || set_metric(pd, d.metric.id, g) < 0)
				return -1;
			break;
		}
		case VT_DEF_MARKER: {
			/* Doubling at powers of two: a program may set many. */
			size_t n = u->n_markers;
			if (!n || !(n & (n - 1))) {
				struct vt_def_marker *m =
				    grow(u->markers, n ? 2 * n : 16, sizeof(*u->markers));
				if (!m)
					return -1;
				u->markers = m;
			}
			u->markers[u->n_markers++] = d.marker;
			break;
		}
		case VT_DEF_PROPERTY: {
			struct vt_unify_property *q = grow(u->props, u->n_props + 1, sizeof(*q));
			if (!q)
				return -1;
			u->props = q;
			u->props[u->n_props++] =
			    (struct vt_unify_property){d.property.name, d.property.value, rank};
			break;
		}
		case VT_DEF_CALLCTX: {
			const struct vt_def_callctx *c = &d.callctx;
			if (c->id >= pd->cap_ctx) {
				uint32_t cap = c->id < 1024 ? 1024 : 2 * c->id;
				uint32_t *m = grow(pd->ctx_of, cap, sizeof(*m));
				if (!m)
					return -1;
				pd->ctx_of = m;
				pd->cap_ctx = cap;
			}
			struct vt_def_region reg = {
			    0, c->name, c->file, c->line, c->paradigm, OTF2_REGION_ROLE_FUNCTION};
			/* Parents come first: a parent not defined before is a damaged stream. */
			uint32_t parent = UINT32_MAX;
			if (c->parent != UINT32_MAX) {
				if (c->parent >= c->id)
					return -1;
				parent = pd->ctx_of[c->parent];
			}
			uint32_t g = ctx_id(u, keys, region_id(u, rkeys, &reg),
					    scl_id(u, keys, c->src_file, c->src_line), parent);
			pd->ctx_of[c->id] = g;
			map_add(&pd->ctxs, c->id, g);
			break;
		}
		case VT_DEF_IGEN: {
			uint32_t g = igen_id(u, keys, &d.igen);
			if (ord_add(keys, kind, g) < 0)
				return -1;
			map_add(&pd->igens, d.igen.id, g);
			break;
		}
		case VT_DEF_SAME: {
			/* the global ids of the records kept whole that they equal */
			const struct vt_def_same *sm = &d.same;
			if (sm->kind >= VT_DEF_KIND_MAX || !sm->count ||
			    sm->ordinal >= keys->ord[sm->kind].n ||
			    sm->count > keys->ord[sm->kind].n - sm->ordinal)
				return -1;
			for (uint32_t k = 0; k < sm->count; k++) {
				uint32_t g = keys->ord[sm->kind].gid[sm->ordinal + k],
					 id = sm->id + k;
				if (sm->kind == VT_DEF_REGION)
					map_add(&pd->regions, id, g);
				else if (sm->kind == VT_DEF_GROUP)
					map_add(&pd->groups, id, g);
				else if (sm->kind == VT_DEF_IGEN)
					map_add(&pd->igens, id, g);
				else if (sm->kind != VT_DEF_METRIC || set_metric(pd, id, g) < 0)
					return -1;
			}
			break;
		}
		case VT_DEF_COMMUSE: {
			/* resolved once the stream's communicators are known (lanes()) */
			struct vt_def_commuse *c = grow(pd->uses, pd->n_uses + 1, sizeof(*c));
			if (!c)
				return -1;
			pd->uses = c;
			pd->uses[pd->n_uses++] = d.commuse;
			break;
		}
		case VT_DEF_TEAM: {
			/* its global id once the lanes are known (vt_unify_merge) */
			struct vt_unify_team *t = grow(u->teams, u->n_teams + 1, sizeof(*t));
			if (!t)
				return -1;
			u->teams = t;
			u->teams[u->n_teams++] =
			    (struct vt_unify_team){rank, d.team.id, d.team.members};
			break;
		}
		case VT_DEF_INSTANCE: {
			struct vt_unify_inst *in = grow(u->insts, u->n_insts + 1, sizeof(*in));
			uint32_t *loc = grow(pd->inst_local, pd->n_inst + 1, sizeof(*loc));
			if (!in || !loc)
				return -1;
			u->insts = in;
			pd->inst_local = loc;
			uint32_t m = d.instance.metric;
			u->insts[u->n_insts++] = (struct vt_unify_inst){
			    d.instance.recorder,
			    d.instance.events,
			    d.instance.owner,
			    d.instance.recorder_name,
			    rank,
			    m < pd->n_metrics && pd->metric_of ? pd->metric_of[m] : 0,
			    d.instance.scope};
			pd->inst_local[pd->n_inst++] = d.instance.id;
			break;
		}
		default:
			break;
		}
	}
	/* A process with several threads: its team, which their ThreadBegin/End refer to; and
	 * one whose ThreadCreate/Wait were written though no created thread was recorded (its
	 * buffer could not be had): a team of the master alone, so that they refer to one. */
	if (n_threads > 1 || (n_threads == 1 && thread_events))
		map_add(&pd->comms, VT_UNIFY_THREAD_COMM_LOCAL,
			comm_id(u, keys, 0, n_threads, rank));
	return rc < 0 ? -1 : 0;
}

/* Appends a record of four ids to b. */
static void quad(struct vt_defs_buf *b, uint64_t loc, uint32_t local, uint32_t global)
{
	pair(b, (uint32_t)loc, (uint32_t)(loc >> 32));
	pair(b, local, global);
}

/*
 * The lanes of the communicators that threads other than the masters make MPI calls on
 * (vt_unified.lanes): rank r's k-th such thread on communicator c is the member of r in c's
 * lane k. OTF2 readers find the location of a communicator's member through the MPI
 * locations group, so the events of every location must be on a communicator that lists
 * it; with one thread per communicator per rank (the common pattern) each lane is exact.
 * 0, or -1 when memory ran out.
 */
static int lanes(struct vt_unified *u, struct pending *pd, uint32_t n)
{
	uint32_t *max_lane = calloc(u->n_comms ? u->n_comms : 1, sizeof(*max_lane));
	uint32_t *first = calloc(u->n_comms ? u->n_comms : 1, sizeof(*first));
	int rc = max_lane && first ? 0 : -1;
	/* Each use's communicator and lane (its thread's rank among the process's threads on
	 * that communicator, from 1): (global, lane) pairs in pd->thread_comms first. */
	uint32_t *seen = calloc(u->n_comms ? u->n_comms : 1, sizeof(*seen));
	if (!seen)
		rc = -1;
	for (uint32_t r = 0; r < n && rc == 0; r++) {
		struct vt_defs_buf gk = {0};
		for (uint32_t i = 0; i < pd[r].n_uses; i++) {
			uint32_t g = paired(&pd[r].comms, pd[r].uses[i].comm, UINT32_MAX), k = 0;
			if (g >= u->n_comms || u->comms[g].thread_rank != UINT32_MAX ||
			    u->comms[g].key == VT_MPI_KEY_SELF || !u->comms[g].members)
				g = UINT32_MAX;
			if (g != UINT32_MAX) {
				k = ++seen[g];
				if (k > max_lane[g])
					max_lane[g] = k;
			}
			pair(&gk, g, k);
		}
		for (size_t off = 0; off + 2 * sizeof(uint32_t) <= gk.n;
		     off += 2 * sizeof(uint32_t)) {
			uint32_t g;
			memcpy(&g, gk.p + off, sizeof(g));
			if (g != UINT32_MAX)
				seen[g] = 0;
		}
		if (gk.failed)
			rc = -1;
		pd[r].thread_comms = gk;
	}
	free(seen);
	for (uint32_t g = 0; g < u->n_comms && rc == 0; g++) {
		first[g] = u->n_lanes;
		if (!max_lane[g])
			continue;
		struct vt_unify_lane *l = grow(u->lanes, u->n_lanes + max_lane[g], sizeof(*l));
		if (!l) {
			rc = -1;
			break;
		}
		u->lanes = l;
		for (uint32_t k = 1; k <= max_lane[g] && rc == 0; k++) {
			uint32_t size = u->comms[g].size;
			struct vt_unify_lane *lane = &u->lanes[u->n_lanes++];
			*lane =
			    (struct vt_unify_lane){g, k, calloc(size ? size : 1, sizeof(uint64_t))};
			if (!lane->locs)
				rc = -1;
			for (uint32_t m = 0; lane->locs && m < size; m++)
				lane->locs[m] = UINT64_MAX; /* the rank's master */
		}
	}
	/* The members, each process's quadruples for its threads' mapping tables, and the
	 * threads among the MPI locations in the order of the locations (a process lists its
	 * uses location by location, in that order). */
	for (uint32_t r = 0; r < n; r++) {
		struct vt_defs_buf gk = pd[r].thread_comms, quads = {0};
		for (uint32_t i = 0; rc == 0 && i < pd[r].n_uses; i++) {
			const struct vt_def_commuse *c = &pd[r].uses[i];
			uint32_t p[2];
			memcpy(p, gk.p + i * sizeof(p), sizeof(p));
			if (p[0] == UINT32_MAX)
				continue;
			uint32_t id = first[p[0]] + p[1] - 1;
			const struct vt_unify_comm *cm = &u->comms[p[0]];
			for (uint32_t m = 0; m < cm->size; m++)
				if (cm->members[m] == r)
					u->lanes[id].locs[m] = c->location;
			quad(&quads, c->location, c->comm, u->n_comms + id);
			if (u->n_mpi_extra && u->mpi_extra[u->n_mpi_extra - 1] == c->location)
				continue;
			uint64_t *x = grow(u->mpi_extra, u->n_mpi_extra + 1, sizeof(*x));
			if (!x) {
				rc = -1;
				break;
			}
			u->mpi_extra = x;
			u->mpi_extra[u->n_mpi_extra++] = c->location;
		}
		free(gk.p);
		if (quads.failed)
			rc = -1;
		pd[r].thread_comms = quads;
	}
	free(max_lane);
	free(first);
	return rc;
}

/* Appends records of rec_ids ids to map: their count, then them. */
static void put_records(struct vt_defs_buf *map, const struct vt_defs_buf *recs, uint32_t rec_ids)
{
	uint32_t n = (uint32_t)(recs->n / (rec_ids * sizeof(uint32_t)));
	add(map, &n, sizeof(n));
	add(map, recs->p, recs->n);
	if (recs->failed)
		map->failed = true;
}

/* A map's runs (map_add): their count, then the (local, global, length) triples. */
static void put_runs(struct vt_defs_buf *map, const struct vt_defs_buf *runs)
{
	put_records(map, runs, 3);
}

int vt_unify_merge(struct vt_unified *u, const char *all, const size_t *sizes, uint32_t n, bool mpi)
{
	struct keys keys = {0};
	struct pending *pd = calloc(n ? n : 1, sizeof(*pd));
	int rc = 0;

	*u = (struct vt_unified){.mpi = mpi, .size = n, .first = UINT64_MAX};
	u->procs = calloc(n ? n : 1, sizeof(*u->procs));
	u->maps = calloc(n ? n : 1, sizeof(*u->maps));
	if (!pd || !u->procs || !u->maps) {
		free(pd);
		return -1;
	}
	const char *p = all;
	for (uint32_t rank = 0; rank < n && rc == 0; p += sizes[rank], rank++) {
		struct vt_defs_reader r = {p, p + sizes[rank], false};
		if (merge_one(u, rank, &r, &pd[rank], &keys) < 0) {
			vt_error(
			    "the definitions of rank %u did not decode (%zu bytes); the trace's "
			    "definitions are incomplete",
			    rank, sizes[rank]);
			rc = -1;
		}
	}
	if (u->first == UINT64_MAX)
		u->first = 0;
	if (rc == 0 && mpi && lanes(u, pd, n) < 0)
		rc = -1;
	/* The teams' communicators come after the lanes': each process's local ids now. */
	for (uint32_t t = 0; rc == 0 && t < u->n_teams; t++)
		map_add(&pd[u->teams[t].rank].comms, u->teams[t].local,
			u->n_comms + u->n_lanes + t);
	/* Metric ids: a process's classes, then its instances after every global class. The
	 * groups' base looks at every communicator: once, not per process. */
	uint32_t base = vt_unify_group_base(u);
	for (uint32_t rank = 0; rank < n && rc == 0; rank++) {
		struct pending *q = &pd[rank];
		struct vt_defs_buf metrics = {0};
		for (uint32_t i = 0; i < q->n_metrics; i++)
			map_add(&metrics, i, q->metric_of[i]);
		for (uint32_t k = 0; k < q->n_inst; k++)
			map_add(&metrics, q->inst_local[k], u->n_metrics + q->first_inst + k);
		/* groups: their OTF2 references, after the groups of communicators (a run stays
		 * one run) */
		struct vt_defs_buf groups = {0};
		uint32_t run[3];
		for (size_t off = 0; off + sizeof(run) <= q->groups.n; off += sizeof(run)) {
			memcpy(run, q->groups.p + off, sizeof(run));
			run[1] += base;
			add(&groups, run, sizeof(run));
		}
		if (q->groups.failed)
			groups.failed = true;
		/* The map is held by rank 0 for every process until the scatter: exactly its
		 * size (ten counts, the runs, the quadruples). */
		struct vt_defs_buf *m = &u->maps[rank];
		m->cap = 10 * sizeof(uint32_t) + q->regions.n + q->comms.n + metrics.n + q->ctxs.n +
			 q->igens.n + q->wins.n + groups.n + q->ios.n + q->files.n +
			 q->thread_comms.n;
		if (!(m->p = malloc(m->cap)))
			m->failed = true;
		put_runs(&u->maps[rank], &q->regions);
		put_runs(&u->maps[rank], &q->comms);
		put_runs(&u->maps[rank], &metrics);
		put_runs(&u->maps[rank], &q->ctxs);
		put_runs(&u->maps[rank], &q->igens);
		put_runs(&u->maps[rank], &q->wins);
		put_runs(&u->maps[rank], &groups);
		put_runs(&u->maps[rank], &q->ios);
		put_runs(&u->maps[rank], &q->files);
		put_records(&u->maps[rank], &q->thread_comms, 4);
		free(groups.p);
		free(metrics.p);
		if (u->maps[rank].failed)
			rc = -1;
	}
	for (uint32_t rank = 0; rank < n; rank++) {
		free(pd[rank].regions.p);
		free(pd[rank].comms.p);
		free(pd[rank].ctxs.p);
		free(pd[rank].igens.p);
		free(pd[rank].wins.p);
		free(pd[rank].groups.p);
		free(pd[rank].ios.p);
		free(pd[rank].files.p);
		free(pd[rank].ctx_of);
		free(pd[rank].metric_of);
		free(pd[rank].inst_local);
		free(pd[rank].uses);
		free(pd[rank].thread_comms.p);
	}
	free(pd);
	/* The names point into the streams; the keys are no longer needed. */
	vt_strtab_free(&keys.regions);
	vt_strtab_free(&keys.metrics);
	vt_strtab_free(&keys.scls);
	vt_strtab_free(&keys.ctxs);
	vt_strtab_free(&keys.igens);
	vt_strtab_free(&keys.groups);
	vt_strtab_free(&keys.files);
	for (int k = 0; k < VT_DEF_KIND_MAX; k++)
		free(keys.ord[k].gid);
	free(keys.comm_at);
	return rc;
}

/* Reads a map's runs at *p (their count, then triples): its number of pairs in *pairs. 0, or
 * -1 when damaged (a run empty or past the last id). */
static int runs_at(const char **p, const char *end, uint32_t *n_runs, uint64_t *pairs)
{
	uint32_t k = 0, r[3];
	if (end - *p < (ptrdiff_t)sizeof(k))
		return -1;
	memcpy(&k, *p, sizeof(k));
	*p += sizeof(k);
	if ((size_t)(end - *p) / sizeof(r) < k)
		return -1;
	*pairs = 0;
	for (uint32_t i = 0; i < k; i++) {
		memcpy(r, *p + i * sizeof(r), sizeof(r));
		if (!r[2] || (uint64_t)r[0] + r[2] > (uint64_t)UINT32_MAX + 1 ||
		    (uint64_t)r[1] + r[2] > (uint64_t)UINT32_MAX + 1)
			return -1;
		*pairs += r[2];
	}
	*n_runs = k;
	*p += k * sizeof(r);
	return 0;
}

static int maps_read(const char *map, size_t n, struct vt_unify_maps *out)
{
	if (!map) /* rank 0 had no memory for the maps (the scatter says so with NULL) */
		return -1;
	const char *p = map, *end = map + n, *at[9];
	uint32_t *counts[9] = {&out->n_regions, &out->n_comms, &out->n_metrics,
			       &out->n_ctxs,	&out->n_igens, &out->n_wins,
			       &out->n_groups,	&out->n_ios,   &out->n_files};
	const uint32_t **pairs[9] = {&out->regions, &out->comms, &out->metrics,
				     &out->ctxs,    &out->igens, &out->wins,
				     &out->groups,  &out->ios,	 &out->files};
	uint32_t n_runs[9];
	uint64_t total = 0;
	for (int i = 0; i < 9; i++) {
		uint64_t k;
		at[i] = p + sizeof(uint32_t);
		if (runs_at(&p, end, &n_runs[i], &k) < 0 || k > UINT32_MAX)
			return -1;
		*counts[i] = (uint32_t)k;
		total += k;
	}
	uint32_t k = 0;
	if (end - p < (ptrdiff_t)sizeof(k))
		return -1;
	memcpy(&k, p, sizeof(k));
	p += sizeof(k);
	if ((size_t)(end - p) / (4 * sizeof(uint32_t)) < k)
		return -1;
	/* Only this process's maps are expanded, here, where they are used. */
	if (total > SIZE_MAX / (2 * sizeof(uint32_t)) ||
	    !(out->mem = malloc(total ? (size_t)total * 2 * sizeof(uint32_t) : 1)))
		return -1;
	uint32_t *q = out->mem;
	for (int i = 0; i < 9; i++) {
		*pairs[i] = q;
		for (uint32_t j = 0; j < n_runs[i]; j++) {
			uint32_t r[3];
			memcpy(r, at[i] + j * sizeof(r), sizeof(r));
			for (uint32_t m = 0; m < r[2]; m++) {
				*q++ = r[0] + m;
				*q++ = r[1] + m;
			}
		}
	}
	out->n_thread_comms = k;
	out->thread_comms = (const uint32_t *)p; /* 4-byte aligned: the stream is malloc'd */
	return 0;
}

int vt_unify_maps_read(const char *map, size_t n, struct vt_unify_maps *out)
{
	*out = (struct vt_unify_maps){0};
	if (maps_read(map, n, out) == 0)
		return 0;
	*out = (struct vt_unify_maps){0}; /* nothing was allocated */
	return -1;
}

void vt_unify_maps_free(struct vt_unify_maps *m)
{
	free(m->mem);
	*m = (struct vt_unify_maps){0};
}
