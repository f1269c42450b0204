/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Score-P-interface test plugin: one source, built by the test into a library per
 * synchronicity and interface version with -D flags; it logs every call vt makes
 * (../plugins/tp_common.h) and produces values the test recomputes.
 *
 *   -DTP_NAME="spstrict1" -DTP_ENTRY=spstrict1   library name, and the same as a C token
 *                                                (SCOREP_MetricPlugin_spstrict1_get_info)
 *   -DTP_SYNC=N -DTP_PER=N                       sync and run_per (SCOREP_MetricTypes.h)
 *   -DTP_VERSION=0|1                             plugin_version (default 1)
 *   -DTP_DELTA_T=N                               delta_t (default 0)
 *
 * Metrics (get_event_info): "a" (accumulated start, uint64, decimal, 10^0, ops), "b"
 * (absolute last, int64, decimal, 10^-3, J), "x*" offers "x1" (relative next, double,
 * binary, 2^10, B) and "x2" (accumulated point, double, binary, 2^-2, s); each has a
 * description. Instance ids count from 100 in the order of add_counter, per process.
 *
 * Values: STRICTLY_SYNC: the N-th get_current_value returns the N-th value (tp_value).
 * SYNC: get_optional_value answers on its 1st, 3rd, 5th... call only, each time with the
 * next value. ASYNC_EVENT, ASYNC: add_counter starts a sampler thread per instance that
 * takes $TP_SAMPLES (default 4) values $TP_INTERVAL_US (default 1000) apart on vt's clock;
 * get_all_values waits for it, then returns what it took and not yet returned.
 *
 * A version 0 plugin has no synchronize; this one still puts a (logging) function where
 * version 1 has it, as garbage in what version 0 calls reserved: vt must not call it.
 */
#include "../plugins/tp_common.h"

#include <pthread.h>
#include <scorep/SCOREP_MetricPlugins.h>

#ifndef TP_SYNC
#error "build with -DTP_SYNC=..."
#endif
#ifndef TP_PER
#error "build with -DTP_PER=..."
#endif
#ifndef TP_ENTRY
#error "build with -DTP_ENTRY=<name as a token>"
#endif
#ifndef TP_VERSION
#define TP_VERSION 1
#endif
#ifndef TP_DELTA_T
#define TP_DELTA_T 0
#endif

#define TP_ASYNC (TP_SYNC == SCOREP_METRIC_ASYNC_EVENT || TP_SYNC == SCOREP_METRIC_ASYNC)

struct tp_metric_def {
	const char *name;
	const char *description;
	SCOREP_MetricMode mode;
	SCOREP_MetricValueType type;
	SCOREP_MetricBase base;
	int64_t exponent;
	const char *unit;
	enum tp_kind kind;
};

