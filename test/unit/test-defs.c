/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The definitions model and the unification: random definitions of every kind encode and
 * decode to the same values; a damaged stream is refused; one process unifies to itself
 * (duplicates merged, ids mapped); three processes on two hosts unify to exact global ids,
 * maps, communicator members, thread teams and metric instances.
 */
#include "base/vt_log.h"
#include "defs/vt_defs.h"
#include "defs/vt_unify.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char strings[16384][24];
static size_t n_strings;
static const char *rand_str(void)
{
	char *s = strings[n_strings++ % 16384];
	size_t n = next() % 20;
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(' ' + next() % 94);
	s[n] = '\0';
	return s;
}

static void random_def(enum vt_def_kind k, union vt_def *d)
{
	memset(d, 0, sizeof(*d));
	switch (k) {
	case VT_DEF_PROCESS:
		d->process = (struct vt_def_process){(uint32_t)next(), (uint32_t)next(), rand_str(),
						     next(),	       next(),		 next(),
						     next(),	       (uint32_t)next()};
		break;
	case VT_DEF_LOCATION:
		d->location = (struct vt_def_location){next(), rand_str(), next()};
		break;
	case VT_DEF_REGION:
		d->region =
		    (struct vt_def_region){(uint32_t)next(), rand_str(),       rand_str(),
					   (uint32_t)next(), (uint32_t)next(), (uint32_t)next()};
		break;
	case VT_DEF_COMM:
		d->comm = (struct vt_def_comm){(uint32_t)next(), next(), (uint32_t)next(),
					       (uint32_t)next(), rand_str()};
		break;
	case VT_DEF_METRIC:
		d->metric = (struct vt_def_metric){(uint32_t)next(),
						   rand_str(),
						   rand_str(),
						   rand_str(),
						   (uint32_t)next(),
						   (uint8_t)next(),
						   (uint8_t)next(),
						   (uint8_t)next(),
						   (uint8_t)next(),
						   (int64_t)next(),
						   rand_str(),
						   0,
						   NULL};
		break;
	case VT_DEF_INSTANCE:
		d->instance =
		    (struct vt_def_instance){(uint32_t)next(), (uint32_t)next(), next(), rand_str(),
					     next(),	       (uint32_t)next(), next()};
		break;
	case VT_DEF_MARKER:
		d->marker = (struct vt_def_marker){next(), next(), rand_str(), rand_str(),
						   (uint32_t)next()};
		break;
	case VT_DEF_PROPERTY:
		d->property = (struct vt_def_property){rand_str(), rand_str()};
		break;
	case VT_DEF_CALLCTX:
		d->callctx = (struct vt_def_callctx){
		    (uint32_t)next(), (uint32_t)next(), rand_str(), rand_str(),
		    (uint32_t)next(), (uint32_t)next(), rand_str(), (uint32_t)next()};
		break;
	case VT_DEF_IGEN:
		d->igen =
		    (struct vt_def_igen){(uint32_t)next(), rand_str(), (uint32_t)next(), next()};
		break;
	case VT_DEF_RMAWIN:
		d->rmawin =
		    (struct vt_def_rmawin){(uint32_t)next(), next(), (uint32_t)next(), rand_str()};
		break;
	case VT_DEF_GROUP:
		d->group = (struct vt_def_group){(uint32_t)next(), rand_str()};
		break;
	case VT_DEF_IOHANDLE:
		d->iohandle =
		    (struct vt_def_iohandle){(uint32_t)next(), next(),	   (uint32_t)next(),
					     (uint32_t)next(), rand_str(), (uint32_t)next()};
		break;
	case VT_DEF_COMMUSE:
		d->commuse = (struct vt_def_commuse){next(), (uint32_t)next()};
		break;
	case VT_DEF_TEAM:
		d->team = (struct vt_def_team){(uint32_t)next(), "12,4294967296,-,7"};
		break;
	case VT_DEF_SAME:
		d->same = (struct vt_def_same){(uint32_t)next(), (uint32_t)next(), (uint32_t)next(),
					       (uint32_t)next()};
		break;
	default:
		break;
	}
}

#define S(a, b) (strcmp((a), (b)) == 0)

