/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric service (see vt_metric.h and docs/dev/plugin-host.md). */
#include "archive/vt_otf2.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_loctab.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "base/vt_subsystem.h"
#include "defs/vt_topo.h"
#include "metrics/vt_metric_mem.h"
#include "metrics/vt_metric_papi.h"
#include "metrics/vt_metric_plugins.h"
#include "metrics/vt_metric_rusage.h"
#include "record/vt_thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Synchronous counters per thread beyond this are left out at init (leave_out_oversized), as
 * are those whose values would not fit half a buffer with their event. */
#define MAX_SYNC 64
_Static_assert(MAX_SYNC <= VT_OTF2_GROUP_MAX, "a thread's strict counters fit one class");

/*
 * Metrics the program defines while it runs (user counters, perfstubs counters) follow the
 * sources' in the same table, which has room for VT_METRIC_DYNAMIC_MAX of them from the
 * start: the writer reads the table while counters are defined, so it never moves.
 * Instances (asynchronous counters' METRIC locations) are numbered after that room.
 */
#define VT_METRIC_DYNAMIC_MAX 256

/* The service: its sources and definitions, the counters of each location. */
static struct {
	struct vt_metric_source *sources;
	uint32_t n_metrics; /* of the sources, numbered first */
	/* Per metric (by index): what the encoder and the definitions need. */
	struct vt_metric **metric_of;
	struct vt_otf2_metric *defs;
	bool active;
	uint32_t n_defined; /* sources' and the program's; under dyn_lock */
	pthread_mutex_t dyn_lock;
	/* The counters added on each location, by its index (NULL: none). */
	struct vt_loctab loc_counters;
	pthread_mutex_t lock;
	struct vt_async *asyncs, **asyncs_tail;
	uint32_t n_async;
	struct vt_plugin_loc *plocs;
	struct vt_otf2_instance *instances;
} svc = {
    .dyn_lock = PTHREAD_MUTEX_INITIALIZER,
    .loc_counters = VT_LOCTAB_INIT(struct vt_plugin_loc *),
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .asyncs_tail = &svc.asyncs,
};

static uint32_t inst_base(void)
{
	return svc.n_metrics + VT_METRIC_DYNAMIC_MAX;
}

/* One asynchronous counter where it was added: its own METRIC location. */
struct vt_async {
	pthread_mutex_t lock;
	struct vt_metric *m;
	int32_t id;
	uint32_t k; /* instance number: METRIC location k, metric id inst_base() + k */
	enum vt_def_scope scope;
	struct vt_loc *owner;
	char *name; /* COUNTER@OWNER */
	OTF2_EvtWriter *w;
	uint64_t ref;
	uint64_t last_ts, events, fetched_at;
	/* Values not yet written: the callback buffer, or batches that came before the archive
	 * existed (MPI, before MPI_Init). */
	struct vt_metric_tv *buf;
	size_t n, cap, limit; /* limit: callback buffer capacity in values */
	uint64_t sorted, early, late, old, refused;
	bool refusing; /* the last callback value was refused: the gap is marked */
	uint64_t refused_since;
	bool enabled, done;
	struct vt_async *next;	   /* all instances */
	struct vt_async *loc_next; /* of the same owner */
};

/* What a location holds: its synchronous set (also in its TLS) and asynchronous counters,
 * and every counter added there, for disable_counter at its end. */
struct vt_plugin_loc {
	struct vt_metric_sync_set *sync;
	struct vt_tls *tls;
	struct vt_async *async;
	struct added {
		struct vt_metric_source *s;
		int32_t id;
	} * added;
	size_t n_added;
	bool ended;
	struct vt_plugin_loc *next;
};

static struct vt_plugin_loc *counters_of(const struct vt_loc *loc)
{
	struct vt_plugin_loc **p = vt_loctab_peek(&svc.loc_counters, loc->index);
	return p ? *p : NULL;
}

static uint64_t wtime(void)
{
	return vt_clock_now();
}

/* What makes metric sources from the configuration, in the order their metrics are
 * numbered. A new source is a row here. */
static struct vt_metric_source *(*const providers[])(uint64_t (*wtime)(void)) = {
    vt_metric_plugins_load,
    vt_metric_rusage_load,
    vt_metric_papi_load,
    vt_metric_mem_load,
};

