/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VampirTrace-interface test plugin: one source, built by the tests into many libraries
 * with -D flags. It logs every call vt makes (tp_common.h) and produces values the test
 * can recompute.
 *
 *   -DTP_NAME="tpsyncthread"     the library's name (libtpsyncthread.so), first word of log lines
 *   -DTP_SYNCH=N -DTP_PER=N      its synch and run_per (enum values of vt_plugin_cntr.h)
 * Faults, for the tests of bad plugins:
 *   -DTP_VERSION=N               the interface version it reports (default: the header's)
 *   -DTP_NO_GET_INFO             exports no get_info()
 *   -DTP_INIT_RC=N               what init() returns (default 0)
 *   -DTP_OMIT_CURRENT_VALUE, -DTP_OMIT_ALL_VALUES, -DTP_OMIT_CALLBACK, -DTP_OMIT_WTIME
 *                                leaves that function pointer NULL
 *   -DTP_DISORDER                get_all_values returns each batch newest first
 *   -DTP_OUTSIDE                 the last get_all_values of a counter adds one value stamped
 *                                1 (before the run) first and one far after the run last
 *                                (logged as "@outside" lines)
 *
 * Counters (get_event_info): "c1" (no property bits: accumulated, uint64), "c2" (ABS|START|
 * SIGNED), "d" (ABS|NEXT|DOUBLE), "f" (ACC|ABS|LAST|FLOAT); "c*" offers c1 and c2, "*" all
 * four; "neg" is a counter whose add_counter fails (-1); "nothing" gets NULL, "empty" an
 * empty list. Instance ids count from 100 in the order of add_counter, per process.
 *
 * Values: synchronous: the N-th get_current_value of an instance returns its N-th value.
 * Asynchronous: enable_counter starts a sampler thread per instance that takes $TP_SAMPLES
 * (default 4) values $TP_INTERVAL_US (default 1000) apart, stamped with vt's wtime function,
 * and keeps them for get_all_values (ASYNCH_EVENT, ASYNCH_POST_MORTEM) or sends them through
 * the callback (ASYNCH_CALLBACK; on BUFFER_FULL it retries every millisecond, up to 2000
 * times). disable_counter waits for the sampler, so the number of values is exact.
 */
#include "tp_common.h"

#include <pthread.h>
#include <vampirtrace/vt_plugin_cntr.h>

#ifndef TP_SYNCH
#error "build with -DTP_SYNCH=..."
#endif
#ifndef TP_PER
#error "build with -DTP_PER=..."
#endif
#ifndef TP_VERSION
#define TP_VERSION VT_PLUGIN_CNTR_VERSION
#endif
#ifndef TP_INIT_RC
#define TP_INIT_RC 0
#endif

#define TP_ASYNC (TP_SYNCH != VT_PLUGIN_CNTR_SYNCH)

struct tp_counter_def {
	const char *name;
	const char *unit;
	uint32_t property;
	enum tp_kind kind;
};

static const struct tp_counter_def defs[] = {
	{ "c1", "ticks", 0, TP_UINT },
	{ "c2", "#", VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_SIGNED, TP_INT },
	{ "d", "W", VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_NEXT | VT_PLUGIN_CNTR_DOUBLE, TP_DOUBLE },
	{ "f", "s", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_LAST | VT_PLUGIN_CNTR_FLOAT,
	  TP_FLOAT },
	{ "neg", "", 0, TP_UINT },
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

/* One added counter. Its owner thread reads it (synchronous) or its sampler fills it under
 * mu and get_all_values empties it. */
struct tp_instance {
	const struct tp_counter_def *def;
	int32_t id;
	uint64_t n; /* values produced */
	pthread_mutex_t mu;
	vt_plugin_cntr_timevalue *pending;
	size_t npending, cap;
	pthread_t sampler;
	int sampling;
	int disabled;
	void *obj;
	int32_t (*callback)(void *, vt_plugin_cntr_timevalue);
};

#define MAX_INSTANCES 1024
static struct tp_instance instances[MAX_INSTANCES];
static int ninstances;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t (*wtime)(void);
/* Set on the plugin's own threads: is_thread_registered() says so. */
static __thread int own_thread;

static struct tp_instance *find(int32_t id)
{
	int k = id - 100;
	pthread_mutex_lock(&reg_mu);
	struct tp_instance *in = k >= 0 && k < ninstances ? &instances[k] : NULL;
	pthread_mutex_unlock(&reg_mu);
	return in;
}

static int32_t tp_init(void)
{
	tp_log("init", "ret=%d", TP_INIT_RC);
	return TP_INIT_RC;
}

static void tp_finalize(void)
{
	tp_log("finalize", "%s", "");
}

static vt_plugin_cntr_metric_info *tp_get_event_info(char *event_name)
{
	struct tp_line l;
	tp_begin(&l, "get_event_info");
	tp_add(&l, " name=%s", event_name);
	if (strcmp(event_name, "nothing") == 0) {
		tp_add(&l, " ret=NULL");
		tp_end(&l);
		return NULL;
	}
#ifdef TP_STATIC_NAMES
	/* Against both interfaces' rule (malloc'd list and strings): the host must not free
	 * any of it. */
	static vt_plugin_cntr_metric_info fixed[NDEFS + 1];
	vt_plugin_cntr_metric_info *list = fixed;
	memset(fixed, 0, sizeof(fixed));
#else
	vt_plugin_cntr_metric_info *list = calloc(NDEFS + 1, sizeof(*list));
#endif
	size_t n = 0;
	for (size_t i = 0; i < NDEFS && strcmp(event_name, "empty") != 0; i++) {
		const char *name = defs[i].name;
		int all = strcmp(event_name, "*") == 0 && strcmp(name, "neg") != 0;
		int cs = strcmp(event_name, "c*") == 0 && name[0] == 'c';
		if (all || cs || strcmp(event_name, name) == 0) {
#ifdef TP_STATIC_NAMES
			list[n].name = (char *)name;
			list[n].unit = (char *)defs[i].unit;
#else
			list[n].name = strdup(name);
			list[n].unit = strdup(defs[i].unit);
#endif
			list[n].cntr_property = defs[i].property;
			n++;
		}
	}
	tp_add(&l, " ret=");
	for (size_t i = 0; i < n; i++)
		tp_add(&l, "%s%s", i ? "," : "", list[i].name);
	if (n == 0)
		tp_add(&l, "empty");
	tp_end(&l);
	return list;
}

static int32_t tp_add_counter(char *event_name)
{
	const struct tp_counter_def *def = NULL;
	for (size_t i = 0; i < NDEFS; i++)
		if (strcmp(event_name, defs[i].name) == 0)
			def = &defs[i];
	int32_t id = -1;
	if (def && strcmp(def->name, "neg") != 0) {
		pthread_mutex_lock(&reg_mu);
		if (ninstances < MAX_INSTANCES) {
			struct tp_instance *in = &instances[ninstances];
			memset(in, 0, sizeof(*in));
			in->def = def;
			in->id = id = 100 + ninstances;
			pthread_mutex_init(&in->mu, NULL);
			ninstances++;
		}
		pthread_mutex_unlock(&reg_mu);
	}
	tp_log("add_counter", "name=%s ret=%d kind=%s", event_name, id,
	       def ? tp_kind_name(def->kind) : "?");
	return id;
}

/* Logs one callback and its answer. */
static int32_t send_value(struct tp_instance *in, vt_plugin_cntr_timevalue tv)
{
	int32_t rc = in->callback(in->obj, tv);
	tp_log("@callback", "id=%d ts=%llu val=%llu ret=%d", in->id, (unsigned long long)tv.timestamp,
	       (unsigned long long)tv.value, rc);
	return rc;
}

static void *sampler_main(void *arg)
{
	struct tp_instance *in = arg;
	long samples = tp_env("TP_SAMPLES", 4);
	long interval = tp_env("TP_INTERVAL_US", 1000);

	own_thread = 1;
	tp_log("@thread", "id=%d", in->id);
	for (long s = 0; s < samples; s++) {
		usleep((useconds_t)interval);
		vt_plugin_cntr_timevalue tv;
		tv.timestamp = wtime();
		pthread_mutex_lock(&in->mu);
		tv.value = tp_value(in->def->kind, in->id, ++in->n);
		pthread_mutex_unlock(&in->mu);
		tp_log("@sample", "id=%d ts=%llu val=%llu", in->id, (unsigned long long)tv.timestamp,
		       (unsigned long long)tv.value);
		if (TP_SYNCH == VT_PLUGIN_CNTR_ASYNCH_CALLBACK) {
			int32_t rc = send_value(in, tv);
			for (int tries = 0; rc == VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL && tries < 2000;
			     tries++) {
				usleep(1000);
				rc = send_value(in, tv);
			}
			if (rc == VT_PLUGIN_CNTR_CALLBACK_TRACE_OFF_PERMANENT)
				break;
			continue;
		}
		pthread_mutex_lock(&in->mu);
		TP_PENDING_PUSH(in, tv);
		pthread_mutex_unlock(&in->mu);
	}
	return NULL;
}

static int32_t tp_enable_counter(int32_t id)
{
	struct tp_instance *in = find(id);
	int32_t rc = in ? 0 : -1;
	tp_log("enable_counter", "id=%d ret=%d", id, rc);
	if (in && TP_ASYNC && !in->sampling && wtime) {
		if (pthread_create(&in->sampler, NULL, sampler_main, in) == 0)
			in->sampling = 1;
	}
	return rc;
}

static int32_t tp_disable_counter(int32_t id)
{
	struct tp_instance *in = find(id);
	/* Every value is taken (and sent) before the counter stops. */
	if (in && in->sampling) {
		pthread_join(in->sampler, NULL);
		in->sampling = 0;
	}
	if (in)
		in->disabled = 1;
	tp_log("disable_counter", "id=%d ret=%d", id, in ? 0 : -1);
	return in ? 0 : -1;
}

static int32_t tp_is_thread_registered(void)
{
	tp_log("is_thread_registered", "ret=%d", own_thread);
	return own_thread;
}

static uint64_t tp_get_current_value(int32_t id)
{
	struct tp_instance *in = find(id);
	uint64_t v = in ? tp_value(in->def->kind, id, ++in->n) : 0;
	tp_log("get_current_value", "id=%d ret=%llu", id, (unsigned long long)v);
	return v;
}

static void tp_set_pform_wtime_function(uint64_t (*pform_wtime)(void))
{
	wtime = pform_wtime;
	tp_log("set_pform_wtime_function", "now=%llu",
	       (unsigned long long)(pform_wtime ? pform_wtime() : 0));
}

static uint64_t tp_get_all_values(int32_t id, vt_plugin_cntr_timevalue **result)
{
	struct tp_instance *in = find(id);
	vt_plugin_cntr_timevalue *out = NULL;
	size_t n = 0;

	if (in) {
		TP_PENDING_TAKE(in, out, n);
	}
#ifdef TP_DISORDER
	for (size_t i = 0; i < n / 2; i++) {
		vt_plugin_cntr_timevalue x = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = x;
	}
#endif
#ifdef TP_OUTSIDE
	if (in && in->disabled && wtime) {
		uint64_t now = wtime();
		vt_plugin_cntr_timevalue *p = realloc(out, (n + 2) * sizeof(*p));
		if (p) {
			out = p;
			/* The batch stays in time order: one value stamped before anything vt
			 * can have recorded first, one hours after now in any clock vt may use
			 * last. */
			memmove(out + 1, out, n * sizeof(*out));
			out[0].timestamp = 1;
			out[0].value = tp_value(in->def->kind, id, 100000);
			out[n + 1].timestamp = now + now / 2 + (1ULL << 40);
			out[n + 1].value = tp_value(in->def->kind, id, 100001);
			tp_log("@outside", "id=%d ts=%llu val=%llu", id,
			       (unsigned long long)out[0].timestamp,
			       (unsigned long long)out[0].value);
			tp_log("@outside", "id=%d ts=%llu val=%llu", id,
			       (unsigned long long)out[n + 1].timestamp,
			       (unsigned long long)out[n + 1].value);
			n += 2;
		}
	}
#endif
	if (!out)
		out = malloc(sizeof(*out));
	TP_LOG_ALL_VALUES(id, out, n);
	*result = out;
	return n;
}

static int32_t tp_set_callback_function(void *obj, int32_t id,
					int32_t (*callback_function)(void *, vt_plugin_cntr_timevalue))
{
	struct tp_instance *in = find(id);
	if (in) {
		in->obj = obj;
		in->callback = callback_function;
	}
	tp_log("set_callback_function", "id=%d ret=%d", id, in ? 0 : -1);
	return in ? 0 : -1;
}

#ifdef TP_NO_GET_INFO
/* The same function under another name: the library has no get_info. */
#define get_info tp_info_under_another_name
#endif
vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	tp_log("get_info", "version=%d synch=%d per=%d", TP_VERSION, TP_SYNCH, TP_PER);
	info.vt_plugin_cntr_version = TP_VERSION;
	info.init = tp_init;
	info.get_event_info = tp_get_event_info;
	info.add_counter = tp_add_counter;
	info.enable_counter = tp_enable_counter;
	info.disable_counter = tp_disable_counter;
	info.is_thread_registered = tp_is_thread_registered;
	info.run_per = TP_PER;
	info.synch = TP_SYNCH;
	info.finalize = tp_finalize;
	if (TP_SYNCH == VT_PLUGIN_CNTR_SYNCH) {
#ifndef TP_OMIT_CURRENT_VALUE
		info.get_current_value = tp_get_current_value;
#endif
	} else {
#ifndef TP_OMIT_WTIME
		info.set_pform_wtime_function = tp_set_pform_wtime_function;
#endif
		if (TP_SYNCH == VT_PLUGIN_CNTR_ASYNCH_CALLBACK) {
#ifndef TP_OMIT_CALLBACK
			info.set_callback_function = tp_set_callback_function;
#endif
		} else {
#ifndef TP_OMIT_ALL_VALUES
			info.get_all_values = tp_get_all_values;
#endif
		}
	}
	return info;
}

