/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI mode: unifies the definitions of all ranks at rank 0 and closes the archive. */
#include "vt_clock.h"
#include "vt_log.h"
#include "vt_mpi_iface.h"
#include "vt_otf2.h"
#include "vt_otf2_priv.h"
#include "vt_plugin.h"
#include "vt_strtab.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Each rank's events carry its own region and communicator ids. Rather than rewrite events,
 * every rank sends its definitions to rank 0, which merges them into one global set and
 * sends back, per rank, the local -> global id pairs; each rank writes those as OTF2 mapping
 * tables into its locations' local definitions, where every OTF2 reader applies them.
 */

/* A growable byte buffer, and a reader over one. */
struct buf {
	char *p;
	size_t n, cap;
	int failed;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_str(struct buf *b, const char *s)
{
	s = s ? s : "";
	put(b, s, strlen(s) + 1);
}

struct rd {
	const char *p, *end;
	int bad;
};

static uint32_t get_u32(struct rd *r)
{
	uint32_t v = 0;
	if (r->end - r->p < (ptrdiff_t)sizeof(v)) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;
	if (r->end - r->p < (ptrdiff_t)sizeof(v)) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static const char *get_str(struct rd *r)
{
	const char *s = r->p;
	const char *nul = memchr(r->p, '\0', (size_t)(r->end - r->p));
	if (!nul) {
		r->bad = 1;
		return "";
	}
	r->p = nul + 1;
	return s;
}

/* This rank's definitions, as rank 0 reads them. */
static void serialize(struct buf *b, const struct vt_mpi_ops *ops, struct vt_loc *locs)
{
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	put_u32(b, (uint32_t)ops->rank);
	put_str(b, host);
	put_u64(b, vt_clock_resolution());
	put_u64(b, vt_clock_start_realtime_ns());

	uint32_t n = 0;
	uint64_t first = UINT64_MAX, last = 0;
	for (struct vt_loc *l = locs; l; l = l->next) {
		n++;
		if (l->began && l->first_ts < first)
			first = l->first_ts;
		if (l->last_ts > last)
			last = l->last_ts;
	}
	if (first == UINT64_MAX)
		first = vt_clock_start_ticks();
	if (vt_plugin_last_ts() > last)
		last = vt_plugin_last_ts();
	/* On rank 0's clock, as readers will place the events. A reader may hold the first
	 * offset before the first measurement and the last after the last, or extend the line
	 * through them: the range takes both, widened by the drift between them, so that every
	 * corrected timestamp falls inside it. */
	int n_off;
	const struct vt_otf2_clock_offset *off = vt_otf2_clock_offsets(&n_off);
	int64_t o0 = n_off ? off[0].offset : 0, o1 = n_off ? off[n_off - 1].offset : 0;
	int64_t drift = o1 > o0 ? o1 - o0 : o0 - o1;
	int64_t lo = (int64_t)first + (o0 < o1 ? o0 : o1) - drift;
	int64_t hi = (int64_t)last + (o0 > o1 ? o0 : o1) + drift;
	if (n_off > 1 && off[n_off - 1].t > off[0].t) {
		double slope = (double)(o1 - o0) / (double)(off[n_off - 1].t - off[0].t);
		int64_t ef = (int64_t)first + o0 + (int64_t)(slope * ((double)first - (double)off[0].t));
		int64_t el = (int64_t)last + o0 + (int64_t)(slope * ((double)last - (double)off[0].t));
		if (ef - drift < lo)
			lo = ef - drift;
		if (el + drift > hi)
			hi = el + drift;
	}
	put_u64(b, (uint64_t)lo);
	put_u64(b, (uint64_t)hi);
	put_u32(b, n);
	for (struct vt_loc *l = locs; l; l = l->next) {
		char name[64];
		vt_otf2_location_name(l, name, sizeof(name));
		put_u64(b, l->ref);
		put_str(b, name);
		put_u64(b, l->n_events);
	}

	uint32_t n_regions = vt_region_count();
	bool overflow = vt_region_overflowed();
	put_u32(b, n_regions + (overflow ? 1 : 0));
	for (uint32_t id = 0; id < n_regions + (overflow ? 1 : 0); id++) {
		uint32_t rid = id < n_regions ? id : VT_REGION_UNKNOWN;
		const struct vt_region *r = &vt_regions[rid];
		put_u32(b, rid);
		put_str(b, r->name ? r->name : "unknown");
		put_str(b, r->file);
		put_u32(b, r->line);
		put_u32(b, vt_otf2_region_paradigm(r));
		put_u32(b, vt_otf2_region_role(r));
	}

	uint32_t n_comms;
	const struct vt_otf2_comm *c = vt_otf2_comms(&n_comms);
	put_u32(b, n_comms);
	for (uint32_t i = 0; i < n_comms; i++) {
		put_u64(b, c[i].key);
		put_u32(b, c[i].my_rank);
		put_u32(b, c[i].size);
	}

	uint32_t n_metrics, n_inst;
	const struct vt_plugin_def_metric *m = vt_plugin_def_metrics(&n_metrics);
	const struct vt_plugin_def_instance *in = vt_plugin_def_instances(&n_inst);
	put_u32(b, n_metrics);
	for (uint32_t i = 0; i < n_metrics; i++) {
		put_str(b, m[i].name);
		put_str(b, m[i].unit);
		put_str(b, m[i].description);
		put_u32(b, m[i].mode);
		put_u32(b, m[i].type);
		put_u32(b, m[i].base);
		put_u64(b, (uint64_t)m[i].exponent);
		put_u32(b, m[i].occurrence);
		put_u32(b, m[i].recorder_kind);
	}
	put_u32(b, n_inst);
	for (uint32_t i = 0; i < n_inst; i++) {
		put_u32(b, in[i].id);
		put_u32(b, in[i].metric);
		put_u64(b, in[i].recorder);
		put_str(b, in[i].recorder_name);
		put_u64(b, in[i].events);
		put_u32(b, (uint32_t)in[i].scope);
		put_u64(b, in[i].owner);
	}
}

/* What rank 0 merges. */
struct gregion {
	const char *name, *file;
	uint32_t line, paradigm, role;
};

struct gcomm {
	uint64_t key;
	uint32_t size;
	uint32_t *members; /* world rank of each rank in the comm */
	uint32_t thread_rank; /* UINT32_MAX: an MPI comm; else the thread team of that rank */
};

struct gloc {
	uint64_t ref;
	const char *name;
	uint64_t events;
	uint32_t rank;
};

/* A plugin metric instance: its METRIC location and scope. */
struct ginst {
	uint64_t recorder, events, owner;
	const char *name;
	uint32_t rank, metric, scope;
};

struct unified {
	uint32_t size;
	const char **host; /* per rank */
	uint64_t resolution, realtime, first, last;
	struct gloc *locs;
	size_t n_locs;
	struct gregion *regions;
	uint32_t n_regions;
	struct gcomm *comms;
	uint32_t n_comms;
	struct vt_plugin_def_metric *metrics; /* global id = index */
	uint32_t n_metrics;
	struct ginst *insts; /* global metric id = n_metrics + index */
	uint32_t n_insts;
	struct buf *maps; /* per rank: region pairs, comm pairs, then metric pairs */
};

static uint32_t region_id(struct unified *u, struct vt_strtab *keys, const struct gregion *g)
{
	char key[4096];
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%u\x1f%u\x1f%u", g->name, g->file, g->line,
		 g->paradigm, g->role);
	uint32_t id = vt_strtab_ref(keys, key);
	if (id == u->n_regions) {
		struct gregion *r = realloc(u->regions, (id + 1) * sizeof(*r));
		if (!r)
			return 0;
		u->regions = r;
		u->regions[id] = *g;
		u->n_regions++;
	}
	return id;
}

static uint32_t comm_id(struct unified *u, uint64_t key, uint32_t size, uint32_t thread_rank)
{
	for (uint32_t i = 0; i < u->n_comms; i++)
		if (u->comms[i].key == key && u->comms[i].thread_rank == thread_rank)
			return i;
	struct gcomm *c = realloc(u->comms, (u->n_comms + 1) * sizeof(*c));
	if (!c)
		return 0;
	u->comms = c;
	c = &u->comms[u->n_comms];
	c->key = key;
	c->size = size;
	c->thread_rank = thread_rank;
	c->members = calloc(size ? size : 1, sizeof(*c->members));
	for (uint32_t i = 0; i < size && c->members; i++)
		c->members[i] = UINT32_MAX;
	return u->n_comms++;
}

/* Rank 0: merges every rank's blob (blobs stay alive: names point into them). */
static int merge(struct unified *u, const char *all, const size_t *sizes, uint32_t size)
{
	struct vt_strtab keys = { 0 };
	const char *p = all;
	u->size = size;
	u->host = calloc(size, sizeof(*u->host));
	u->maps = calloc(size, sizeof(*u->maps));
	u->first = UINT64_MAX;
	if (!u->host || !u->maps)
		return -1;
	struct vt_strtab mkeys = { 0 };
	/* Per rank, its metrics' local -> global ids and where its instances start, for the
	 * metric mapping written once every class is known. */
	uint32_t **mmaps = calloc(size, sizeof(*mmaps));
	uint32_t *first_inst = calloc(size + 1, sizeof(*first_inst));
	uint32_t *n_metrics_of = calloc(size, sizeof(*n_metrics_of));
	uint32_t *local_inst = NULL;
	if (!mmaps || !first_inst || !n_metrics_of) {
		free(mmaps);
		free(first_inst);
		free(n_metrics_of);
		return -1;
	}
	for (uint32_t rank = 0; rank < size; p += sizeof(char) * sizes[rank], rank++) {
		struct rd r = { p, p + sizes[rank], 0 };
		struct buf *map = &u->maps[rank];
		uint32_t from = get_u32(&r);
		u->host[rank] = get_str(&r);
		uint64_t resolution = get_u64(&r), realtime = get_u64(&r);
		uint64_t first = get_u64(&r), last = get_u64(&r);
		if (rank == 0) {
			u->resolution = resolution;
			u->realtime = realtime;
		}
		if (first < u->first)
			u->first = first;
		if (last > u->last)
			u->last = last;
		uint32_t n = get_u32(&r);
		struct gloc *gl = realloc(u->locs, (u->n_locs + n) * sizeof(*gl));
		if (!gl)
			return -1;
		u->locs = gl;
		for (uint32_t i = 0; i < n && !r.bad; i++) {
			struct gloc *l = &u->locs[u->n_locs++];
			l->ref = get_u64(&r);
			l->name = get_str(&r);
			l->events = get_u64(&r);
			l->rank = from;
		}

		n = get_u32(&r);
		put_u32(map, n);
		for (uint32_t i = 0; i < n && !r.bad; i++) {
			uint32_t local = get_u32(&r);
			struct gregion g;
			g.name = get_str(&r);
			g.file = get_str(&r);
			g.line = get_u32(&r);
			g.paradigm = get_u32(&r);
			g.role = get_u32(&r);
			put_u32(map, local);
			put_u32(map, region_id(u, &keys, &g));
		}

		n = get_u32(&r);
		uint32_t n_threads = 0;
		for (size_t i = 0; i < u->n_locs; i++)
			n_threads += u->locs[i].rank == from;
		put_u32(map, n + (n_threads > 1));
		for (uint32_t local = 0; local < n && !r.bad; local++) {
			uint64_t key = get_u64(&r);
			uint32_t my_rank = get_u32(&r), csize = get_u32(&r);
			uint32_t g = comm_id(u, key, csize, UINT32_MAX);
			if (u->comms[g].members && my_rank < u->comms[g].size)
				u->comms[g].members[my_rank] = from;
			put_u32(map, local);
			put_u32(map, g);
		}
		if (n_threads > 1) {
			put_u32(map, VT_OTF2_THREAD_COMM_LOCAL);
			put_u32(map, comm_id(u, 0, n_threads, from));
		}

		n = get_u32(&r);
		mmaps[rank] = calloc(n ? n : 1, sizeof(**mmaps));
		for (uint32_t i = 0; i < n && !r.bad && mmaps[rank]; i++) {
			struct vt_plugin_def_metric g;
			g.name = get_str(&r);
			g.unit = get_str(&r);
			g.description = get_str(&r);
			g.mode = get_u32(&r);
			g.type = (uint8_t)get_u32(&r);
			g.base = (uint8_t)get_u32(&r);
			g.exponent = (int64_t)get_u64(&r);
			g.occurrence = (uint8_t)get_u32(&r);
			g.recorder_kind = (uint8_t)get_u32(&r);
			char key[4096];
			snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%u\x1f%u\x1f%u\x1f%lld\x1f%u", g.name,
				 g.unit, g.description, g.mode, g.type, g.base, (long long)g.exponent,
				 g.occurrence);
			uint32_t id = vt_strtab_ref(&mkeys, key);
			if (id == u->n_metrics) {
				struct vt_plugin_def_metric *ms =
					realloc(u->metrics, (id + 1) * sizeof(*ms));
				if (!ms)
					return -1;
				u->metrics = ms;
				u->metrics[id] = g;
				u->n_metrics++;
			}
			mmaps[rank][i] = id;
		}
		uint32_t n_metrics_here = n;
		n = get_u32(&r);
		first_inst[rank] = u->n_insts;
		struct ginst *gi = realloc(u->insts, (u->n_insts + n + 1) * sizeof(*gi));
		uint32_t *li = realloc(local_inst, (u->n_insts + n + 1) * sizeof(*li));
		if (!gi || !li)
			return -1;
		u->insts = gi;
		local_inst = li;
		for (uint32_t i = 0; i < n && !r.bad; i++) {
			struct ginst *g = &u->insts[u->n_insts];
			local_inst[u->n_insts] = get_u32(&r);
			uint32_t metric = get_u32(&r);
			g->recorder = get_u64(&r);
			g->name = get_str(&r);
			g->events = get_u64(&r);
			g->scope = get_u32(&r);
			g->owner = get_u64(&r);
			g->rank = from;
			g->metric = metric < n_metrics_here && mmaps[rank] ? mmaps[rank][metric] : 0;
			u->n_insts++;
		}
		first_inst[rank + 1] = u->n_insts;
		n_metrics_of[rank] = n_metrics_here;
		if (r.bad || map->failed) {
			vt_error("the definitions of rank %u reached rank 0 damaged; the trace's "
				 "definitions are incomplete",
				 rank);
			return -1;
		}
	}
	/* Metric ids: every rank's classes, then its instances after all global classes. */
	for (uint32_t rank = 0; rank < size; rank++) {
		struct buf *map = &u->maps[rank];
		uint32_t n_here = n_metrics_of[rank];
		uint32_t n_inst = first_inst[rank + 1] - first_inst[rank];
		put_u32(map, n_here + n_inst);
		for (uint32_t i = 0; i < n_here && mmaps[rank]; i++) {
			put_u32(map, i);
			put_u32(map, mmaps[rank][i]);
		}
		for (uint32_t k = first_inst[rank]; k < first_inst[rank + 1]; k++) {
			put_u32(map, local_inst[k]);
			put_u32(map, u->n_metrics + k);
		}
		free(mmaps[rank]);
	}
	free(mmaps);
	free(first_inst);
	free(n_metrics_of);
	free(local_inst);
	/* Names, units and descriptions point into the blobs too. */
	vt_strtab_free(&mkeys);
	/* Region names and files live in the blobs; the keys table is no longer needed. */
	vt_strtab_free(&keys);
	return 0;
}