static bool same(enum vt_def_kind k, const union vt_def *a, const union vt_def *b)
{
	switch (k) {
	case VT_DEF_PROCESS:
		return a->process.rank == b->process.rank && a->process.pid == b->process.pid &&
		       S(a->process.host, b->process.host) &&
		       a->process.resolution == b->process.resolution &&
		       a->process.realtime == b->process.realtime &&
		       a->process.first == b->process.first && a->process.last == b->process.last &&
		       a->process.thread_events == b->process.thread_events;
	case VT_DEF_LOCATION:
		return a->location.ref == b->location.ref &&
		       S(a->location.name, b->location.name) &&
		       a->location.events == b->location.events;
	case VT_DEF_REGION:
		return a->region.id == b->region.id && S(a->region.name, b->region.name) &&
		       S(a->region.file, b->region.file) && a->region.line == b->region.line &&
		       a->region.paradigm == b->region.paradigm && a->region.role == b->region.role;
	case VT_DEF_COMM:
		return a->comm.id == b->comm.id && a->comm.key == b->comm.key &&
		       a->comm.my_rank == b->comm.my_rank && a->comm.size == b->comm.size &&
		       strcmp(a->comm.name, b->comm.name) == 0;
	case VT_DEF_METRIC:
		return a->metric.id == b->metric.id && S(a->metric.name, b->metric.name) &&
		       S(a->metric.unit, b->metric.unit) &&
		       S(a->metric.description, b->metric.description) &&
		       a->metric.mode == b->metric.mode && a->metric.type == b->metric.type &&
		       a->metric.base == b->metric.base &&
		       a->metric.occurrence == b->metric.occurrence &&
		       a->metric.recorder_kind == b->metric.recorder_kind &&
		       a->metric.exponent == b->metric.exponent &&
		       S(a->metric.members, b->metric.members);
	case VT_DEF_INSTANCE:
		return a->instance.id == b->instance.id &&
		       a->instance.metric == b->instance.metric &&
		       a->instance.recorder == b->instance.recorder &&
		       S(a->instance.recorder_name, b->instance.recorder_name) &&
		       a->instance.events == b->instance.events &&
		       a->instance.scope == b->instance.scope &&
		       a->instance.owner == b->instance.owner;
	case VT_DEF_MARKER:
		return a->marker.ts == b->marker.ts && a->marker.location == b->marker.location &&
		       S(a->marker.category, b->marker.category) &&
		       S(a->marker.text, b->marker.text) &&
		       a->marker.severity == b->marker.severity;
	case VT_DEF_PROPERTY:
		return S(a->property.name, b->property.name) &&
		       S(a->property.value, b->property.value);
	case VT_DEF_CALLCTX:
		return a->callctx.id == b->callctx.id && a->callctx.parent == b->callctx.parent &&
		       S(a->callctx.name, b->callctx.name) && S(a->callctx.file, b->callctx.file) &&
		       a->callctx.line == b->callctx.line &&
		       a->callctx.paradigm == b->callctx.paradigm &&
		       S(a->callctx.src_file, b->callctx.src_file) &&
		       a->callctx.src_line == b->callctx.src_line;
	case VT_DEF_IGEN:
		return a->igen.id == b->igen.id && S(a->igen.name, b->igen.name) &&
		       a->igen.mode == b->igen.mode && a->igen.period == b->igen.period;
	case VT_DEF_RMAWIN:
		return a->rmawin.id == b->rmawin.id && a->rmawin.key == b->rmawin.key &&
		       a->rmawin.comm == b->rmawin.comm && S(a->rmawin.name, b->rmawin.name);
	case VT_DEF_GROUP:
		return a->group.id == b->group.id && S(a->group.members, b->group.members);
	case VT_DEF_IOHANDLE:
		return a->iohandle.id == b->iohandle.id && a->iohandle.key == b->iohandle.key &&
		       a->iohandle.comm == b->iohandle.comm &&
		       a->iohandle.paradigm == b->iohandle.paradigm &&
		       S(a->iohandle.file, b->iohandle.file) &&
		       a->iohandle.parent == b->iohandle.parent;
	case VT_DEF_COMMUSE:
		return a->commuse.location == b->commuse.location &&
		       a->commuse.comm == b->commuse.comm;
	case VT_DEF_TEAM:
		return a->team.id == b->team.id && S(a->team.members, b->team.members);
	case VT_DEF_SAME:
		return a->same.kind == b->same.kind && a->same.id == b->same.id &&
		       a->same.ordinal == b->same.ordinal && a->same.count == b->same.count;
	default:
		return false;
	}
}

static void round_trip(void)
{
	enum { N = 3000 };
	static union vt_def want[N];
	static enum vt_def_kind kind[N];
	struct vt_defs_buf b = {0};
	for (int i = 0; i < N; i++) {
		kind[i] = (enum vt_def_kind)(1 + next() % (VT_DEF_KIND_MAX - 1));
		random_def(kind[i], &want[i]);
		vt_defs_put(&b, kind[i], &want[i]);
	}
	CHECK(!b.failed);
	struct vt_defs_reader r = {b.p, b.p + b.n, false};
	int i = 0, equal = 0, rc;
	enum vt_def_kind k;
	union vt_def got;
	while ((rc = vt_defs_next(&r, &k, &got)) > 0 && i < N) {
		equal += k == kind[i] && same(k, &got, &want[i]);
		i++;
	}
	CHECK(rc == 0 && i == N && equal == N);
	/* Every kind was there. */
	int seen[VT_DEF_KIND_MAX] = {0};
	for (int j = 0; j < N; j++)
		seen[kind[j]]++;
	for (int j = 1; j < VT_DEF_KIND_MAX; j++)
		CHECK(seen[j] > 0);

	/* Damaged: cut in the middle of a record, and an unknown kind. */
	struct vt_defs_reader cut = {b.p, b.p + 7, false};
	CHECK(vt_defs_next(&cut, &k, &got) == -1);
	char bad = 99;
	struct vt_defs_reader unknown = {&bad, &bad + 1, false};
	CHECK(vt_defs_next(&unknown, &k, &got) == -1);
	free(b.p);
}

