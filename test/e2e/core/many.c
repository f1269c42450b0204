/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A synchronous, per-thread counter plugin with MANY_N counters (k0 ... k{N-1}, offered for
 * "*"). The n-th read of kj returns j * 1000 + n, and every read sets errno to EDOM: vt must
 * keep the program's errno, and must fit (or leave out) the values of an event in its buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vampirtrace/vt_plugin_cntr.h>

#define MANY_N 60

static uint64_t reads[MANY_N];

static int32_t init(void)
{
	return 0;
}

static vt_plugin_cntr_metric_info *get_event_info(char *name)
{
	if (strcmp(name, "*") != 0)
		return NULL;
	vt_plugin_cntr_metric_info *list = calloc(MANY_N + 1, sizeof(*list));
	for (int j = 0; list && j < MANY_N; j++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "k%d", j);
		list[j].name = strdup(buf);
		list[j].unit = strdup("#");
		list[j].cntr_property = VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_LAST;
	}
	return list;
}

static int32_t add_counter(char *name)
{
	return (int32_t)strtol(name + 1, NULL, 10);
}

static uint64_t get_current_value(int32_t id)
{
	errno = EDOM;
	return (uint64_t)id * 1000 + ++reads[id];
}

static void finalize(void)
{
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.init = init;
	info.get_event_info = get_event_info;
	info.add_counter = add_counter;
	info.get_current_value = get_current_value;
	info.finalize = finalize;
	info.synch = VT_PLUGIN_CNTR_SYNCH;
	info.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	return info;
}
