/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Score-P metric plugin for the vtinfo test: three metrics with descriptions, bases and
 * exponents, and one ("broken") with a mode no Score-P header has. Calls are appended to
 * $SPMETER_LOG.
 */
#include <scorep/SCOREP_MetricPlugins.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const SCOREP_Metric_Plugin_MetricProperties metrics[] = {
	{ "power", "Package power", SCOREP_METRIC_MODE_ABSOLUTE_LAST, SCOREP_METRIC_VALUE_DOUBLE,
	  SCOREP_METRIC_BASE_DECIMAL, 0, "W" },
	{ "energy", "Package energy since start", SCOREP_METRIC_MODE_ACCUMULATED_START,
	  SCOREP_METRIC_VALUE_UINT64, SCOREP_METRIC_BASE_DECIMAL, -3, "J" },
	{ "mem_used", "Memory in use", SCOREP_METRIC_MODE_ABSOLUTE_POINT,
	  SCOREP_METRIC_VALUE_INT64, SCOREP_METRIC_BASE_BINARY, 10, "B" },
	{ "ratio", "", SCOREP_METRIC_MODE_RELATIVE_NEXT, SCOREP_METRIC_VALUE_DOUBLE,
	  SCOREP_METRIC_BASE_DECIMAL, 0, "" },
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static uint64_t (*clock_fn)(void);

static void logs(const char *what, const char *arg)
{
	const char *path = getenv("SPMETER_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	fprintf(f, "%s%s%s\n", what, *arg ? " " : "", arg);
	fclose(f);
}

static int32_t sp_initialize(void)
{
	logs("initialize", "");
	if (clock_fn) {
		uint64_t a = clock_fn(), b = clock_fn();
		logs("clock", a > 0 && b >= a ? "increases" : "is broken");
	}
	return 0;
}

static void sp_finalize(void)
{
	logs("finalize", "");
}

static SCOREP_Metric_Plugin_MetricProperties *sp_get_event_info(char *token)
{
	SCOREP_Metric_Plugin_MetricProperties *list = calloc(N_METRICS + 1, sizeof(*list));
	size_t n = 0;
	logs("get_event_info", token);
	if (!list)
		return NULL;
	if (strcmp(token, "broken") == 0) {
		list[0] = metrics[0];
		list[0].mode = (SCOREP_MetricMode)42;
		list[0].name = strdup("broken");
		list[0].description = strdup("");
		list[0].unit = strdup("");
		return list;
	}
	for (size_t i = 0; i < N_METRICS; i++) {
		if (fnmatch(token, metrics[i].name, 0) != 0)
			continue;
		list[n] = metrics[i];
		list[n].name = strdup(metrics[i].name);
		list[n].description = strdup(metrics[i].description);
		list[n].unit = strdup(metrics[i].unit);
		n++;
	}
	return list; /* an empty list when nothing matched */
}

static int32_t sp_add_counter(char *name)
{
	return 0;
}

static void sp_set_clock(uint64_t (*fn)(void))
{
	logs("set_clock_function", "");
	clock_fn = fn;
}

static uint64_t sp_get_all_values(int32_t id, SCOREP_MetricTimeValuePair **list)
{
	*list = NULL;
	return 0;
}

SCOREP_METRIC_PLUGIN_ENTRY(Spmeter)
{
	SCOREP_Metric_Plugin_Info info;
	memset(&info, 0, sizeof(info));
	logs("get_info", "");
	info.plugin_version = SCOREP_METRIC_PLUGIN_VERSION;
	info.run_per = SCOREP_METRIC_PER_HOST;
	info.sync = SCOREP_METRIC_ASYNC_EVENT;
	info.delta_t = 5000;
	info.initialize = sp_initialize;
	info.finalize = sp_finalize;
	info.get_event_info = sp_get_event_info;
	info.add_counter = sp_add_counter;
	info.set_clock_function = sp_set_clock;
	info.get_all_values = sp_get_all_values;
	return info;
}