/* Builders of a process's stream. */
static void process(struct vt_defs_buf *b, uint32_t rank, uint32_t pid, const char *host,
		    uint64_t first, uint64_t last)
{
	union vt_def d = {.process = {rank, pid, host, 1000000000, 42, first, last, 0}};
	vt_defs_put(b, VT_DEF_PROCESS, &d);
}

static void location(struct vt_defs_buf *b, uint64_t ref, const char *name, uint64_t events)
{
	union vt_def d = {.location = {ref, name, events}};
	vt_defs_put(b, VT_DEF_LOCATION, &d);
}

static void region(struct vt_defs_buf *b, uint32_t id, const char *name, const char *file,
		   uint32_t line)
{
	union vt_def d = {.region = {id, name, file, line, 3, 1}};
	vt_defs_put(b, VT_DEF_REGION, &d);
}

static void named_comm(struct vt_defs_buf *b, uint32_t id, uint64_t key, uint32_t my_rank,
		       uint32_t size, const char *name)
{
	union vt_def d = {.comm = {id, key, my_rank, size, name}};
	vt_defs_put(b, VT_DEF_COMM, &d);
}

static void comm(struct vt_defs_buf *b, uint32_t id, uint64_t key, uint32_t my_rank, uint32_t size)
{
	named_comm(b, id, key, my_rank, size, "");
}

static void rmawin(struct vt_defs_buf *b, uint32_t id, uint64_t key, uint32_t comm_id,
		   const char *name)
{
	union vt_def d = {.rmawin = {id, key, comm_id, name}};
	vt_defs_put(b, VT_DEF_RMAWIN, &d);
}

static void group(struct vt_defs_buf *b, uint32_t id, const char *members)
{
	union vt_def d = {.group = {id, members}};
	vt_defs_put(b, VT_DEF_GROUP, &d);
}

static void metric(struct vt_defs_buf *b, uint32_t id, const char *name)
{
	union vt_def d = {.metric = {id, name, "#", "", 0, 4, 0, 0, 1, 0, "", 0, NULL}};
	vt_defs_put(b, VT_DEF_METRIC, &d);
}

/* A class of several metrics (a thread's strict synchronous counters): its members by the
 * names of metric() definitions, as archive/vt_otf2_close.c names them. */
static void metric_group(struct vt_defs_buf *b, uint32_t id, const char *const *names, uint32_t n)
{
	char members[1024] = "";
	size_t at = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct vt_def_metric m = {0, names[i], "#", "", 0, 4, 0, 0, 1, 0, "", 0, NULL};
		at += (size_t)vt_def_metric_key(&m, members + at, sizeof(members) - at);
		members[at++] = VT_DEF_MEMBER_END;
		members[at] = '\0';
	}
	union vt_def d = {.metric = {id, "", "", "", 0, 4, 0, 0, 1, 0, members, 0, NULL}};
	vt_defs_put(b, VT_DEF_METRIC, &d);
}

static void instance(struct vt_defs_buf *b, uint32_t id, uint32_t metric_id, uint64_t recorder,
		     uint32_t scope)
{
	union vt_def d = {.instance = {id, metric_id, recorder, "c@Master thread", 5, scope, 0}};
	vt_defs_put(b, VT_DEF_INSTANCE, &d);
}

/* The pairs of a map as "local:global ..." */
static void fmt(char *out, size_t len, uint32_t n, const uint32_t *pairs)
{
	size_t at = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%u:%u", i ? " " : "", pairs[2 * i],
				       pairs[2 * i + 1]);
}

static void maps_of(const struct vt_unified *u, uint32_t rank, char *regions, char *comms,
		    char *metrics)
{
	struct vt_unify_maps m;
	CHECK(vt_unify_maps_read(u->maps[rank].p, u->maps[rank].n, &m) == 0);
	fmt(regions, 256, m.n_regions, m.regions);
	fmt(comms, 256, m.n_comms, m.comms);
	fmt(metrics, 256, m.n_metrics, m.metrics);
	vt_unify_maps_free(&m);
}

