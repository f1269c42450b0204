/* SPDX-License-Identifier: BSD-3-Clause */
/* A metric source: PAPI events of each thread (VT_METRICS), read with its events. */
#include "vt_metric_papi.h"
#include "vt_config.h"
#include "vt_log.h"

#include <dlfcn.h>
#include <otf2/otf2.h>
#include <papi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * libpapi is opened only when VT_METRICS names events, so a program traced without them does
 * not load it (papi.h gives the types and constants). Each thread gets an event set of its
 * own (PAPI's thread support); its counters are added in order, so the counter id is the
 * event's position in the set, and the service reads a thread's counters in that order at
 * each event: the read of id 0 fetches the whole set, the others take their value from it.
 */
static struct {
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

#define MAX_EVENTS 64

static __thread struct {
	int set; /* PAPI_NULL: none yet */
	int n;	 /* events added */
	bool started, failed;
	long long values[MAX_EVENTS];
} tls = {PAPI_NULL, 0, false, false, {0}};

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
		*(void **)&papi.field = dlsym(dl, name);                                           \
		if (!papi.field) {                                                                 \
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
	int v = papi.library_init(PAPI_VER_CURRENT);
	if (v != PAPI_VER_CURRENT) {
		vt_error("VT_METRICS: PAPI did not start (%s); no PAPI counters are recorded",
			 v < 0 ? papi.strerror(v) : "another PAPI version");
		return false;
	}
	if (papi.thread_init(thread_id) != PAPI_OK) {
		vt_error("VT_METRICS: PAPI's thread support did not start; no PAPI counters are "
			 "recorded");
		return false;
	}
	return true;
}

static uint64_t get(int32_t id)
{
	if (id == 0 && tls.started && papi.read(tls.set, tls.values) != PAPI_OK)
		memset(tls.values, 0, sizeof(tls.values));
	return id >= 0 && id < tls.n ? (uint64_t)tls.values[id] : 0;
}

static int32_t add(struct vt_metric_source *s, const struct vt_metric *m)
{
	if (tls.failed || tls.n == MAX_EVENTS)
		return -1;
	if (tls.set == PAPI_NULL && papi.create_eventset(&tls.set) != PAPI_OK) {
		tls.failed = true;
		return -1;
	}
	if (papi.add_named_event(tls.set, m->name) != PAPI_OK)
		return -1;
	return tls.n++;
}

/* After every add of the thread: the set counts from the first enable on. */
static int32_t enable(struct vt_metric_source *s, int32_t id)
{
	if (tls.started || tls.set == PAPI_NULL)
		return 0;
	int rc = papi.start(tls.set);
	tls.started = rc == PAPI_OK;
	return rc == PAPI_OK ? 0 : rc;
}

static void disable(struct vt_metric_source *s, int32_t id)
{
	if (tls.set == PAPI_NULL)
		return;
	if (tls.started)
		papi.stop(tls.set, tls.values);
	papi.cleanup_eventset(tls.set);
	papi.destroy_eventset(&tls.set);
	tls.set = PAPI_NULL;
	tls.started = false;
}

static void finalize(struct vt_metric_source *s)
{
	papi.shutdown();
}

static const struct vt_metric_ops ops = {
    .add = add, .enable = enable, .disable = disable, .finalize = finalize};

static struct vt_metric_source source = {
    .name = "libpapi",
    .what = "PAPI",
    .sync = VT_METRIC_STRICT,
    .per = VT_METRIC_PER_THREAD,
    .ops = &ops,
    .get = get,
};

static struct vt_metric metrics[MAX_EVENTS];

/* Whether the event can be counted here: added to a set of its own, started and stopped
 * once (a preset may exist and still need hardware counters this machine lacks). */
static int probe(const char *name)
{
	int set = PAPI_NULL, rc = papi.create_eventset(&set);
	long long v[1];
	if (rc == PAPI_OK)
		rc = papi.add_named_event(set, name);
	if (rc == PAPI_OK && (rc = papi.start(set)) == PAPI_OK)
		rc = papi.stop(set, v);
	if (set != PAPI_NULL) {
		papi.cleanup_eventset(set);
		papi.destroy_eventset(&set);
	}
	return rc;
}

/* The next event name of spec at *p: names are separated by a ':' that is not part of a '::'
 * or ':::' (PAPI's native names: perf::TASK-CLOCK, sde:::LIB::COUNTER). */
static size_t next_name(const char *spec, size_t *at, char *out, size_t len)
{
	size_t i = *at, n = 0;
	while (spec[i]) {
		bool single =
		    spec[i] == ':' && (i == 0 || spec[i - 1] != ':') && spec[i + 1] != ':';
		if (single)
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
	char name[256];
	while (spec[at] && n < MAX_EVENTS) {
		if (!next_name(spec, &at, name, sizeof(name)))
			continue;
		int code, rc = papi.event_name_to_code(name, &code);
		if (rc == PAPI_OK)
			rc = probe(name);
		if (rc != PAPI_OK) {
			vt_error("VT_METRICS: event '%s' cannot be counted here (PAPI: %s); it is "
				 "left out",
				 name, papi.strerror(rc));
			continue;
		}
		metrics[n++] = (struct vt_metric){.name = strdup(name),
						  .unit = (char *)"#",
						  .description = (char *)"PAPI event",
						  .mode = OTF2_METRIC_ACCUMULATED_START,
						  .type = OTF2_TYPE_UINT64,
						  .base = OTF2_BASE_DECIMAL};
		if (!metrics[n - 1].name)
			n--;
	}
	if (spec[at])
		vt_error("VT_METRICS: more than %d events; the rest are left out", MAX_EVENTS);
	source.metrics = metrics;
	source.n_metrics = n;
	return n ? &source : NULL;
}
