/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Score-P metric plugin in the style of the published perf plugin, for vt's tests: named
 * perf_plugin (libperf_plugin.so), configured as its users configure it:
 *
 *     SCOREP_METRIC_PLUGINS=perf_plugin SCOREP_METRIC_PERF_PLUGIN=page-faults,task-clock
 *
 * Each metric is a Linux software perf event of the calling thread (perf_event_open),
 * read at every event (strictly synchronous, per thread).
 */
#include <scorep/SCOREP_MetricPlugins.h>

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS 256

static int fds[MAX_FDS];
static int n_fds;

static int32_t init(void)
{
	return 0;
}

static void fini(void)
{
	for (int i = 0; i < n_fds && i < MAX_FDS; i++)
		close(fds[i]);
}

static long config_of(const char *name)
{
	if (strcmp(name, "page-faults") == 0)
		return PERF_COUNT_SW_PAGE_FAULTS;
	if (strcmp(name, "task-clock") == 0)
		return PERF_COUNT_SW_TASK_CLOCK;
	return -1;
}

static SCOREP_Metric_Plugin_MetricProperties *event_info(char *token)
{
	SCOREP_Metric_Plugin_MetricProperties *p = calloc(2, sizeof(*p));
	if (!p || config_of(token) < 0)
		return p; /* an empty list: nothing of that name */
	p[0].name = strdup(token);
	p[0].description = strdup("Linux software perf event");
	p[0].mode = SCOREP_METRIC_MODE_ACCUMULATED_START;
	p[0].value_type = SCOREP_METRIC_VALUE_UINT64;
	p[0].base = SCOREP_METRIC_BASE_DECIMAL;
	p[0].unit = strdup(strcmp(token, "task-clock") == 0 ? "ns" : "#");
	return p;
}

static int32_t add(char *name)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = (unsigned long long)config_of(name);
	a.exclude_kernel = 0;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	int i = __atomic_fetch_add(&n_fds, 1, __ATOMIC_RELAXED);
	if (i >= MAX_FDS) {
		close(fd);
		return -1;
	}
	fds[i] = fd;
	return i;
}

static uint64_t current(int32_t id)
{
	uint64_t v = 0;
	if (read(fds[id], &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

SCOREP_METRIC_PLUGIN_ENTRY(perf_plugin)
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