/* Two processes define the same counters in other orders and the same class of two of them
 * (in the order of its values), and one a class the other has not: a class is one global id
 * by its members' global metrics, whatever their local ids, and refers to them. */
static void unify_metric_groups(void)
{
	struct vt_defs_buf b[2] = {{0}};
	const char *ab[] = {"a", "b"}, *ba[] = {"b", "a"}, *abc[] = {"a", "b", "c"};
	process(&b[0], 0, 10, "A", 50, 500);
	location(&b[0], 0, "Master thread", 4);
	metric(&b[0], 0, "a");
	metric(&b[0], 1, "b");
	metric_group(&b[0], 2, ab, 2);

	process(&b[1], 1, 11, "A", 40, 450);
	location(&b[1], 1, "Master thread", 4);
	metric(&b[1], 0, "c");
	metric(&b[1], 1, "b");
	metric(&b[1], 2, "a");
	metric_group(&b[1], 3, abc, 3);
	metric_group(&b[1], 4, ab, 2);
	metric_group(&b[1], 5, ba, 2);

	size_t sizes[2] = {b[0].n, b[1].n};
	char *all = malloc(b[0].n + b[1].n);
	memcpy(all, b[0].p, b[0].n);
	memcpy(all + b[0].n, b[1].p, b[1].n);
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) == 0);
	/* a 0, b 1, {a,b} 2, c 3, {a,b,c} 4, {b,a} 5 */
	CHECK(u.n_metrics == 6);
	CHECK(S(u.metrics[0].name, "a") && S(u.metrics[1].name, "b") && S(u.metrics[3].name, "c"));
	CHECK(u.metrics[0].n_members == 0 && u.metrics[3].n_members == 0);
	CHECK(u.metrics[2].n_members == 2 && u.metrics[2].member_ids[0] == 0 &&
	      u.metrics[2].member_ids[1] == 1);
	CHECK(u.metrics[4].n_members == 3 && u.metrics[4].member_ids[0] == 0 &&
	      u.metrics[4].member_ids[1] == 1 && u.metrics[4].member_ids[2] == 3);
	CHECK(u.metrics[5].n_members == 2 && u.metrics[5].member_ids[0] == 1 &&
	      u.metrics[5].member_ids[1] == 0);
	char r[256], c[256], m[256];
	maps_of(&u, 0, r, c, m);
	CHECK(S(m, "0:0 1:1 2:2"));
	maps_of(&u, 1, r, c, m);
	CHECK(S(m, "0:3 1:1 2:0 3:4 4:2 5:5"));
	vt_unify_free(&u);
	free(all);
	free(b[0].p);
	free(b[1].p);
}

static void unify_one(void)
{
	struct vt_defs_buf b = {0};
	process(&b, 0, 4242, "nodeA", 100, 900);
	location(&b, 0, "Master thread", 10);
	location(&b, 1, "Thread 1", 6);
	region(&b, 0, "main", "a.c", 3);
	region(&b, 1, "work", "a.c", 9);
	region(&b, 2, "main", "a.c", 3); /* the same function twice: one global region */
	region(&b, 3, "unknown", "", 0);
	metric(&b, 0, "cycles");
	instance(&b, 1, 0, 0x4000000000000000ull, 3);
	size_t size = b.n;
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, b.p, &size, 1, false) == 0);
	CHECK(u.size == 1 && u.n_hosts == 1 && S(u.hosts[0], "nodeA") && u.procs[0].node == 1);
	CHECK(u.procs[0].pid == 4242 && u.first == 100 && u.last == 900 &&
	      u.resolution == 1000000000);
	CHECK(u.n_locs == 2 && u.locs[1].ref == 1 && S(u.locs[1].name, "Thread 1"));
	CHECK(u.n_regions == 3 && S(u.regions[2].name, "unknown") && S(u.regions[2].file, ""));
	/* Two threads: one thread team, mapped from the reserved local id. */
	CHECK(u.n_comms == 1 && u.comms[0].thread_rank == 0 && u.comms[0].size == 2);
	CHECK(u.n_metrics == 1 && u.n_insts == 1 && u.insts[0].metric == 0);
	char r[256], c[256], m[256];
	maps_of(&u, 0, r, c, m);
	CHECK(S(r, "0:0 1:1 2:0 3:2"));
	char want[64];
	snprintf(want, sizeof(want), "%u:0", VT_UNIFY_THREAD_COMM_LOCAL);
	CHECK(S(c, want));
	CHECK(S(m, "0:0 1:1")); /* the class, then the instance after every class */
	vt_unify_free(&u);
	free(b.p);
}