static const struct tp_metric_def defs[] = {
	{ "a", "operations", SCOREP_METRIC_MODE_ACCUMULATED_START, SCOREP_METRIC_VALUE_UINT64,
	  SCOREP_METRIC_BASE_DECIMAL, 0, "ops", TP_UINT },
	{ "b", "energy", SCOREP_METRIC_MODE_ABSOLUTE_LAST, SCOREP_METRIC_VALUE_INT64,
	  SCOREP_METRIC_BASE_DECIMAL, -3, "J", TP_INT },
	{ "x1", "first ratio", SCOREP_METRIC_MODE_RELATIVE_NEXT, SCOREP_METRIC_VALUE_DOUBLE,
	  SCOREP_METRIC_BASE_BINARY, 10, "B", TP_DOUBLE },
	{ "x2", "second ratio", SCOREP_METRIC_MODE_ACCUMULATED_POINT, SCOREP_METRIC_VALUE_DOUBLE,
	  SCOREP_METRIC_BASE_BINARY, -2, "s", TP_DOUBLE },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

struct tp_instance {
	const struct tp_metric_def *def;
	int32_t id;
	uint64_t n; /* values produced */
	uint64_t asked; /* get_optional_value calls */
	pthread_mutex_t mu;
	SCOREP_MetricTimeValuePair *pending;
	size_t npending, cap;
	pthread_t sampler;
	int sampling;
};

#define MAX_INSTANCES 1024
static struct tp_instance instances[MAX_INSTANCES];
static int ninstances;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t (*clock_fn)(void);

static struct tp_instance *find(int32_t id)
{
	int k = id - 100;
	pthread_mutex_lock(&reg_mu);
	struct tp_instance *in = k >= 0 && k < ninstances ? &instances[k] : NULL;
	pthread_mutex_unlock(&reg_mu);
	return in;
}

static int32_t tp_initialize(void)
{
	tp_log("initialize", "ret=0");
	return 0;
}

static void tp_finalize(void)
{
	tp_log("finalize", "%s", "");
}

static SCOREP_Metric_Plugin_MetricProperties *tp_get_event_info(char *token)
{
	SCOREP_Metric_Plugin_MetricProperties *list = calloc(NDEFS + 1, sizeof(*list));
	struct tp_line l;
	size_t n = 0;
	for (size_t i = 0; i < NDEFS; i++) {
		const struct tp_metric_def *d = &defs[i];
		int x = strcmp(token, "x*") == 0 && d->name[0] == 'x';
		if (x || strcmp(token, "*") == 0 || strcmp(token, d->name) == 0) {
			list[n].name = strdup(d->name);
			list[n].description = strdup(d->description);
			list[n].mode = d->mode;
			list[n].value_type = d->type;
			list[n].base = d->base;
			list[n].exponent = d->exponent;
			list[n].unit = strdup(d->unit);
			n++;
		}
	}
	tp_begin(&l, "get_event_info");
	tp_add(&l, " name=%s ret=", token);
	for (size_t i = 0; i < n; i++)
		tp_add(&l, "%s%s", i ? "," : "", list[i].name);
	if (n == 0)
		tp_add(&l, "empty");
	tp_end(&l);
	return list;
}

static void *sampler_main(void *arg)
{
	struct tp_instance *in = arg;
	long samples = tp_env("TP_SAMPLES", 4);
	long interval = tp_env("TP_INTERVAL_US", 1000);

	tp_log("@thread", "id=%d", in->id);
	for (long s = 0; s < samples; s++) {
		usleep((useconds_t)interval);
		SCOREP_MetricTimeValuePair tv;
		tv.timestamp = clock_fn();
		pthread_mutex_lock(&in->mu);
		tv.value = tp_value(in->def->kind, in->id, ++in->n);
		tp_log("@sample", "id=%d ts=%llu val=%llu", in->id, (unsigned long long)tv.timestamp,
		       (unsigned long long)tv.value);
		TP_PENDING_PUSH(in, tv);
		pthread_mutex_unlock(&in->mu);
	}
	return NULL;
}

static int32_t tp_add_counter(char *metric_name)
{
	const struct tp_metric_def *def = NULL;
	struct tp_instance *in = NULL;
	for (size_t i = 0; i < NDEFS; i++)
		if (strcmp(metric_name, defs[i].name) == 0)
			def = &defs[i];
	int32_t id = -1;
	if (def) {
		pthread_mutex_lock(&reg_mu);
		if (ninstances < MAX_INSTANCES) {
			in = &instances[ninstances];
			memset(in, 0, sizeof(*in));
			in->def = def;
			in->id = id = 100 + ninstances;
			pthread_mutex_init(&in->mu, NULL);
			ninstances++;
		}
		pthread_mutex_unlock(&reg_mu);
	}
	tp_log("add_counter", "name=%s ret=%d kind=%s", metric_name, id,
	       def ? tp_kind_name(def->kind) : "?");
	/* Score-P has no enable: an asynchronous metric runs from here on. */
	if (in && TP_ASYNC && clock_fn &&
	    pthread_create(&in->sampler, NULL, sampler_main, in) == 0)
		in->sampling = 1;
	return id;
}

static uint64_t tp_get_current_value(int32_t id)
{
	struct tp_instance *in = find(id);
	uint64_t v = in ? tp_value(in->def->kind, id, ++in->n) : 0;
	tp_log("get_current_value", "id=%d ret=%llu", id, (unsigned long long)v);
	return v;
}

static bool tp_get_optional_value(int32_t id, uint64_t *value)
{
	struct tp_instance *in = find(id);
	bool there = in && (++in->asked % 2) == 1;
	if (there) {
		*value = tp_value(in->def->kind, id, ++in->n);
		tp_log("get_optional_value", "id=%d ret=1 val=%llu", id, (unsigned long long)*value);
	} else {
		tp_log("get_optional_value", "id=%d ret=0", id);
	}
	return there;
}

static void tp_set_clock_function(uint64_t (*clock_time)(void))
{
	clock_fn = clock_time;
	tp_log("set_clock_function", "now=%llu", (unsigned long long)(clock_time ? clock_time() : 0));
}

static uint64_t tp_get_all_values(int32_t id, SCOREP_MetricTimeValuePair **time_value_list)
{
	struct tp_instance *in = find(id);
	SCOREP_MetricTimeValuePair *out = NULL;
	size_t n = 0;

	if (in) {
		/* Every value is taken before any is returned: the count is exact. */
		if (in->sampling) {
			pthread_join(in->sampler, NULL);
			in->sampling = 0;
		}
		TP_PENDING_TAKE(in, out, n);
	}
	if (!out)
		out = malloc(sizeof(*out));
	TP_LOG_ALL_VALUES(id, out, n);
	*time_value_list = out;
	return n;
}

static void tp_synchronize(bool is_responsible, SCOREP_MetricSynchronizationMode sync_mode)
{
	static const char *const modes[] = { "BEGIN", "BEGIN_MPP", "END" };
	tp_log("synchronize", "responsible=%d mode=%s", is_responsible ? 1 : 0,
	       (unsigned)sync_mode < 3 ? modes[sync_mode] : "?");
}

/* SCOREP_METRIC_PLUGIN_ENTRY pastes its argument: expand TP_ENTRY first. */
#define TP_PLUGIN_ENTRY(name) SCOREP_METRIC_PLUGIN_ENTRY(name)

TP_PLUGIN_ENTRY(TP_ENTRY)
{
	SCOREP_Metric_Plugin_Info info;
	memset(&info, 0, sizeof(info));
	tp_log("get_info", "version=%d sync=%d per=%d delta_t=%llu", TP_VERSION, TP_SYNC, TP_PER,
	       (unsigned long long)TP_DELTA_T);
	info.plugin_version = TP_VERSION;
	info.run_per = TP_PER;
	info.sync = TP_SYNC;
	info.delta_t = TP_DELTA_T;
	info.initialize = tp_initialize;
	info.finalize = tp_finalize;
	info.get_event_info = tp_get_event_info;
	info.add_counter = tp_add_counter;
	switch (TP_SYNC) {
	case SCOREP_METRIC_STRICTLY_SYNC:
		info.get_current_value = tp_get_current_value;
		break;
	case SCOREP_METRIC_SYNC:
		info.get_optional_value = tp_get_optional_value;
		break;
	default:
		info.set_clock_function = tp_set_clock_function;
		info.get_all_values = tp_get_all_values;
		break;
	}
	info.synchronize = tp_synchronize;
	return info;
}