/*
 * The largest event is an Enter or Leave with a value of every synchronous counter of its
 * thread, and an event must fit in half the buffer. Counters beyond that are left out here,
 * with one line, rather than failing at an event.
 */
static void leave_out_oversized(void)
{
	size_t room = vt_buf_half_records(vt_cfg.buffer_size) - 1, n = 0, left = 0;
	const char *first = NULL;
	if (room > MAX_SYNC)
		room = MAX_SYNC;
	for (struct vt_metric_source *s = svc.sources; s; s = s->next) {
		if (s->sync != VT_METRIC_STRICT && s->sync != VT_METRIC_OPTIONAL)
			continue;
		for (size_t i = 0; i < s->n_metrics; i++) {
			if (n < room) {
				n++;
				continue;
			}
			s->metrics[i].left_out = true;
			if (!left++)
				first = s->metrics[i].name;
		}
	}
	if (left)
		vt_error("VT_BUFFER_SIZE=%lu: an event and the values of its synchronous counters "
			 "must fit in half the buffer (%zu values, at most %d): %zu of %zu "
			 "synchronous counters are left out, from %s on; raise VT_BUFFER_SIZE",
			 (unsigned long)vt_cfg.buffer_size, room, MAX_SYNC, left, n + left, first);
}

static int init(void)
{
	/* Every provider's sources, in this order; a source's metrics are numbered on. */
	struct vt_metric_source **tail = &svc.sources;
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
		*tail = providers[i](wtime);
		while (*tail) {
			for (size_t k = 0; k < (*tail)->n_metrics; k++) {
				(*tail)->metrics[k].source = *tail;
				(*tail)->metrics[k].index = svc.n_metrics++;
			}
			tail = &(*tail)->next;
		}
	}
	if (!svc.n_metrics)
		return 0;
	svc.metric_of = calloc(svc.n_metrics, sizeof(*svc.metric_of));
	svc.defs = calloc(svc.n_metrics + VT_METRIC_DYNAMIC_MAX, sizeof(*svc.defs));
	if (!svc.metric_of || !svc.defs) {
		vt_error("metrics: out of memory; no counters are recorded");
		free(svc.defs);
		svc.defs = NULL;
		svc.n_metrics = 0; /* the program's counters may still get a table of their own */
		return 0;
	}
	svc.n_defined = svc.n_metrics;
	for (struct vt_metric_source *p = svc.sources; p; p = p->next) {
		for (size_t i = 0; i < p->n_metrics; i++) {
			struct vt_metric *m = &p->metrics[i];
			struct vt_otf2_metric *d = &svc.defs[m->index];
			svc.metric_of[m->index] = m;
			d->name = m->name;
			d->unit = m->unit;
			d->description = m->description;
			d->mode = m->mode;
			d->type = m->type;
			d->base = m->base;
			d->exponent = m->exponent;
			d->is_float = m->is_float;
			switch (p->sync) {
			case VT_METRIC_STRICT:
				d->occurrence = OTF2_METRIC_SYNCHRONOUS_STRICT;
				d->recorder_kind = OTF2_RECORDER_KIND_CPU;
				break;
			case VT_METRIC_OPTIONAL:
				d->occurrence = OTF2_METRIC_SYNCHRONOUS;
				d->recorder_kind = OTF2_RECORDER_KIND_CPU;
				break;
			default:
				d->occurrence = OTF2_METRIC_ASYNCHRONOUS;
				d->recorder_kind = OTF2_RECORDER_KIND_ABSTRACT;
				break;
			}
		}
	}
	leave_out_oversized();
	/* The writer encodes values by their type and writes the definitions: told once. */
	vt_otf2_set_metrics(svc.defs, svc.n_metrics);
	svc.active = true;
	return 0;
}

static bool thread_is_own(void)
{
	if (!svc.active)
		return false;
	for (struct vt_metric_source *s = svc.sources; s; s = s->next)
		if (s->ops->thread_is_own && s->ops->thread_is_own(s))
			return true;
	return false;
}

/* ---- values of asynchronous counters ---- */

static int by_time(const void *a, const void *b)
{
	const struct vt_metric_tv *x = a, *y = b;
	return x->timestamp < y->timestamp ? -1 : x->timestamp > y->timestamp;
}

