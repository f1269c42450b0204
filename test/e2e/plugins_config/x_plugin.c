/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A VampirTrace counter plugin whose library name has an '_' in it (libx_plugin.so), for
 * vt's tests: VT_PLUGIN_CNTR_METRICS=x_plugin_counter must find it although the text before
 * the first '_' names no library. Its counter "counter" answers 1, 2, 3... per thread.
 */
#include <vampirtrace/vt_plugin_cntr.h>

#include <stdlib.h>
#include <string.h>

static __thread uint64_t n;

static int32_t init(void)
{
	return 0;
}

static void fini(void)
{
}

static vt_plugin_cntr_metric_info *event_info(char *name)
{
	vt_plugin_cntr_metric_info *m = calloc(2, sizeof(*m));
	if (!m || strcmp(name, "counter") != 0)
		return m;
	m[0].name = strdup("counter");
	m[0].unit = strdup("#");
	m[0].cntr_property = VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_UNSIGNED | VT_PLUGIN_CNTR_LAST;
	return m;
}

static int32_t add(char *name)
{
	return 0;
}

static uint64_t current(int32_t id)
{
	return ++n;
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info i;
	memset(&i, 0, sizeof(i));
	i.init = init;
	i.finalize = fini;
	i.get_event_info = event_info;
	i.add_counter = add;
	i.get_current_value = current;
	i.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	i.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	i.synch = VT_PLUGIN_CNTR_SYNCH;
	return i;
}