static void unify_three(void)
{
	/* Ranks 0 and 1 on host A, rank 2 on host B. Every rank has world (key 1) and self
	 * (key 2); ranks 0 and 2 share a split communicator (key 7); rank 1 has two threads. */
	struct vt_defs_buf b[3] = {{0}};
	process(&b[0], 0, 10, "A", 50, 500);
	location(&b[0], 0, "Master thread", 4);
	region(&b[0], 0, "main", "m.c", 1);
	region(&b[0], 1, "MPI_Send", "", 0);
	comm(&b[0], 0, 1, 0, 3);
	comm(&b[0], 1, 2, 0, 1);
	named_comm(&b[0], 2, 7, 0, 2, "pair");
	rmawin(&b[0], 0, 0x900, 2, "");
	rmawin(&b[0], 1, 0x901, 0, "world window");
	group(&b[0], 0, "2");
	metric(&b[0], 0, "power");
	instance(&b[0], 1, 0, 0x4000000000000000ull, 2); /* per host */

	process(&b[1], 1, 11, "A", 40, 450);
	location(&b[1], 1, "Master thread", 4);
	location(&b[1], (1ull << 32) | 1, "Thread 1", 2);
	region(&b[1], 0, "MPI_Send", "", 0);
	region(&b[1], 1, "main", "m.c", 1);
	region(&b[1], 2, "helper", "h.c", 5);
	comm(&b[1], 0, 1, 1, 3);
	comm(&b[1], 1, 2, 0, 1);
	rmawin(&b[1], 0, 0x901, 0, "");

	process(&b[2], 2, 12, "B", 60, 700);
	location(&b[2], 2, "Master thread", 4);
	region(&b[2], 0, "main", "m.c", 1);
	comm(&b[2], 0, 1, 2, 3);
	comm(&b[2], 1, 2, 0, 1);
	named_comm(&b[2], 2, 7, 1, 2, "other name");
	/* the same windows in another order, the groups too, and one more group */
	rmawin(&b[2], 0, 0x901, 0, "");
	rmawin(&b[2], 1, 0x900, 2, "split window");
	group(&b[2], 0, "0,1");
	group(&b[2], 1, "2");
	metric(&b[2], 0, "energy");
	metric(&b[2], 1, "power");
	instance(&b[2], 2, 1, 0x4000000000000002ull, 2);

	size_t sizes[3];
	char *all = malloc(b[0].n + b[1].n + b[2].n);
	size_t at = 0;
	for (int i = 0; i < 3; i++) {
		memcpy(all + at, b[i].p, b[i].n);
		at += sizes[i] = b[i].n;
	}
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 3, true) == 0);
	CHECK(u.n_hosts == 2 && S(u.hosts[0], "A") && S(u.hosts[1], "B"));
	CHECK(u.procs[0].node == 1 && u.procs[1].node == 1 && u.procs[2].node == 2);
	CHECK(u.first == 40 && u.last == 700);
	CHECK(u.n_locs == 4 && u.locs[2].rank == 1 && u.locs[3].rank == 2);
	CHECK(u.n_regions == 3 && S(u.regions[0].name, "main") &&
	      S(u.regions[1].name, "MPI_Send") && S(u.regions[2].name, "helper"));
	/* world 0, self 1, split 2, then rank 1's thread team 3 */
	CHECK(u.n_comms == 4);
	CHECK(u.comms[0].key == 1 && u.comms[0].size == 3 && u.comms[0].members[0] == 0 &&
	      u.comms[0].members[1] == 1 && u.comms[0].members[2] == 2);
	CHECK(u.comms[2].key == 7 && u.comms[2].members[0] == 0 && u.comms[2].members[1] == 2);
	/* names: the lowest member's wins over a later one; unnamed stays NULL */
	CHECK(u.comms[2].name && strcmp(u.comms[2].name, "pair") == 0);
	CHECK(u.comms[0].name == NULL);
	CHECK(u.comms[3].thread_rank == 1 && u.comms[3].size == 2);
	/* windows by key, on their global communicators, named by whoever named them */
	CHECK(u.n_wins == 2 && u.wins[0].key == 0x900 && u.wins[0].comm == 2 &&
	      S(u.wins[0].name, "split window"));
	CHECK(u.wins[1].key == 0x901 && u.wins[1].comm == 0 && S(u.wins[1].name, "world window"));
	CHECK(u.n_groups == 2 && S(u.groups[0], "2") && S(u.groups[1], "0,1"));
	/* groups follow MPI's locations, the threads and the 4 communicators' groups: 6, 7 */
	CHECK(vt_unify_group_base(&u) == 6);
	for (uint32_t rank = 0; rank < 3; rank++) {
		struct vt_unify_maps mp;
		char wins[256], groups[256];
		CHECK(vt_unify_maps_read(u.maps[rank].p, u.maps[rank].n, &mp) == 0);
		fmt(wins, sizeof(wins), mp.n_wins, mp.wins);
		fmt(groups, sizeof(groups), mp.n_groups, mp.groups);
		const char *want_w[3] = {"0:0 1:1", "0:1", "0:1 1:0"};
		const char *want_g[3] = {"0:6", "", "0:7 1:6"};
		CHECK(S(wins, want_w[rank]) && S(groups, want_g[rank]));
		vt_unify_maps_free(&mp);
	}
	/* Metrics: power (ranks 0 and 2), energy; instances after both classes. */
	CHECK(u.n_metrics == 2 && S(u.metrics[0].name, "power") && S(u.metrics[1].name, "energy"));
	CHECK(u.n_insts == 2 && u.insts[0].metric == 0 && u.insts[1].metric == 0 &&
	      u.insts[1].rank == 2);
	char r[256], c[256], m[256], want[64];
	maps_of(&u, 0, r, c, m);
	CHECK(S(r, "0:0 1:1") && S(c, "0:0 1:1 2:2") && S(m, "0:0 1:2"));
	maps_of(&u, 1, r, c, m);
	snprintf(want, sizeof(want), "0:0 1:1 %u:3", VT_UNIFY_THREAD_COMM_LOCAL);
	CHECK(S(r, "0:1 1:0 2:2") && S(c, want) && S(m, ""));
	maps_of(&u, 2, r, c, m);
	CHECK(S(r, "0:0") && S(c, "0:0 1:1 2:2") && S(m, "0:1 1:0 2:3"));
	vt_unify_free(&u);

	/* A damaged stream is refused with one line, not half merged. */
	sizes[1] -= 3;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) < 0);
	vt_unify_free(&u);
	free(all);
	for (int i = 0; i < 3; i++)
		free(b[i].p);
}