static OTF2_EvtWriter *async_writer(struct vt_async *a)
{
	if (!a->w && vt_otf2_ready())
		a->w = vt_otf2_metric_writer(a->k, &a->ref);
	return a->w;
}

/* Writes one value; caller holds a->lock and has a writer. */
static void write_one(struct vt_async *a, uint64_t ts, uint64_t value)
{
	vt_otf2_write_value(a->w, ts, inst_base() + a->k, a->m->index, value);
	a->last_ts = ts;
}

/* Values were refused (the callback buffer was full before the archive existed): the gap
 * is marked from the first refused value to the next accepted one (resume; 0: the end). The
 * values before the gap are written already. Caller holds a->lock and has a writer. */
static void mark_gap(struct vt_async *a, uint64_t resume)
{
	uint64_t from = a->refused_since > a->last_ts ? a->refused_since : a->last_ts;
	vt_otf2_write_onoff(a->w, from, false);
	a->last_ts = from;
	if (resume) {
		uint64_t on = resume > from ? resume : from;
		vt_otf2_write_onoff(a->w, on, true);
		a->last_ts = on;
	}
	a->refusing = false;
}

/*
 * Writes a batch: sorted, and clipped to [start of the run, end] and to what the location
 * already holds. Caller holds a->lock. Without a writer yet (MPI, before MPI_Init) the
 * batch is kept for later. The batch is the caller's.
 */
static void write_batch(struct vt_async *a, struct vt_metric_tv *v, size_t n, uint64_t end)
{
	if (!n)
		return;
	for (size_t i = 1; i < n; i++) {
		if (v[i].timestamp < v[i - 1].timestamp) {
			a->sorted += n;
			qsort(v, n, sizeof(*v), by_time);
			break;
		}
	}
	if (!async_writer(a)) {
		/* Kept in the pending buffer; beyond the callback limit the buffer grows. */
		if (a->n + n > a->cap) {
			size_t cap = a->cap ? a->cap : 256;
			while (cap < a->n + n)
				cap *= 2;
			struct vt_metric_tv *b = realloc(a->buf, cap * sizeof(*b));
			if (!b) {
				a->refused += n;
				return;
			}
			a->buf = b;
			a->cap = cap;
		}
		memcpy(a->buf + a->n, v, n * sizeof(*v));
		a->n += n;
		return;
	}
	uint64_t start = vt_clock_start_ticks();
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = v[i].timestamp;
		if (ts < start)
			a->early++;
		else if (ts > end)
			a->late++;
		else if (ts < a->last_ts)
			a->old++;
		else {
			write_one(a, ts, v[i].value);
			a->events++;
		}
	}
}

/* Writes what waited in the buffer; caller holds a->lock. */
static void drain(struct vt_async *a, uint64_t end)
{
	if (!a->n || !async_writer(a))
		return;
	size_t n = a->n;
	a->n = 0;
	write_batch(a, a->buf, n, end);
}

/* get_all_values of one on-event or post-mortem counter; caller holds a->lock. */
static void fetch(struct vt_async *a, uint64_t end)
{
	struct vt_metric_source *s = a->m->source;
	struct vt_metric_tv *list = NULL;
	uint64_t n = s->ops->get_all(s, a->id, &list);
	/* Whatever the plugin stamped before it returned lies within the run. */
	a->fetched_at = vt_clock_now();
	if (end < a->fetched_at)
		end = a->fetched_at;
	if (n && !list) {
		vt_warn("counter %s: get_all_values said %lu values but gave none", a->name,
			(unsigned long)n);
		return;
	}
	drain(a, end);
	write_batch(a, list, (size_t)n, end);
	free(list);
}

