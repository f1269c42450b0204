/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Score-P metric plugin in the style of the published fileparser plugin, for vt's tests:
 * each metric is a file whose first number is read at every event (strictly synchronous,
 * per thread). Built as fileparser_plugin (-DFP_ENTRY=fileparser_plugin), configured as
 *
 *     SCOREP_METRIC_PLUGINS=fileparser_plugin SCOREP_METRIC_FILEPARSER_PLUGIN=/path/file
 *
 * and as fileparser, whose users' README-style configuration says
 * SCOREP_METRIC_FILEPARSER_PLUGIN too (vt reads it when SCOREP_METRIC_FILEPARSER is unset).
 */
#include <scorep/SCOREP_MetricPlugins.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FP_ENTRY
#error "build with -DFP_ENTRY=<plugin name as a token>"
#endif

#define MAX_FILES 64

static char *files[MAX_FILES];
static int n_files;

static int32_t init(void)
{
	return 0;
}

static void fini(void)
{
}

static SCOREP_Metric_Plugin_MetricProperties *event_info(char *token)
{
	SCOREP_Metric_Plugin_MetricProperties *p = calloc(2, sizeof(*p));
	if (!p)
		return NULL;
	p[0].name = strdup(token);
	p[0].description = strdup("first number of the file");
	p[0].mode = SCOREP_METRIC_MODE_ABSOLUTE_POINT;
	p[0].value_type = SCOREP_METRIC_VALUE_INT64;
	p[0].base = SCOREP_METRIC_BASE_DECIMAL;
	p[0].unit = strdup("#");
	return p;
}

static int32_t add(char *name)
{
	int i = __atomic_fetch_add(&n_files, 1, __ATOMIC_RELAXED);
	if (i >= MAX_FILES || !(files[i] = strdup(name)))
		return -1;
	return i;
}

static uint64_t current(int32_t id)
{
	long long v = 0;
	FILE *f = fopen(files[id], "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return (uint64_t)v;
}

/* FP_ENTRY expanded before SCOREP_METRIC_PLUGIN_ENTRY pastes it into the function's name. */
#define FP_PLUGIN_ENTRY(name) SCOREP_METRIC_PLUGIN_ENTRY(name)

FP_PLUGIN_ENTRY(FP_ENTRY)
{
	SCOREP_Metric_Plugin_Info i;
	memset(&i, 0, sizeof(i));
	i.plugin_version = SCOREP_METRIC_PLUGIN_VERSION;
	i.run_per = SCOREP_METRIC_PER_THREAD;
	i.sync = SCOREP_METRIC_STRICTLY_SYNC;
	i.initialize = init;
	i.finalize = fini;
	i.get_event_info = event_info;
	i.add_counter = add;
	i.get_current_value = current;
	return i;
}