static void callctx(struct vt_defs_buf *b, uint32_t id, uint32_t parent, const char *name,
		    uint32_t paradigm, const char *src, uint32_t line)
{
	union vt_def d = {.callctx = {id, parent, name, "m.c", 1, paradigm, src, line}};
	vt_defs_put(b, VT_DEF_CALLCTX, &d);
}

static void unify_samples(void)
{
	/* Two processes sample the same paths in other orders; one has an instrumented main
	 * (paradigm 3, role 1 as region() writes), which its sampled main must be. */
	struct vt_defs_buf b[2] = {{0}};
	process(&b[0], 0, 10, "A", 1, 9);
	region(&b[0], 0, "main", "m.c", 1);
	callctx(&b[0], 0, UINT32_MAX, "main", 3, "m.c", 4);
	callctx(&b[0], 1, 0, "work", 21, "m.c", 8);
	callctx(&b[0], 2, 0, "idle", 21, "", 0);
	union vt_def g = {.igen = {0, "cpu", 0, 1000000}};
	vt_defs_put(&b[0], VT_DEF_IGEN, &g);

	process(&b[1], 1, 11, "A", 2, 8);
	callctx(&b[1], 0, UINT32_MAX, "main", 3, "m.c", 4);
	callctx(&b[1], 1, 0, "idle", 21, "", 0);
	callctx(&b[1], 2, 0, "work", 21, "m.c", 9); /* another line: another context */
	callctx(&b[1], 3, 2, "leaf", 21, "m.c", 2);
	vt_defs_put(&b[1], VT_DEF_IGEN, &g);

	size_t sizes[2] = {b[0].n, b[1].n};
	char *all = malloc(b[0].n + b[1].n);
	memcpy(all, b[0].p, b[0].n);
	memcpy(all + b[0].n, b[1].p, b[1].n);
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) == 0);
	/* Regions: main (shared with the instrumented one), work, idle, leaf. */
	CHECK(u.n_regions == 4 && S(u.regions[0].name, "main") && u.regions[0].paradigm == 3 &&
	      S(u.regions[1].name, "work") && u.regions[1].paradigm == 21 &&
	      S(u.regions[3].name, "leaf"));
	/* Source lines m.c:4, m.c:8, m.c:9, m.c:2; idle has none. */
	CHECK(u.n_scls == 4 && u.scls[2].line == 9);
	/* Contexts: main, main/work@8, main/idle, main/work@9, main/work@9/leaf. */
	CHECK(u.n_ctxs == 5);
	CHECK(u.ctxs[0].parent == UINT32_MAX && u.ctxs[0].region == 0 && u.ctxs[0].scl == 0);
	CHECK(u.ctxs[2].region == 2 && u.ctxs[2].scl == UINT32_MAX && u.ctxs[2].parent == 0);
	CHECK(u.ctxs[3].region == 1 && u.ctxs[3].scl == 2 && u.ctxs[4].parent == 3);
	CHECK(u.n_igens == 1 && S(u.igens[0].name, "cpu") && u.igens[0].period == 1000000);
	struct vt_unify_maps m;
	char ctxs[256], igens[256];
	CHECK(vt_unify_maps_read(u.maps[1].p, u.maps[1].n, &m) == 0);
	fmt(ctxs, sizeof(ctxs), m.n_ctxs, m.ctxs);
	fmt(igens, sizeof(igens), m.n_igens, m.igens);
	CHECK(S(ctxs, "0:0 1:2 2:3 3:4") && S(igens, "0:0"));
	vt_unify_maps_free(&m);
	vt_unify_free(&u);

	/* A child before its parent is a damaged stream. */
	struct vt_defs_buf bad = {0};
	process(&bad, 0, 10, "A", 1, 9);
	callctx(&bad, 0, 1, "orphan", 21, "", 0);
	CHECK(vt_unify_merge(&u, bad.p, &bad.n, 1, false) < 0);
	vt_unify_free(&u);
	free(bad.p);
	free(all);
	free(b[0].p);
	free(b[1].p);
}