/* The callback of CALLBACK sources, from the source's own thread. */
static int32_t callback(void *obj, struct vt_metric_tv tv)
{
	struct vt_async *a = obj;
	/* This thread is the plugin's: it is never recorded. */
	if (vt_tls.state == VT_TLS_NEW)
		vt_tls.state = VT_TLS_OFF;
	pthread_mutex_lock(&a->lock);
	int32_t rc = VT_METRIC_CALLBACK_OK;
	if (a->done) {
		rc = VT_METRIC_CALLBACK_TRACE_OFF_PERMANENT;
	} else {
		if (a->n == a->limit && async_writer(a)) {
			/* Full: written out by this (the plugin's) thread. */
			size_t n = a->n;
			a->n = 0;
			write_batch(a, a->buf, n, vt_clock_now());
		}
		if (a->n < a->limit) {
			/* After refusals the buffer was just written out (refusing only starts
			 * with a full buffer and no archive): the gap goes between. */
			if (a->refusing && a->w)
				mark_gap(a, tv.timestamp);
			a->buf[a->n++] = tv;
		} else {
			if (!a->refusing) {
				a->refusing = true;
				a->refused_since = tv.timestamp;
			}
			a->refused++;
			rc = VT_METRIC_CALLBACK_BUFFER_FULL;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

/* ---- adding counters ---- */

static bool in_scope(enum vt_metric_per per, struct vt_loc *loc, bool at_mpi_init, bool host_first,
		     bool rank0)
{
	switch (per) {
	case VT_METRIC_PER_THREAD:
		return !at_mpi_init;
	case VT_METRIC_PER_PROCESS:
		return !at_mpi_init && loc->index == 0;
	case VT_METRIC_PER_HOST:
		return vt_state_data.mpi_mode ? at_mpi_init && host_first : loc->index == 0;
	default:
		return vt_state_data.mpi_mode ? at_mpi_init && rank0 : loc->index == 0;
	}
}

static const enum vt_def_scope scope_of[] = {VT_DEF_SCOPE_LOCATION, VT_DEF_SCOPE_PROCESS,
					     VT_DEF_SCOPE_HOST, VT_DEF_SCOPE_RUN};

static struct vt_async *new_async(struct vt_metric *m, int32_t id, struct vt_loc *loc)
{
	struct vt_async *a = calloc(1, sizeof(*a));
	char owner[64];
	if (!a)
		return NULL;
	vt_otf2_location_name(loc, owner, sizeof(owner));
	if (asprintf(&a->name, "%s@%s", m->name, owner) < 0) {
		free(a);
		return NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	a->m = m;
	a->id = id;
	a->owner = loc;
	a->scope = scope_of[m->source->per];
	if (m->source->sync == VT_METRIC_CALLBACK) {
		a->limit = vt_cfg.plugin_callback_buffer / sizeof(struct vt_metric_tv);
		if (!a->limit)
			a->limit = 1;
		a->buf = malloc(a->limit * sizeof(*a->buf));
		a->cap = a->buf ? a->limit : 0;
		if (!a->buf) {
			free(a->name);
			free(a);
			return NULL;
		}
	}
	pthread_mutex_lock(&svc.lock);
	a->k = svc.n_async++;
	*svc.asyncs_tail = a;
	svc.asyncs_tail = &a->next;
	pthread_mutex_unlock(&svc.lock);
	return a;
}

/*
 * The class whose members are the strict counters of a synchronous set, defined on first use
 * (threads with the same counters share it) in the room of the program's counters: the
 * encoder writes their values at an event as one Metric event of it (archive/vt_otf2.h).
 * Counters read at an event only when they have a value (OPTIONAL) stay metrics of their own.
 */
static void define_group(const struct vt_metric_sync_ctr *c, uint32_t n)
{
	uint32_t members[MAX_SYNC], k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (c[i].get)
			members[k++] = c[i].metric;
	if (k < 2)
		return;
	pthread_mutex_lock(&svc.dyn_lock);
	for (uint32_t i = svc.n_metrics; i < svc.n_defined; i++)
		if (svc.defs[i].n_members == k &&
		    memcmp(svc.defs[i].members, members, k * sizeof(*members)) == 0)
			goto out;
	if (svc.n_defined == svc.n_metrics + VT_METRIC_DYNAMIC_MAX)
		goto out; /* the values are then written one Metric event each */
	uint32_t *copy = malloc(k * sizeof(*copy));
	if (!copy)
		goto out;
	memcpy(copy, members, k * sizeof(*copy));
	struct vt_otf2_metric *d = &svc.defs[svc.n_defined];
	*d = (struct vt_otf2_metric){
	    .name = "",
	    .unit = "",
	    .description = "",
	    .type = OTF2_TYPE_UINT64,
	    .occurrence = OTF2_METRIC_SYNCHRONOUS_STRICT,
	    .recorder_kind = OTF2_RECORDER_KIND_CPU,
	    .n_members = k,
	    .members = copy,
	};
	vt_otf2_metrics_grew(++svc.n_defined);
out:
	pthread_mutex_unlock(&svc.dyn_lock);
}

/* Adds, on the calling thread, the counters in scope of loc; t->sync is set here. */
static void add_counters(struct vt_tls *t, struct vt_loc *loc, bool at_mpi_init, bool host_first,
			 bool rank0)
{
	struct vt_plugin_loc *pl = counters_of(loc);
	struct vt_metric_sync_ctr sync[MAX_SYNC];
	uint32_t n_sync = 0;
	struct added *added = NULL;
	size_t n_added = 0;
	char owner[64];

	vt_otf2_location_name(loc, owner, sizeof(owner));
	if (!pl) {
		struct vt_plugin_loc **slot = vt_loctab_get(&svc.loc_counters, loc->index);
		pl = slot ? calloc(1, sizeof(*pl)) : NULL;
		if (!pl)
			return;
		pl->tls = t;
		pthread_mutex_lock(&svc.lock);
		pl->next = svc.plocs;
		svc.plocs = pl;
		pthread_mutex_unlock(&svc.lock);
		*slot = pl;
	}
	if (pl->sync) {
		memcpy(sync, pl->sync->c, pl->sync->n * sizeof(*sync));
		n_sync = pl->sync->n;
	}
	for (struct vt_metric_source *p = svc.sources; p; p = p->next) {
		if (!in_scope(p->per, loc, at_mpi_init, host_first, rank0))
			continue;
		struct vt_async *mine[p->n_metrics ? p->n_metrics : 1];
		size_t n_mine = 0;
		for (size_t i = 0; i < p->n_metrics; i++) {
			struct vt_metric *m = &p->metrics[i];
			if (m->left_out)
				continue;
			int32_t id = p->ops->add(p, m);
			if (id < 0) {
				vt_error(
				    "%s %s: add_counter(\"%s\") returned %d on %s; that counter "
				    "is skipped there",
				    p->what, p->name, m->name, id, owner);
				continue;
			}
			p->responsible = true;
			struct added *na = realloc(added, (n_added + 1) * sizeof(*na));
			if (na) {
				added = na;
				added[n_added++] = (struct added){p, id};
			}
			if (p->sync == VT_METRIC_STRICT || p->sync == VT_METRIC_OPTIONAL) {
				struct vt_metric_sync_ctr *c = &sync[n_sync++];
				memset(c, 0, sizeof(*c));
				if (p->sync == VT_METRIC_STRICT)
					c->get = p->get;
				else
					c->get_optional = p->get_optional;
				c->id = id;
				c->metric = m->index;
				c->delta_t = p->delta_t;
				continue;
			}
			struct vt_async *a = new_async(m, id, loc);
			if (!a)
				continue;
			struct vt_async **tail = &pl->async;
			while (*tail)
				tail = &(*tail)->loc_next;
			*tail = a;
			mine[n_mine++] = a;
		}
		if (p->sync == VT_METRIC_CALLBACK)
			for (size_t i = 0; i < n_mine; i++)
				p->ops->set_callback(p, mine[i], mine[i]->id, callback);
		for (size_t i = 0; i < n_added && p->ops->enable; i++) {
			if (added[i].s != p)
				continue;
			int32_t rc = p->ops->enable(p, added[i].id);
			if (rc != 0)
				vt_warn("%s %s: enable_counter(%d) returned %d on %s", p->what,
					p->name, added[i].id, rc, owner);
		}
		for (size_t i = 0; i < n_mine; i++)
			mine[i]->enabled = true;
	}
	if (n_added) {
		struct added *all = realloc(pl->added, (pl->n_added + n_added) * sizeof(*all));
		if (all) {
			memcpy(all + pl->n_added, added, n_added * sizeof(*added));
			pl->added = all;
			pl->n_added += n_added;
		}
	}
	free(added);
	if (n_sync != (pl->sync ? pl->sync->n : 0)) {
		struct vt_metric_sync_set *s = malloc(sizeof(*s) + n_sync * sizeof(s->c[0]));
		/* The class of its values, before any is recorded. */
		define_group(sync, n_sync);
		if (s) {
			s->n = n_sync;
			memcpy(s->c, sync, n_sync * sizeof(sync[0]));
			/* The old set stays allocated: the thread may be reading it. */
			pl->sync = s;
			__atomic_store_n(&t->sync, s, __ATOMIC_RELEASE);
		}
	}
}

/* The start (BEGIN, BEGIN_MPP) or end of the measurement, once per process (Score-P version
 * 1); responsible says whether this process added counters of the source. */
static void synchronize_all(enum vt_metric_phase ph)
{
	for (struct vt_metric_source *s = svc.sources; s; s = s->next)
		if (s->ops->synchronize)
			s->ops->synchronize(s, s->responsible, ph);
}

static void loc_begin(struct vt_tls *t, struct vt_loc *loc)
{
	if (!svc.active)
		return;
	add_counters(t, loc, false, false, false);
	if (loc->index == 0 && !vt_state_data.mpi_mode)
		synchronize_all(VT_METRIC_BEGIN);
}

static void mpi_attach(const struct vt_topo *topo, struct vt_tls *t)
{
	if (!svc.active)
		return;
	/* Without the topology (no memory) per-host counters go to every rank's first thread. */
	bool host_first = topo ? topo->host_first : true, rank0 = topo ? topo->rank == 0 : true;
	if (t && t->loc)
		add_counters(t, t->loc, true, host_first, rank0);
	synchronize_all(VT_METRIC_BEGIN_MPP);
	/* Values that came before the archive existed. */
	for (struct vt_async *a = svc.asyncs; a; a = a->next) {
		pthread_mutex_lock(&a->lock);
		if (a->m->source->sync != VT_METRIC_CALLBACK)
			drain(a, vt_clock_now());
		pthread_mutex_unlock(&a->lock);
	}
}

/* ---- synchronous values ---- */

void vt_metric_put(struct vt_tls *t, uint32_t val, uint32_t kind)
{
	struct vt_metric_sync_set *s = __atomic_load_n(&t->sync, __ATOMIC_ACQUIRE);
	if (!s) {
		vt_thread_put(t, val, kind);
		return;
	}
	uint32_t n = s->n;
	/* Room for the event and every value: the configuration keeps 1 + n within a half. */
	struct vt_rec *p = vt_buf_reserve(t, 1 + n);
	if (!p)
		return;
	uint64_t now = vt_clock_now();
	uint32_t k = 0;
	/* The plugins' code may be instrumented or set errno: while it runs, the thread is busy
	 * (its events are dropped and counted, vt_buf.c) and the program's errno is kept. */
	int saved = errno;
	t->busy = 1;
	for (uint32_t i = 0; i < n; i++) {
		struct vt_metric_sync_ctr *c = &s->c[i];
		uint64_t v;
		if (c->get) {
			v = c->get(c->id);
		} else {
			if (c->delta_t && c->last && now - c->last < c->delta_t)
				continue;
			if (!c->get_optional(c->id, &v))
				continue;
			c->last = now;
		}
		struct vt_rec_metric *m = (struct vt_rec_metric *)&p[1 + k++];
		m->value = v;
		m->metric = c->metric;
		m->kind = VT_REC_METRIC;
	}
	t->busy = 0;
	errno = saved;
	p[0].ts = now;
	p[0].region = val;
	p[0].kind = kind;
	vt_buf_commit(t, p, 1 + k);
}

/* ---- collecting, the end ---- */

/* On the owner's thread, in its flush: the counters read at each event are read now too.
 * A plugin's code runs meanwhile, so the thread's events then are dropped as foreign. */
static void loc_flush(struct vt_loc *loc)
{
	struct vt_plugin_loc *pl = counters_of(loc);
	if (!pl)
		return;
	struct vt_tls *t = &vt_tls;
	int busy = t->busy;
	t->busy = VT_BUSY_FOREIGN;
	uint64_t now = vt_clock_now();
	for (struct vt_async *a = pl->async; a; a = a->loc_next) {
		struct vt_metric_source *p = a->m->source;
		if (p->sync != VT_METRIC_ON_EVENT || !a->enabled)
			continue;
		if (p->delta_t && now - a->fetched_at < p->delta_t)
			continue;
		pthread_mutex_lock(&a->lock);
		if (!a->done)
			fetch(a, now);
		pthread_mutex_unlock(&a->lock);
	}
	t->busy = busy;
}

static const char *values(uint64_t n)
{
	return n == 1 ? "value" : "values";
}

/* What had to be repaired in a counter's values, once, at its end. */
static void report(struct vt_async *a)
{
	const struct vt_metric_source *p = a->m->source;
	const char *what = p->what;
	if (a->sorted)
		vt_warn("%s %s: counter %s: %lu %s came out of time order; sorted", what, p->name,
			a->name, (unsigned long)a->sorted, values(a->sorted));
	if (a->early || a->late)
		vt_warn("%s %s: counter %s: %lu %s before the start and %lu after the end of "
			"the run; dropped",
			what, p->name, a->name, (unsigned long)a->early, values(a->early),
			(unsigned long)a->late);
	if (a->old)
		vt_warn("%s %s: counter %s: %lu %s older than values already written; dropped",
			what, p->name, a->name, (unsigned long)a->old, values(a->old));
	if (a->refused)
		vt_warn("%s %s: counter %s: %lu %s refused (callback buffer full before the "
			"trace was open; VT_METRIC_CALLBACK_BUFFER=%lu); the trace marks the "
			"gaps",
			what, p->name, a->name, (unsigned long)a->refused, values(a->refused),
			(unsigned long)vt_cfg.plugin_callback_buffer);
}

/* The end of one location's counters: disable, last values, close. */
static void end_loc(struct vt_plugin_loc *pl, uint64_t end)
{
	if (pl->ended)
		return;
	pl->ended = true;
	if (pl->tls)
		__atomic_store_n(&pl->tls->sync, NULL, __ATOMIC_RELEASE);
	for (size_t i = 0; i < pl->n_added; i++) {
		struct vt_metric_source *s = pl->added[i].s;
		if (s->ops->disable)
			s->ops->disable(s, pl->added[i].id);
	}
	for (struct vt_async *a = pl->async; a; a = a->loc_next) {
		pthread_mutex_lock(&a->lock);
		enum vt_metric_sync s = a->m->source->sync;
		/* Values taken up to now belong to the run: a plugin may well read once more
		 * when asked for the last time. */
		uint64_t now = vt_clock_now();
		if (end < now)
			end = now;
		if (s == VT_METRIC_ON_EVENT || s == VT_METRIC_POST_MORTEM)
			fetch(a, end);
		drain(a, end);
		a->done = true;
		/* Every defined location has its event file, even without values. */
		async_writer(a);
		if (a->refusing && a->w)
			mark_gap(a, 0);
		if (a->w) {
			vt_otf2_metric_writer_close(a->w, &a->events);
			a->w = NULL;
		}
		pthread_mutex_unlock(&a->lock);
		report(a);
	}
}

static void loc_end(struct vt_tls *t, struct vt_loc *loc)
{
	struct vt_plugin_loc *pl = counters_of(loc);
	if (pl)
		end_loc(pl, vt_clock_now());
}

static void stop_sync(void)
{
	if (!svc.active)
		return;
	pthread_mutex_lock(&svc.lock);
	for (struct vt_plugin_loc *pl = svc.plocs; pl; pl = pl->next)
		if (pl->tls && !pl->ended)
			__atomic_store_n(&pl->tls->sync, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&svc.lock);
}

static uint64_t last_ts(void)
{
	uint64_t last = 0;
	for (struct vt_async *a = svc.asyncs; a; a = a->next)
		if (a->last_ts > last)
			last = a->last_ts;
	return last;
}

static void finalize(uint64_t end)
{
	if (!svc.active)
		return;
	synchronize_all(VT_METRIC_END);
	pthread_mutex_lock(&svc.lock);
	struct vt_plugin_loc *list = svc.plocs;
	pthread_mutex_unlock(&svc.lock);
	for (struct vt_plugin_loc *pl = list; pl; pl = pl->next)
		end_loc(pl, end);
	/* A thread that ended before MPI_Init left its values waiting for the archive; they
	 * were written at MPI_Init, and their writer is closed here. */
	for (struct vt_async *a = svc.asyncs; a; a = a->next) {
		pthread_mutex_lock(&a->lock);
		drain(a, end);
		if (a->w) {
			uint64_t more = 0;
			vt_otf2_metric_writer_close(a->w, &more);
			a->events = more;
			a->w = NULL;
		}
		pthread_mutex_unlock(&a->lock);
	}
	/* Definitions of the instances, for the writer of the definitions. */
	svc.instances = calloc(svc.n_async ? svc.n_async : 1, sizeof(*svc.instances));
	for (struct vt_async *a = svc.asyncs; a && svc.instances; a = a->next) {
		struct vt_otf2_instance *d = &svc.instances[a->k];
		d->id = inst_base() + a->k;
		d->metric = a->m->index;
		d->recorder = a->ref ? a->ref : vt_otf2_metric_ref(a->k);
		d->recorder_name = a->name;
		d->events = a->events;
		d->scope = a->scope;
		d->owner = a->owner->ref;
	}
	vt_otf2_set_instances(svc.instances, svc.instances ? svc.n_async : 0, last_ts());
	/* The metric descriptions stay: the definitions are written after this. */
	for (struct vt_metric_source *s = svc.sources; s; s = s->next)
		if (s->ops->finalize)
			s->ops->finalize(s);
}

/* ---- counters the program defines ---- */

int32_t vt_metric_define(const char *name, const char *unit, bool is_double)
{
	int32_t index = -1;
	static bool full_said;
	if (!name || !*name)
		return -1;
	pthread_mutex_lock(&svc.dyn_lock);
	if (!svc.defs) {
		/* No source has metrics: the table is made for the program's alone. */
		svc.defs = calloc(VT_METRIC_DYNAMIC_MAX, sizeof(*svc.defs));
		if (!svc.defs)
			goto out;
		vt_otf2_set_metrics(svc.defs, 0);
	}
	for (uint32_t i = svc.n_metrics; i < svc.n_defined; i++) {
		if (svc.defs[i].n_members || strcmp(svc.defs[i].name, name) != 0)
			continue;
		if ((svc.defs[i].type == OTF2_TYPE_DOUBLE) != is_double) {
			vt_error("counter \"%s\" is defined again as %s; it was defined as %s, and "
				 "these values are not recorded",
				 name, is_double ? "floating point" : "integer",
				 is_double ? "integer" : "floating point");
			goto out;
		}
		index = (int32_t)i;
		goto out;
	}
	if (svc.n_defined == svc.n_metrics + VT_METRIC_DYNAMIC_MAX) {
		if (!full_said)
			vt_error("the program defined more than %d counters; \"%s\" and later ones "
				 "are not recorded",
				 VT_METRIC_DYNAMIC_MAX, name);
		full_said = true;
		goto out;
	}
	struct vt_otf2_metric *d = &svc.defs[svc.n_defined];
	d->name = strdup(name);
	d->unit = strdup(unit ? unit : "#");
	d->description = "set by the program";
	if (!d->name || !d->unit)
		goto out;
	d->mode = OTF2_METRIC_ABSOLUTE_POINT;
	d->type = is_double ? OTF2_TYPE_DOUBLE : OTF2_TYPE_INT64;
	d->base = OTF2_BASE_DECIMAL;
	d->occurrence = OTF2_METRIC_ASYNCHRONOUS;
	d->recorder_kind = OTF2_RECORDER_KIND_ABSTRACT;
	index = (int32_t)svc.n_defined++;
	vt_otf2_metrics_grew(svc.n_defined);
out:
	pthread_mutex_unlock(&svc.dyn_lock);
	return index;
}

void vt_metric_set(struct vt_tls *t, int32_t metric, uint64_t bits)
{
	if (metric < 0)
		return;
	union vt_rec_payload v = {.value = {bits, 0}};
	vt_thread_put_event(t, (uint32_t)metric, VT_REC_COUNTER, &v, 1);
}

const struct vt_subsystem vt_metric_subsystem = {
    .name = "metrics",
    .init = init,
    .thread_is_own = thread_is_own,
    .thread_begin = loc_begin,
    .thread_flush = loc_flush,
    .thread_end = loc_end,
    .mpi_attach = mpi_attach,
    .stop = stop_sync,
    .finalize = finalize,
};
