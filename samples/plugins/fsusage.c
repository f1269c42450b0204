/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fsusage: how full the file system is that the trace is written to, once per run (ONCE),
 * from statvfs(3) of VT_PFORM_GDIR (or the working directory when it is not set).
 *
 * Counters (VT_PLUGIN_CNTR_METRICS=fsusage_* or by name, with wildcards):
 *   fs_size           size of the file system, bytes
 *   fs_used           bytes in use
 *   fs_available      bytes an unprivileged user may still write
 *   fs_free_inodes    inodes an unprivileged user may still take (0 where the file system
 *                     does not count them)
 *
 * Asynchronous on-event: a reading when the counter is enabled, one each time vt collects
 * (at every buffer flush of the first thread, which is when the trace grows), and one when
 * the counter is disabled at the end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <vampirtrace/vt_plugin_cntr.h>

#include "vt_sample_util.h"

#define PLUGIN "fsusage plugin"

enum kind { FS_SIZE, FS_USED, FS_AVAILABLE, FS_FREE_INODES, N_KINDS };
static const struct {
	const char *name, *unit;
} kinds[N_KINDS] = {
    [FS_SIZE] = {"fs_size", "B"},
    [FS_USED] = {"fs_used", "B"},
    [FS_AVAILABLE] = {"fs_available", "B"},
    [FS_FREE_INODES] = {"fs_free_inodes", "#"},
};

struct counter {
	enum kind kind;
	bool enabled;
	struct vts_values vals; /* not yet collected */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct counter *counters; /* guarded by lock */
static size_t n_counters, cap_counters;
static char *dir;
static uint64_t (*wtime)(void);

static void set_wtime(uint64_t (*f)(void))
{
	wtime = f;
}

static int32_t fsusage_init(void)
{
	struct statvfs st;
	const char *d = getenv("VT_PFORM_GDIR");
	if (vts_need_wtime(PLUGIN, wtime) != 0)
		return -1;
	if (d && *d) {
		dir = strdup(d);
	} else {
		dir = getcwd(NULL, 0);
		if (!dir) {
			fprintf(stderr,
				PLUGIN ": the working directory has no name (%s); no "
				       "counters\n",
				strerror(errno));
			return -1;
		}
	}
	if (!dir)
		return -1;
	if (statvfs(dir, &st) != 0) {
		fprintf(stderr, PLUGIN ": statvfs(\"%s\") failed (%s); no counters\n", dir,
			strerror(errno));
		free(dir);
		dir = NULL;
		return -1;
	}
	return 0;
}

static vt_plugin_cntr_metric_info *fsusage_get_event_info(char *requested)
{
	vt_plugin_cntr_metric_info *list = calloc(N_KINDS + 1, sizeof(*list));
	int n = 0;
	if (!list)
		return NULL;
	for (int k = 0; k < N_KINDS; k++) {
		if (fnmatch(requested, kinds[k].name, 0) != 0)
			continue;
		if (!vts_info_set(&list[n], kinds[k].name, kinds[k].unit,
				  VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT |
				      VT_PLUGIN_CNTR_UNSIGNED))
			break;
		n++;
	}
	if (n == 0)
		fprintf(stderr,
			PLUGIN ": \"%s\" matches no counter (there are fs_size, fs_used, "
			       "fs_available and fs_free_inodes); skipped\n",
			requested);
	return list;
}

static int32_t fsusage_add_counter(char *name)
{
	int k;
	for (k = 0; k < N_KINDS; k++)
		if (strcmp(name, kinds[k].name) == 0)
			break;
	if (k == N_KINDS)
		return -1;
	pthread_mutex_lock(&lock);
	struct counter *nc = vts_grow(counters, &cap_counters, n_counters, sizeof(*nc), 8);
	if (!nc) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	counters = nc;
	int32_t id = (int32_t)n_counters;
	counters[n_counters++] = (struct counter){.kind = (enum kind)k};
	pthread_mutex_unlock(&lock);
	return id;
}

/* Appends a reading of c, now; caller holds lock. */
static void take(struct counter *c)
{
	struct statvfs st;
	uint64_t v;
	uint64_t ts = wtime();
	if (statvfs(dir, &st) != 0)
		return;
	switch (c->kind) {
	case FS_SIZE:
		v = (uint64_t)st.f_blocks * st.f_frsize;
		break;
	case FS_USED:
		v = (uint64_t)(st.f_blocks - st.f_bfree) * st.f_frsize;
		break;
	case FS_AVAILABLE:
		v = (uint64_t)st.f_bavail * st.f_frsize;
		break;
	default:
		v = (uint64_t)st.f_favail;
		break;
	}
	vts_values_push(&c->vals, ts, v, 16);
}

static int32_t fsusage_enable_counter(int32_t id)
{
	pthread_mutex_lock(&lock);
	if (id < 0 || (size_t)id >= n_counters) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	counters[id].enabled = true;
	take(&counters[id]);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int32_t fsusage_disable_counter(int32_t id)
{
	pthread_mutex_lock(&lock);
	if (id < 0 || (size_t)id >= n_counters) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (counters[id].enabled)
		take(&counters[id]);
	counters[id].enabled = false;
	pthread_mutex_unlock(&lock);
	return 0;
}

static uint64_t fsusage_get_all_values(int32_t id, vt_plugin_cntr_timevalue **result)
{
	uint64_t n = 0;
	*result = NULL;
	pthread_mutex_lock(&lock);
	if (id >= 0 && (size_t)id < n_counters) {
		struct counter *c = &counters[id];
		if (c->enabled)
			take(c);
		n = vts_values_take(&c->vals, result);
	}
	pthread_mutex_unlock(&lock);
	return n;
}

static void fsusage_finalize(void)
{
	for (size_t i = 0; i < n_counters; i++)
		free(counters[i].vals.v);
	free(counters);
	counters = NULL;
	n_counters = cap_counters = 0;
	free(dir);
	dir = NULL;
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.run_per = VT_PLUGIN_CNTR_ONCE;
	info.synch = VT_PLUGIN_CNTR_ASYNCH_EVENT;
	info.set_pform_wtime_function = set_wtime;
	info.init = fsusage_init;
	info.get_event_info = fsusage_get_event_info;
	info.add_counter = fsusage_add_counter;
	info.enable_counter = fsusage_enable_counter;
	info.disable_counter = fsusage_disable_counter;
	info.get_all_values = fsusage_get_all_values;
	info.finalize = fsusage_finalize;
	return info;
}
