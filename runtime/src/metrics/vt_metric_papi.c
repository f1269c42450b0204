/* SPDX-License-Identifier: BSD-3-Clause */
/* A metric source: PAPI events of each thread (VT_METRICS), read with its events. */
#include "metrics/vt_metric_papi.h"
#include "base/vt_config.h"
#include "base/vt_log.h"

#include <dlfcn.h>
#include <otf2/otf2.h>
#include <papi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * PAPI's software-defined events (sde:::LIB::NAME) are PAPI native events like any other,
 * with two things PAPI cannot say (it accepts any SDE name, as a placeholder for a library
 * loaded later, and reads every SDE as 64 bits) and VT_METRICS therefore does, in a tag:
 * NAME[double] is a counter of doubles, and NAME[recorder] (or [recorder,double]) a
 * recorder, recorded as its count (NAME:CNT, a counter of this source) and its recorded
 * values, which another source (recorders, below) writes on a METRIC location of the
 * process at the times vt collects them: the first thread's buffer flushes and its end.
 * Recorded values must be 8 bytes: long long, or double.
 *
 * libpapi is opened only when VT_METRICS names events, so a program traced without them does
 * not load it (papi.h gives the types and constants). Each thread gets an event set of its
 * own (PAPI's thread support); its counters are added in order, so the counter id is the
 * event's position in the set, and the service reads a thread's counters in that order at
 * each event: the read of id 0 fetches the whole set, the others take their value from it.
 */

#define MAX_EVENTS 64

/* A thread's PAPI state, made at its first add; reached through one initial-exec TLS pointer
 * (a struct of this size in TLS would go through __tls_get_addr at every access). */
struct papi_thread {
	int set;      /* PAPI_NULL: none yet */
	int n;	      /* counters added */
	int n_events; /* events in the set: the counters, and each recorder's address */
	bool started, failed;
	int pos[MAX_EVENTS];	/* counter id -> its place in the set */
	int metric[MAX_EVENTS]; /* counter id -> its index in metrics[] */
	bool real[MAX_EVENTS];	/* a value other than PAPI's "not registered" was read */
	/* reads of "not registered" (an SDE its library registers later, or never): recorded
	 * as 0, and said at the thread's end */
	uint64_t unregistered[MAX_EVENTS];
	bool sde[MAX_EVENTS]; /* the counter is an SDE (only they have a placeholder) */
	long long values[2 * MAX_EVENTS];
};
static __thread struct papi_thread *tls_p __attribute__((tls_model("initial-exec")));
/* For the functions that run only after the thread's first add (tls_p set). */
#define tls (*tls_p)

#define MAX_RECORDERS 16

struct recorder {
	char *name;	/* the recorder's PAPI name */
	int count;	/* its count's counter id in the PAPI source (the same on every thread) */
	long long seen; /* values already taken */
	struct vt_metric_tv *pending; /* taken, not yet handed to the service */
	size_t n_pending;
};

struct metric_extra {
	int recorder; /* the recorder whose count this is, or -1 */
};

static uint64_t get(int32_t id);
static const struct vt_metric_ops ops, rec_ops;

/* The functions of libpapi (dlopen'ed), the events of this source and its recorders. */
static struct {
	struct {
		int (*library_init)(int);
		int (*thread_init)(unsigned long (*)(void));
		int (*create_eventset)(int *);
		int (*add_named_event)(int, const char *);
		int (*start)(int);
		int (*read)(int, long long *);
		int (*stop)(int, long long *);
		int (*cleanup_eventset)(int);
		int (*destroy_eventset)(int *);
		int (*event_name_to_code)(const char *, int *);
		char *(*strerror)(int);
		void (*shutdown)(void);
	} papi;
	struct recorder recs[MAX_RECORDERS];
	size_t n_recs;
	struct metric_extra extra[MAX_EVENTS];
	struct vt_metric metrics[MAX_EVENTS];
	struct vt_metric_source source;
	/* SDE recorders: the values they recorded, per process */
	struct vt_metric rec_metrics[MAX_RECORDERS];
	uint64_t (*now)(void);
	struct vt_metric_source rec_source;
} pp = {
    .source.name = "libpapi",
    .source.what = "PAPI",
    .source.sync = VT_METRIC_STRICT,
    .source.per = VT_METRIC_PER_THREAD,
    .source.ops = &ops,
    .source.get = get,
    .rec_source.name = "libpapi",
    .rec_source.what = "PAPI recorder",
    .rec_source.sync = VT_METRIC_ON_EVENT,
    .rec_source.per = VT_METRIC_PER_PROCESS,
    .rec_source.ops = &rec_ops,
};

/* A thread without a set reads like one with nothing in it. */
static bool has_set(void)
{
	return tls_p && tls_p->set != PAPI_NULL;
}

/* What PAPI reads for an SDE that no library registered (all bits set). */
#define SDE_UNREGISTERED (-1LL)

static unsigned long thread_id(void)
{
	return (unsigned long)pthread_self();
}

static bool open_papi(void)
{
	void *dl = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_GLOBAL);
	if (!dl)
		dl = dlopen("libpapi.so", RTLD_NOW | RTLD_GLOBAL);
	if (!dl) {
		vt_error("VT_METRICS: cannot load libpapi (%s); no PAPI counters are recorded",
			 dlerror());
		return false;
	}
#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&pp.papi.field = dlsym(dl, name);                                        \
		if (!pp.papi.field) {                                                              \
			vt_error("VT_METRICS: libpapi has no %s; no PAPI counters are "            \
				 "recorded",                                                       \
				 name);                                                            \
			return false;                                                              \
		}                                                                                  \
	} while (0)
	SYM(library_init, "PAPI_library_init");
	SYM(thread_init, "PAPI_thread_init");
	SYM(create_eventset, "PAPI_create_eventset");
	SYM(add_named_event, "PAPI_add_named_event");
	SYM(start, "PAPI_start");
	SYM(read, "PAPI_read");
	SYM(stop, "PAPI_stop");
	SYM(cleanup_eventset, "PAPI_cleanup_eventset");
	SYM(destroy_eventset, "PAPI_destroy_eventset");
	SYM(event_name_to_code, "PAPI_event_name_to_code");
	SYM(strerror, "PAPI_strerror");
	SYM(shutdown, "PAPI_shutdown");
