/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * myplugin: a synchronous, per-thread counter plugin for vt, written to be copied.
 *
 * It offers two counters:
 *   thread_cpu_time  CPU time of the thread since the counter was added, in ns
 *   reads            how many times vt has read this counter on this thread (1, 2, 3, ...)
 *
 * Build: `meson setup build && ninja -C build`, or `make` (both need vt-plugin.pc on
 * PKG_CONFIG_PATH). Use: VT_PLUGIN_CNTR_PATH=DIR-OF-libmyplugin.so
 * VT_PLUGIN_CNTR_METRICS=myplugin_* ./program-built-with-vtcc
 *
 * To make it yours: rename the file and the library (no '_' in the name: vt splits
 * VT_PLUGIN_CNTR_METRICS entries at the first '_'), replace the table of counters and
 * read_counter(). Everything else is the plumbing every synchronous plugin needs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vampirtrace/vt_plugin_cntr.h>

#define PLUGIN "myplugin"

/* The counters this plugin offers: their names (as the trace will show them), units and
 * properties (see VT_PLUGIN_CNTR_* in vt_plugin_cntr.h). */
enum { CPU_TIME, READS, N_KINDS };
static const struct {
	const char *name, *unit;
	uint32_t property;
} kinds[N_KINDS] = {
    [CPU_TIME] = {"thread_cpu_time", "ns",
		  VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_UNSIGNED},
    [READS] = {"reads", "#", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_UNSIGNED},
};

/*
 * One counter as added on one thread. vt calls add_counter on each thread it records (this
 * is a PER_THREAD plugin), possibly on several threads at once, and then get_current_value
 * with the returned id on that same thread only. So: an id is taken atomically, and a slot
 * is written and read by its own thread alone; no lock is needed.
 */
#define MAX_COUNTERS 4096
static struct slot {
	int kind;
	uint64_t start; /* CPU_TIME: the thread's CPU time when added */
	uint64_t reads; /* READS: reads so far */
} slots[MAX_COUNTERS];
static atomic_int n_slots;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Called once, before anything else; 0 means ready. A plugin whose source of values is
 * missing says so here, once, and returns non-zero: vt then skips it. */
static int32_t my_init(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		fprintf(stderr, PLUGIN ": no per-thread CPU clock here; no counters\n");
		return -1;
	}
	return 0;
}

/*
 * Turns a requested name into the counters it stands for: a list ending with a NULL name,
 * everything malloc'd (VampirTrace and Score-P free it; vt copies it). Wildcards as in the
 * shell: "*" is every counter.
 * NULL or an empty list: nothing by that name (say why: vt only knows that it got none).
 */
static vt_plugin_cntr_metric_info *my_get_event_info(char *requested)
{
	vt_plugin_cntr_metric_info *list = calloc(N_KINDS + 1, sizeof(*list));
	int n = 0;
	if (!list)
		return NULL;
	for (int k = 0; k < N_KINDS; k++) {
		if (fnmatch(requested, kinds[k].name, 0) != 0)
			continue;
		list[n].name = strdup(kinds[k].name);
		list[n].unit = strdup(kinds[k].unit);
		list[n].cntr_property = kinds[k].property;
		if (!list[n].name || !list[n].unit) {
			free(list[n].name);
			free(list[n].unit);
			break;
		}
		n++;
	}
	if (n == 0)
		fprintf(stderr,
			PLUGIN ": no counter matches \"%s\" (there are thread_cpu_time "
			       "and reads)\n",
			requested);
	return list;
}

/* Adds a counter on the calling thread: name is one that get_event_info returned. */
static int32_t my_add_counter(char *name)
{
	int kind = -1;
	for (int k = 0; k < N_KINDS; k++)
		if (strcmp(name, kinds[k].name) == 0)
			kind = k;
	if (kind < 0)
		return -1;
	int id = atomic_fetch_add(&n_slots, 1);
	if (id >= MAX_COUNTERS) {
		fprintf(stderr, PLUGIN ": more than %d counters; %s not added\n", MAX_COUNTERS,
			name);
		return -1;
	}
	slots[id].kind = kind;
	slots[id].start = thread_cpu_ns();
	slots[id].reads = 0;
	return id;
}

/* Called at every event of the thread that added the counter: keep it cheap. */
static uint64_t my_get_current_value(int32_t id)
{
	struct slot *s = &slots[id];
	if (s->kind == CPU_TIME)
		return thread_cpu_ns() - s->start;
	return ++s->reads;
}

/* The one exported symbol: what this plugin is and which functions vt may call. */
vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info)); /* unused functions and reserved words stay zero */
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	info.synch = VT_PLUGIN_CNTR_SYNCH;
	info.init = my_init;
	info.get_event_info = my_get_event_info;
	info.add_counter = my_add_counter;
	info.get_current_value = my_get_current_value;
	return info;
}