static void write_global(OTF2_GlobalDefWriter *gw, struct unified *u)
{
	struct vt_strtab st = { .w = gw };
	struct vt_strtab hosts = { 0 };

	OTF2_GlobalDefWriter_WriteClockProperties(gw, u->resolution, u->first,
						  u->last > u->first ? u->last - u->first : 0,
						  u->realtime);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, vt_strtab_ref(&st, "machine"),
						 vt_strtab_ref(&st, "machine"),
						 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	uint32_t *node_of = calloc(u->size ? u->size : 1, sizeof(*node_of));
	for (uint32_t rank = 0; rank < u->size; rank++) {
		uint32_t before = hosts.n;
		uint32_t node = vt_strtab_ref(&hosts, u->host[rank]) + 1;
		if (node_of)
			node_of[rank] = node;
		if (hosts.n != before)
			OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, node,
								 vt_strtab_ref(&st, u->host[rank]),
								 vt_strtab_ref(&st, "node"), 0);
		char name[64];
		snprintf(name, sizeof(name), "MPI Rank %u", rank);
		OTF2_GlobalDefWriter_WriteLocationGroup(gw, rank, vt_strtab_ref(&st, name),
							OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
							OTF2_UNDEFINED_LOCATION_GROUP);
	}
	for (size_t i = 0; i < u->n_locs; i++)
		OTF2_GlobalDefWriter_WriteLocation(gw, u->locs[i].ref,
						   vt_strtab_ref(&st, u->locs[i].name),
						   OTF2_LOCATION_TYPE_CPU_THREAD, u->locs[i].events,
						   u->locs[i].rank);
	/* Plugin metrics: classes, then per instance its METRIC location (in its rank's
	 * location group) and the MetricInstance with its scope. */
	for (uint32_t id = 0; id < u->n_metrics; id++)
		vt_otf2_write_metric(gw, &st, id, &u->metrics[id]);
	for (uint32_t k = 0; k < u->n_insts; k++) {
		const struct ginst *g = &u->insts[k];
		OTF2_GlobalDefWriter_WriteLocation(gw, g->recorder, vt_strtab_ref(&st, g->name),
						   OTF2_LOCATION_TYPE_METRIC, g->events, g->rank);
		uint64_t scope = 0; /* the run: the root of the system tree */
		if (g->scope == VT_SCOPE_LOCATION)
			scope = g->owner;
		else if (g->scope == VT_SCOPE_PROCESS)
			scope = g->rank;
		else if (g->scope == VT_SCOPE_HOST)
			scope = node_of ? node_of[g->rank] : 0;
		OTF2_GlobalDefWriter_WriteMetricInstance(gw, u->n_metrics + k, g->metric, g->recorder,
							 vt_otf2_metric_scope((int)g->scope), scope);
	}
	free(node_of);
	for (uint32_t id = 0; id < u->n_regions; id++) {
		const struct gregion *r = &u->regions[id];
		OTF2_StringRef name = vt_strtab_ref(&st, r->name);
		OTF2_GlobalDefWriter_WriteRegion(gw, id, name, name, OTF2_UNDEFINED_STRING,
						 (OTF2_RegionRole)r->role,
						 (OTF2_Paradigm)r->paradigm, OTF2_REGION_FLAG_NONE,
						 r->file[0] ? vt_strtab_ref(&st, r->file)
							    : OTF2_UNDEFINED_STRING,
						 r->line, r->line);
	}

	/*
	 * Groups. OTF2 wants one COMM_LOCATIONS group per paradigm: for MPI every rank (its
	 * master location is location rank), for threads every location; each communicator
	 * is then a COMM_GROUP of positions in its paradigm's group.
	 */
	uint64_t *ids = calloc(u->size + u->n_locs + 1, sizeof(*ids));
	if (!ids)
		goto out;
	OTF2_GroupRef group = 0;
	const OTF2_GroupRef mpi_locations = group++;
	for (uint32_t i = 0; i < u->size; i++)
		ids[i] = i;
	OTF2_GlobalDefWriter_WriteGroup(gw, mpi_locations, vt_strtab_ref(&st, "MPI ranks"),
					OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, u->size, ids);
	OTF2_GroupRef thread_locations = OTF2_UNDEFINED_GROUP;
	for (uint32_t c = 0; c < u->n_comms; c++) {
		if (u->comms[c].thread_rank == UINT32_MAX || thread_locations != OTF2_UNDEFINED_GROUP)
			continue;
		thread_locations = group++;
		for (size_t i = 0; i < u->n_locs; i++)
			ids[i] = u->locs[i].ref;
		OTF2_GlobalDefWriter_WriteGroup(gw, thread_locations, vt_strtab_ref(&st, "Threads"),
						OTF2_GROUP_TYPE_COMM_LOCATIONS,
						OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE,
						(uint32_t)u->n_locs, ids);
	}
	for (uint32_t c = 0; c < u->n_comms; c++) {
		const struct gcomm *g = &u->comms[c];
		char name[64];
		OTF2_GroupRef members = group++;
		uint32_t n = 0;
		if (g->thread_rank != UINT32_MAX) {
			/* A rank's thread team: the positions of its locations among all. */
			for (size_t i = 0; i < u->n_locs; i++)
				if (u->locs[i].rank == g->thread_rank)
					ids[n++] = i;
			snprintf(name, sizeof(name), "Threads of rank %u", g->thread_rank);
			OTF2_GlobalDefWriter_WriteGroup(gw, members, vt_strtab_ref(&st, name),
							OTF2_GROUP_TYPE_COMM_GROUP,
							OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE,
							n, ids);
		} else if (g->key == VT_MPI_KEY_SELF) {
			snprintf(name, sizeof(name), "MPI_COMM_SELF");
			OTF2_GlobalDefWriter_WriteGroup(gw, members, vt_strtab_ref(&st, ""),
							OTF2_GROUP_TYPE_COMM_SELF,
							OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0,
							ids);
		} else {
			for (uint32_t i = 0; i < g->size; i++)
				ids[n++] = g->members ? g->members[i] : 0;
			if (g->key == VT_MPI_KEY_WORLD)
				snprintf(name, sizeof(name), "MPI_COMM_WORLD");
			else
				snprintf(name, sizeof(name), "MPI comm %u", c);
			OTF2_GlobalDefWriter_WriteGroup(gw, members, vt_strtab_ref(&st, ""),
							OTF2_GROUP_TYPE_COMM_GROUP,
							OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n,
							ids);
		}
		OTF2_GlobalDefWriter_WriteComm(gw, c, vt_strtab_ref(&st, name), members,
					       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	}
	free(ids);
out:
	vt_strtab_free(&st);
	vt_strtab_free(&hosts);
}