#undef SYM
	int v = pp.papi.library_init(PAPI_VER_CURRENT);
	if (v != PAPI_VER_CURRENT) {
		vt_error("VT_METRICS: PAPI did not start (%s); no PAPI counters are recorded",
			 v < 0 ? pp.papi.strerror(v) : "another PAPI version");
		return false;
	}
	if (pp.papi.thread_init(thread_id) != PAPI_OK) {
		vt_error("VT_METRICS: PAPI's thread support did not start; no PAPI counters are "
			 "recorded");
		return false;
	}
	return true;
}

static uint64_t get(int32_t id)
{
	if (__builtin_expect(!tls_p, 0))
		return 0;
	if (id == 0 && tls.started && pp.papi.read(tls.set, tls.values) != PAPI_OK)
		memset(tls.values, 0, sizeof(tls.values));
	if (id < 0 || id >= tls.n)
		return 0;
	long long v = tls.values[tls.pos[id]];
	if (__builtin_expect(v == SDE_UNREGISTERED, 0) && tls.sde[id]) {
		/* PAPI's placeholder (all bits set) is no value: 0 until the library registers
		 * the event (a double's all-ones would be a NaN). */
		tls.unregistered[id]++;
		return 0;
	}
	tls.real[id] = true;
	return (uint64_t)v;
}

static struct recorder *recorder_of(const struct vt_metric *m)
{
	int r = pp.extra[m - pp.metrics].recorder;
	return r >= 0 ? &pp.recs[r] : NULL;
}

static int32_t add(struct vt_metric_source *s, const struct vt_metric *m)
{
	if (!tls_p) {
		tls_p = calloc(1, sizeof(*tls_p));
		if (!tls_p)
			return -1;
		tls_p->set = PAPI_NULL;
	}
	if (tls.failed || tls.n == MAX_EVENTS)
		return -1;
	if (tls.set == PAPI_NULL && pp.papi.create_eventset(&tls.set) != PAPI_OK) {
		tls.failed = true;
		return -1;
	}
	/* A recorder's count: its address goes first, into the set but into no counter. */
	struct recorder *r = recorder_of(m);
	if (r && pp.papi.add_named_event(tls.set, r->name) != PAPI_OK)
		return -1;
	if (r)
		tls.n_events++;
	if (pp.papi.add_named_event(tls.set, m->name) != PAPI_OK)
		return -1;
	tls.pos[tls.n] = tls.n_events++;
	tls.metric[tls.n] = (int)(m - pp.metrics);
	tls.real[tls.n] = false;
	tls.unregistered[tls.n] = 0;
	tls.sde[tls.n] = strncmp(m->name, "sde:::", 6) == 0;
	return tls.n++;
}

/* After every add of the thread: the set counts from the first enable on. */
static int32_t enable(struct vt_metric_source *s, int32_t id)
{
	if (!has_set() || tls.started)
		return 0;
	int rc = pp.papi.start(tls.set);
	tls.started = rc == PAPI_OK;
	return rc == PAPI_OK ? 0 : rc;
}

static void collect(struct recorder *r);

