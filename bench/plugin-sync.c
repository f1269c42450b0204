/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libbenchsync.so: the trivial synchronous counters of the plugin variants of the overhead
 * benchmark (docs/bench.md). Per thread; each read is as cheap as a read can be, so that
 * what the benchmark shows is vt's cost of hosting a counter, not the counter's:
 *   const0 ... const9   always 42
 *   inc0 ... inc9       1, 2, 3, ... per thread (a thread-local increment)
 * Names may be patterns (VT_PLUGIN_CNTR_METRICS=benchsync_const*: all ten constants).
 */
#include <vampirtrace/vt_plugin_cntr.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_EACH 10
#define EXPORT __attribute__((visibility("default")))

/* initial-exec: one offset from the thread pointer, no __tls_get_addr on the read. glibc
 * keeps static TLS room for dlopen'd libraries this small. */
static __thread uint64_t incs[N_EACH] __attribute__((tls_model("initial-exec")));

/* id = k for constK, N_EACH + k for incK. */
static int id_of(const char *name)
{
	int k;
	char tail;
	if (sscanf(name, "const%d%c", &k, &tail) == 1 && k >= 0 && k < N_EACH)
		return k;
	if (sscanf(name, "inc%d%c", &k, &tail) == 1 && k >= 0 && k < N_EACH)
		return N_EACH + k;
	return -1;
}

static int32_t bs_init(void)
{
	return 0;
}

static vt_plugin_cntr_metric_info *bs_get_event_info(char *pattern)
{
	vt_plugin_cntr_metric_info *list = calloc(2 * N_EACH + 1, sizeof(*list));
	size_t n = 0;
	if (!list)
		return NULL;
	for (int i = 0; i < 2 * N_EACH; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%s%d", i < N_EACH ? "const" : "inc", i % N_EACH);
		if (fnmatch(pattern, name, 0) != 0)
			continue;
		list[n].name = strdup(name);
		list[n].unit = strdup("#");
		list[n].cntr_property = i < N_EACH ? VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_UNSIGNED
						   : VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_UNSIGNED;
		n++;
	}
	if (n == 0) {
		free(list);
		return NULL;
	}
	return list;
}

static int32_t bs_add_counter(char *name)
{
	return id_of(name);
}

static uint64_t bs_get_current_value(int32_t id)
{
	if (id < N_EACH)
		return 42;
	return ++incs[id - N_EACH];
}

EXPORT vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.init = bs_init;
	info.get_event_info = bs_get_event_info;
	info.add_counter = bs_add_counter;
	info.get_current_value = bs_get_current_value;
	info.synch = VT_PLUGIN_CNTR_SYNCH;
	info.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	return info;
}