/* This rank's locations get the mapping tables and the clock offsets. */
static void write_local(OTF2_Archive *archive, struct vt_loc *locs, const char *map, size_t n)
{
	struct rd r = { map, map + n, 0 };
	OTF2_IdMap *regions = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 64);
	OTF2_IdMap *comms = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 16);
	OTF2_IdMap *metrics = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 16);
	for (uint32_t i = 0, k = get_u32(&r); i < k && !r.bad; i++) {
		uint32_t local = get_u32(&r), global = get_u32(&r);
		OTF2_IdMap_AddIdPair(regions, local, global);
	}
	for (uint32_t i = 0, k = get_u32(&r); i < k && !r.bad; i++) {
		uint32_t local = get_u32(&r), global = get_u32(&r);
		OTF2_IdMap_AddIdPair(comms, local, global);
	}
	/* An empty id map does not read back: without metrics there is no table. */
	uint32_t n_metric_pairs = get_u32(&r);
	for (uint32_t i = 0; i < n_metric_pairs && !r.bad; i++) {
		uint32_t local = get_u32(&r), global = get_u32(&r);
		OTF2_IdMap_AddIdPair(metrics, local, global);
	}
	int n_offsets;
	const struct vt_otf2_clock_offset *off = vt_otf2_clock_offsets(&n_offsets);

	uint32_t n_inst;
	const struct vt_plugin_def_instance *in = vt_plugin_def_instances(&n_inst);
	OTF2_Archive_OpenDefFiles(archive);
	/* Every thread location, then every METRIC location of plugin counters. */
	struct vt_loc *l = locs;
	for (uint32_t k = 0; l || k < n_inst;) {
		uint64_t ref = l ? l->ref : in[k].recorder;
		if (l)
			l = l->next;
		else
			k++;
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, ref);
		if (!dw)
			continue;
		for (int i = 0; i < n_offsets; i++)
			OTF2_DefWriter_WriteClockOffset(dw, off[i].t, off[i].offset,
							off[i].stddev);
		OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, regions);
		OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, comms);
		if (n_metric_pairs && !r.bad)
			OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_METRIC, metrics);
		OTF2_Archive_CloseDefWriter(archive, dw);
	}
	OTF2_Archive_CloseDefFiles(archive);
	OTF2_IdMap_Free(regions);
	OTF2_IdMap_Free(comms);
	OTF2_IdMap_Free(metrics);
}