/* An SDE that read as unregistered at some events of a thread: said once per event. */
static void tell_unregistered(void)
{
	static bool said[MAX_EVENTS];
	if (!tls_p)
		return;
	for (int id = 0; id < tls.n; id++) {
		int m = tls.metric[id];
		if (!tls.unregistered[id] || strncmp(pp.metrics[m].name, "sde:::", 6) != 0 ||
		    __atomic_exchange_n(&said[m], true, __ATOMIC_RELAXED))
			continue;
		if (tls.real[id])
			vt_warn("VT_METRICS: '%s' was not registered yet at the first %llu events "
				"of a thread (its library registered it later); they record 0",
				pp.metrics[m].name, (unsigned long long)tls.unregistered[id]);
		else
			vt_warn(
			    "VT_METRICS: PAPI read '%s' as not registered at every event of a "
			    "thread (recorded as 0): no library registered it, or it is a group "
			    "its library registered after vt started, which PAPI does not count",
			    pp.metrics[m].name);
	}
}

static void disable(struct vt_metric_source *s, int32_t id)
{
	if (!has_set())
		return;
	tell_unregistered();
	/* The recorders' last values, while their copies exist. */
	if (tls.started && pp.n_recs && pp.papi.read(tls.set, tls.values) == PAPI_OK)
		for (size_t i = 0; i < pp.n_recs; i++)
			collect(&pp.recs[i]);
	if (tls.started)
		pp.papi.stop(tls.set, tls.values);
	pp.papi.cleanup_eventset(tls.set);
	pp.papi.destroy_eventset(&tls.set);
	free(tls_p);
	tls_p = NULL;
}

static void finalize(struct vt_metric_source *s)
{
	pp.papi.shutdown();
}

static const struct vt_metric_ops ops = {
    .add = add, .enable = enable, .disable = disable, .finalize = finalize};

/* ---- SDE recorders: the values they recorded, per process ---- */

static int32_t rec_add(struct vt_metric_source *s, const struct vt_metric *m)
{
	return (int32_t)(m - pp.rec_metrics);
}

/* Takes the values recorded since the last look, stamped now, from the calling thread's last
 * read of its set: PAPI reads a recorder as the address of a copy of all its values, and its
 * :CNT as their number. The copy is only good until the set's next read or its end. */
static void collect(struct recorder *r)
{
	if (!tls_p || r->count >= tls.n)
		return;
	int at = tls.pos[r->count];
	long long count = tls.values[at], address = tls.values[at - 1];
	if (count <= r->seen || !address)
		return;
	size_t n = (size_t)(count - r->seen);
	struct vt_metric_tv *p = realloc(r->pending, (r->n_pending + n) * sizeof(*p));
	if (!p)
		return;
	const long long *values = (const long long *)(intptr_t)address;
	uint64_t ts = pp.now();
	for (size_t k = 0; k < n; k++)
		p[r->n_pending + k] = (struct vt_metric_tv){ts, (uint64_t)values[r->seen + k]};
	r->pending = p;
	r->n_pending += n;
	r->seen = count;
}

/* The counters are per process, and read through the first thread's set: this runs on that
 * thread (its flushes), or after its set ended (disable collected the last values). */
static uint64_t rec_get_all(struct vt_metric_source *s, int32_t id, struct vt_metric_tv **list)
{
	struct recorder *r = &pp.recs[id];
	if (has_set() && tls.started && pp.papi.read(tls.set, tls.values) == PAPI_OK)
		collect(r);
	*list = r->pending;
	uint64_t n = r->n_pending;
	r->pending = NULL;
	r->n_pending = 0;
	return n;
}

static const struct vt_metric_ops rec_ops = {.add = rec_add, .get_all = rec_get_all};

/* Whether the event can be counted here: added to a set of its own, started and stopped
 * once (a preset may exist and still need hardware counters this machine lacks). */
static int probe(const char *name)
{
	int set = PAPI_NULL, rc = pp.papi.create_eventset(&set);
	long long v[1];
	if (rc == PAPI_OK)
		rc = pp.papi.add_named_event(set, name);
	if (rc == PAPI_OK && (rc = pp.papi.start(set)) == PAPI_OK)
		rc = pp.papi.stop(set, v);
	if (set != PAPI_NULL) {
		pp.papi.cleanup_eventset(set);
		pp.papi.destroy_eventset(&set);
	}
	return rc;
}

/* Whether a single ':' at spec[i] goes on an SDE name: a recorder's :CNT or quantile. */
static bool sde_suffix(const char *spec, size_t i, const char *name)
{
	static const char *const suffixes[] = {"CNT", "MIN", "Q1", "MED", "Q3", "MAX"};
	if (strncmp(name, "sde:::", 6) != 0)
		return false;
	for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
		size_t l = strlen(suffixes[k]);
		if (strncmp(spec + i + 1, suffixes[k], l) == 0 &&
		    (spec[i + 1 + l] == '\0' || spec[i + 1 + l] == ':' || spec[i + 1 + l] == '['))
			return true;
	}
	return false;
}