static void commuse(struct vt_defs_buf *b, uint64_t loc, uint32_t comm_id)
{
	union vt_def d = {.commuse = {loc, comm_id}};
	vt_defs_put(b, VT_DEF_COMMUSE, &d);
}

/* Threads that make MPI calls: the MPI locations list them after the masters, and each
 * communicator that threads use gets one definition per lane, whose members are rank r's
 * k-th thread on it (the master where r has fewer); each thread's events are mapped to its
 * lane. */
static void unify_thread_comms(void)
{
	struct vt_defs_buf b[2] = {{0}};
	const uint64_t T1 = 1ull << 32, T2 = 2ull << 32;
	for (uint32_t r = 0; r < 2; r++) {
		process(&b[r], r, 10 + r, "A", 1, 9);
		location(&b[r], r, "Master thread", 5);
		location(&b[r], T1 | r, "Thread 1", 5);
		location(&b[r], T2 | r, "Thread 2", 5);
		comm(&b[r], 0, 1 /* world */, r, 2);
		comm(&b[r], 1, 2 /* self */, 0, 1);
	}
	/* rank 0: local 2 = dup A, 3 = dup B; rank 1 defined them the other way round */
	comm(&b[0], 2, 100, 0, 2);
	comm(&b[0], 3, 200, 0, 2);
	comm(&b[1], 2, 200, 1, 2);
	comm(&b[1], 3, 100, 1, 2);
	/* A: Thread 1 of each rank; B: both threads of rank 0, Thread 2 of rank 1; self and
	 * an unknown local id are not lanes. */
	commuse(&b[0], T1 | 0, 2);
	commuse(&b[0], T1 | 0, 3);
	commuse(&b[0], T2 | 0, 3);
	commuse(&b[0], T2 | 0, 1);
	commuse(&b[1], T1 | 1, 3);
	commuse(&b[1], T2 | 1, 2);
	commuse(&b[1], T2 | 1, 77);
	size_t sizes[2] = {b[0].n, b[1].n};
	char *all = malloc(b[0].n + b[1].n);
	memcpy(all, b[0].p, b[0].n);
	memcpy(all + b[0].n, b[1].p, b[1].n);
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) == 0);
	/* comms: world 0, self 1, A 2, B 3, the two thread teams; lanes: A1 (6), B1 (7), B2 (8) */
	CHECK(u.n_comms == 6 && u.n_lanes == 3);
	CHECK(u.lanes[0].comm == 2 && u.lanes[0].lane == 1 && u.lanes[0].locs[0] == (T1 | 0) &&
	      u.lanes[0].locs[1] == (T1 | 1));
	CHECK(u.lanes[1].comm == 3 && u.lanes[1].lane == 1 && u.lanes[1].locs[0] == (T1 | 0) &&
	      u.lanes[1].locs[1] == (T2 | 1));
	CHECK(u.lanes[2].comm == 3 && u.lanes[2].lane == 2 && u.lanes[2].locs[0] == (T2 | 0) &&
	      u.lanes[2].locs[1] == UINT64_MAX);
	/* every thread that used a lane, in location order */
	CHECK(u.n_mpi_extra == 4 && u.mpi_extra[0] == (T1 | 0) && u.mpi_extra[1] == (T2 | 0) &&
	      u.mpi_extra[2] == (T1 | 1) && u.mpi_extra[3] == (T2 | 1));
	CHECK(vt_unify_group_base(&u) == 1 + 1 + 6 + 3);
	/* rank 1's threads: Thread 1 local 3 (A) -> A1, Thread 2 local 2 (B) -> B1 */
	struct vt_unify_maps m;
	CHECK(vt_unify_maps_read(u.maps[1].p, u.maps[1].n, &m) == 0);
	CHECK(m.n_thread_comms == 2);
	const uint32_t *q = m.thread_comms;
	CHECK(q[0] == 1 && q[1] == 1 && q[2] == 3 && q[3] == 6);
	CHECK(q[4] == 1 && q[5] == 2 && q[6] == 2 && q[7] == 7);
	vt_unify_maps_free(&m);
	CHECK(vt_unify_maps_read(u.maps[0].p, u.maps[0].n, &m) == 0 && m.n_thread_comms == 3);
	vt_unify_maps_free(&m);
	vt_unify_free(&u);
	/* Without MPI there are no lanes. */
	CHECK(vt_unify_merge(&u, b[0].p, &sizes[0], 1, false) == 0 && u.n_lanes == 0 &&
	      u.n_mpi_extra == 0);
	vt_unify_free(&u);
	free(all);
	free(b[0].p);
	free(b[1].p);
}