int vt_otf2_close_mpi(struct vt_loc *locs, uint64_t end_ts, const struct vt_mpi_ops *ops)
{
	OTF2_Archive *archive = vt_otf2_archive();
	struct buf mine = { 0 };
	struct unified u = { 0 };
	size_t *sizes = NULL, n_map = 0;
	uint64_t events = 0;
	int rc = 0;

	(void)end_ts;
	OTF2_Archive_CloseEvtFiles(archive);
	for (struct vt_loc *l = locs; l; l = l->next)
		events += l->n_events;
	uint32_t n_inst;
	const struct vt_plugin_def_instance *in = vt_plugin_def_instances(&n_inst);
	for (uint32_t k = 0; k < n_inst; k++)
		events += in[k].events;
	serialize(&mine, ops, locs);
	char *all = ops->gather(mine.p, mine.failed ? 0 : mine.n, &sizes);

	void **maps = NULL;
	size_t *map_sizes = NULL;
	if (ops->rank == 0) {
		maps = calloc((size_t)ops->size, sizeof(*maps));
		map_sizes = calloc((size_t)ops->size, sizeof(*map_sizes));
		if (!all || !maps || !map_sizes || merge(&u, all, sizes, (uint32_t)ops->size) < 0)
			rc = -1;
		for (int i = 0; i < ops->size && maps && map_sizes && u.maps; i++) {
			maps[i] = u.maps[i].p;
			map_sizes[i] = u.maps[i].failed ? 0 : u.maps[i].n;
		}
	}
	char *map = ops->scatter(maps, map_sizes, &n_map);
	write_local(archive, locs, map, n_map);

	if (ops->rank == 0) {
		OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(archive);
		if (gw && rc == 0) {
			write_global(gw, &u);
			OTF2_Archive_CloseGlobalDefWriter(archive, gw);
		} else {
			rc = -1;
		}
	}
	/* Every rank's total, for rank 0's one line about the trace. */
	uint64_t *counts = ops->gather(&events, sizeof(events), NULL);
	OTF2_ErrorCode err = OTF2_Archive_Close(archive);
	vt_otf2_closed();
	if (ops->rank == 0) {
		uint64_t total = 0;
		for (int i = 0; counts && i < ops->size; i++)
			total += counts[i];
		if (rc < 0 || err != OTF2_SUCCESS)
			vt_error("writing the trace %s failed (%s); it may be incomplete",
				 vt_otf2_anchor(), OTF2_Error_GetDescription(err));
		else
			vt_notice("trace written to %s (%lu events, %zu locations)",
				  vt_otf2_anchor(), (unsigned long)total,
				  u.n_locs + (size_t)u.n_insts);
	}
	free(counts);
	free(map);
	free(maps);
	free(map_sizes);
	for (uint32_t i = 0; i < u.size && u.maps; i++)
		free(u.maps[i].p);
	free(u.maps);
	for (uint32_t i = 0; i < u.n_comms; i++)
		free(u.comms[i].members);
	free(u.comms);
	free(u.metrics);
	free(u.insts);
	free(u.regions);
	free(u.locs);
	free(u.host);
	free(all);
	free(sizes);
	free(mine.p);
	return rc;
}