/* The next event name of spec at *p: names are separated by a ':' that is not part of a '::'
 * or ':::' (PAPI's native names: perf::TASK-CLOCK, sde:::LIB::COUNTER), nor the ':' of an
 * SDE recorder's count or quantile (sde:::LIB::REC:CNT). */
static size_t next_name(const char *spec, size_t *at, char *out, size_t len)
{
	size_t i = *at, n = 0;
	while (spec[i]) {
		bool single =
		    spec[i] == ':' && (i == 0 || spec[i - 1] != ':') && spec[i + 1] != ':';
		out[n] = '\0';
		if (single && !sde_suffix(spec, i, out))
			break;
		if (n + 1 < len)
			out[n++] = spec[i];
		i++;
	}
	out[n] = '\0';
	*at = spec[i] ? i + 1 : i;
	return n;
}

struct vt_metric_source *vt_metric_papi_load(uint64_t (*wtime)(void))
{
	const char *spec = vt_cfg.metrics;
	if (!spec || !*spec || !open_papi())
		return NULL;
	size_t n = 0, at = 0;
	char name[300], cnt[320];
	pp.now = wtime;
	while (spec[at] && n < MAX_EVENTS) {
		/* 255 characters at most, so NAME:CNT fits */
		if (!next_name(spec, &at, name, 256))
			continue;
		/* NAME[double], NAME[recorder], NAME[recorder,double]: see the top. */
		bool is_double = false, recorder = false;
		char *tag = strchr(name, '[');
		if (tag) {
			if (strcmp(tag, "[double]") == 0)
				is_double = true;
			else if (strcmp(tag, "[recorder]") == 0)
				recorder = true;
			else if (strcmp(tag, "[recorder,double]") == 0)
				recorder = is_double = true;
			if ((!is_double && !recorder) || strncmp(name, "sde:::", 6) != 0) {
				vt_error(
				    "VT_METRICS: event '%s': tags are for SDEs (sde:::LIB::NAME) "
				    "and are [double], [recorder] or [recorder,double]; it is "
				    "left out",
				    name);
				continue;
			}
			*tag = '\0';
		}
		int code, rc = pp.papi.event_name_to_code(name, &code);
		if (rc == PAPI_OK)
			rc = probe(name);
		if (rc != PAPI_OK) {
			vt_error("VT_METRICS: event '%s' cannot be counted here (PAPI: %s); it is "
				 "left out",
				 name, pp.papi.strerror(rc));
			continue;
		}
		/* A recorder: its count (PAPI's NAME:CNT) and its values. */
		snprintf(cnt, sizeof(cnt), "%s:CNT", name);
		pp.extra[n].recorder = -1;
		if (recorder && pp.n_recs < MAX_RECORDERS) {
			struct recorder *r = &pp.recs[pp.n_recs];
			*r = (struct recorder){.name = strdup(name), .count = (int)n};
			pp.extra[n].recorder = (int)pp.n_recs;
			pp.rec_metrics[pp.n_recs] = (struct vt_metric){
			    .name = r->name,
			    .unit = (char *)"#",
			    .description = (char *)"values recorded by a PAPI SDE recorder",
			    .mode = OTF2_METRIC_ABSOLUTE_POINT,
			    .type = is_double ? OTF2_TYPE_DOUBLE : OTF2_TYPE_INT64,
			    .base = OTF2_BASE_DECIMAL};
			if (r->name)
				pp.n_recs++;
			else
				pp.extra[n].recorder = -1;
			/* Its count is a counter of this thread's events. */
			snprintf(name, sizeof(name), "%.290s", cnt);
			is_double = false;
		} else if (recorder) {
			vt_error("VT_METRICS: more than %d SDE recorders; '%s' is left out",
				 MAX_RECORDERS, name);
			continue;
		}
		pp.metrics[n++] = (struct vt_metric){
		    .name = strdup(name),
		    .unit = (char *)"#",
		    .description = (char *)"PAPI event",
		    .mode = is_double ? OTF2_METRIC_ABSOLUTE_POINT : OTF2_METRIC_ACCUMULATED_START,
		    .type = is_double ? OTF2_TYPE_DOUBLE : OTF2_TYPE_UINT64,
		    .base = OTF2_BASE_DECIMAL};
		if (!pp.metrics[n - 1].name)
			n--;
	}
	if (spec[at])
		vt_error("VT_METRICS: more than %d events; the rest are left out", MAX_EVENTS);
	pp.source.metrics = pp.metrics;
	pp.source.n_metrics = n;
	pp.rec_source.metrics = pp.rec_metrics;
	pp.rec_source.n_metrics = pp.n_recs;
	if (pp.n_recs)
		pp.source.next = &pp.rec_source;
	return n ? &pp.source : NULL;
}