/* The id maps travel as runs of consecutive ids: a rank that defines N regions in the order
 * of the global ones has one run; holes and another order round-trip exactly, pair by pair,
 * whatever the runs; a damaged map does not read. */
static void unify_map_runs(void)
{
	enum { N = 1000, M = 300 };
	static char names[N][16];
	struct vt_defs_buf b[2] = {{0}};
	process(&b[0], 0, 10, "A", 1, 9);
	process(&b[1], 1, 11, "A", 1, 9);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "r%u", i);
		region(&b[0], i, names[i], "a.c", i);
	}
	/* rank 1: M regions of rank 0's, at random local ids (unique, with holes), named at
	 * random (some twice: two local ids, one global); the first six in two runs */
	uint32_t local[M], global[M];
	uint32_t fixed[6][2] = {{0, 7}, {1, 8}, {2, 9}, {5, 2}, {6, 3}, {4, 0}};
	for (uint32_t i = 0; i < M; i++) {
		local[i] = i < 6 ? fixed[i][0] : 10 + (uint32_t)(i * 7 + next() % 5);
		global[i] = i < 6 ? fixed[i][1] : (uint32_t)(next() % N);
		region(&b[1], local[i], names[global[i]], "a.c", global[i]);
	}
	size_t sizes[2] = {b[0].n, b[1].n};
	char *all = malloc(b[0].n + b[1].n);
	memcpy(all, b[0].p, b[0].n);
	memcpy(all + b[0].n, b[1].p, b[1].n);
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) == 0 && u.n_regions == N);
	/* rank 0's region map: one run (0, 0, N) after its count */
	uint32_t head[4];
	CHECK(u.maps[0].n >= sizeof(head));
	memcpy(head, u.maps[0].p, sizeof(head));
	CHECK(head[0] == 1 && head[1] == 0 && head[2] == 0 && head[3] == N);
	struct vt_unify_maps m;
	CHECK(vt_unify_maps_read(u.maps[0].p, u.maps[0].n, &m) == 0 && m.n_regions == N);
	bool same = true;
	for (uint32_t i = 0; i < N; i++)
		same = same && m.regions[2 * i] == i && m.regions[2 * i + 1] == i;
	CHECK(same);
	vt_unify_maps_free(&m);
	/* rank 1's: every pair as defined, in order; (0 7)(1 8)(2 9) and (5 2)(6 3) one run
	 * each, (4 0) a third */
	uint32_t runs[10];
	memcpy(runs, u.maps[1].p, sizeof(runs));
	CHECK(runs[0] >= 3 && runs[0] < M && runs[1] == 0 && runs[2] == 7 && runs[3] == 3 &&
	      runs[4] == 5 && runs[5] == 2 && runs[6] == 2 && runs[7] == 4 && runs[8] == 0 &&
	      runs[9] == 1);
	CHECK(vt_unify_maps_read(u.maps[1].p, u.maps[1].n, &m) == 0 && m.n_regions == M);
	same = true;
	for (uint32_t i = 0; i < M; i++)
		same = same && m.regions[2 * i] == local[i] && m.regions[2 * i + 1] == global[i];
	CHECK(same);
	vt_unify_maps_free(&m);
	/* damaged: cut short, and a run of length 0 */
	CHECK(vt_unify_maps_read(u.maps[1].p, u.maps[1].n - 1, &m) < 0 && !m.mem);
	uint32_t zero = 0;
	memcpy(u.maps[1].p + 3 * sizeof(uint32_t), &zero, sizeof(zero));
	CHECK(vt_unify_maps_read(u.maps[1].p, u.maps[1].n, &m) < 0 && !m.mem);
	vt_unify_free(&u);
	free(all);
	free(b[0].p);
	free(b[1].p);
}

int main(void)
{
	vt_log_level = -1; /* the damaged stream's error line */
	round_trip();
	unify_one();
	unify_three();
	unify_metric_groups();
	unify_samples();
	unify_thread_comms();
	unify_map_runs();
	return unit_done();
}
