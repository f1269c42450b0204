/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A VampirTrace counter plugin for the vtinfo test: seven counters, one of each property
 * combination vt-info names, offered by shell patterns (fnmatch). Every call is appended to
 * $WILD_LOG so that the test sees the calling order; WILD_SYNCH and WILD_PER choose the
 * synch type and scope, WILD_INIT_FAIL makes init fail.
 */
#include <vampirtrace/vt_plugin_cntr.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *unit;
	uint32_t prop;
} counters[] = {
	{ "ones", "#", VT_PLUGIN_CNTR_ACC },
	{ "cycles", "cycles", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_UNSIGNED },
	{ "temp", "degC", VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_DOUBLE },
	{ "delta", "", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_LAST | VT_PLUGIN_CNTR_SIGNED },
	{ "level", "W", VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_NEXT | VT_PLUGIN_CNTR_FLOAT },
	{ "gauge", "B", VT_PLUGIN_CNTR_ABS },
	{ "mixed", "#", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_NEXT },
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static uint64_t (*wtime)(void);

static void logf_(const char *fmt, const char *arg)
{
	const char *path = getenv("WILD_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	fprintf(f, fmt, arg);
	fputc('\n', f);
	fclose(f);
}

static int32_t wild_init(void)
{
	logf_("init%s", "");
	if (wtime) {
		uint64_t a = wtime(), b = wtime();
		logf_("wtime %s", a > 0 && b >= a ? "increases" : "is broken");
	}
	return getenv("WILD_INIT_FAIL") ? -5 : 0;
}

static vt_plugin_cntr_metric_info *wild_get_event_info(char *pattern)
{
	vt_plugin_cntr_metric_info *list = calloc(N_COUNTERS + 1, sizeof(*list));
	size_t n = 0;
	logf_("get_event_info %s", pattern);
	if (!list)
		return NULL;
	for (size_t i = 0; i < N_COUNTERS; i++) {
		if (fnmatch(pattern, counters[i].name, 0) != 0)
			continue;
		list[n].name = strdup(counters[i].name);
		list[n].unit = strdup(counters[i].unit);
		list[n].cntr_property = counters[i].prop;
		n++;
	}
	if (n == 0) {
		free(list);
		return NULL;
	}
	return list;
}

static int32_t wild_add_counter(char *name)
{
	logf_("add_counter %s", name);
	return 0;
}

static uint64_t wild_get_current_value(int32_t id)
{
	return (uint64_t)id;
}

static void wild_set_wtime(uint64_t (*fn)(void))
{
	logf_("set_pform_wtime_function%s", "");
	wtime = fn;
}

static uint64_t wild_get_all_values(int32_t id, vt_plugin_cntr_timevalue **result)
{
	*result = NULL;
	return 0;
}

static int32_t wild_set_callback(void *obj, int32_t id,
				 int32_t (*cb)(void *, vt_plugin_cntr_timevalue))
{
	return 0;
}

static void wild_finalize(void)
{
	logf_("finalize%s", "");
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	const char *synch = getenv("WILD_SYNCH"), *per = getenv("WILD_PER");
	memset(&info, 0, sizeof(info));
	logf_("get_info%s", "");
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.init = wild_init;
	info.get_event_info = wild_get_event_info;
	info.add_counter = wild_add_counter;
	info.get_current_value = wild_get_current_value;
	info.set_pform_wtime_function = wild_set_wtime;
	info.get_all_values = wild_get_all_values;
	info.set_callback_function = wild_set_callback;
	info.finalize = wild_finalize;
	info.synch = synch ? atoi(synch) : VT_PLUGIN_CNTR_SYNCH;
	info.run_per = per ? atoi(per) : VT_PLUGIN_CNTR_PER_THREAD;
	return info;
}
