/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading counter plugins of both interfaces, shared by the runtime and vt-info --plugins. */
/*
 * Loading counter plugins: VampirTrace plugins (vt_plugin_cntr.h) and Score-P metric plugins
 * (SCOREP_MetricPlugins.h) opened, checked and expanded into one normalised description,
 * which the runtime (vt_metric_plugins.c) records and vt-info --plugins prints. Nothing here
 * touches the trace; it is shared by both.
 */
#ifndef VT_PLUGIN_LOAD_H
#define VT_PLUGIN_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/vt_metric.h"

#include <scorep/SCOREP_MetricPlugins.h>
#include <vampirtrace/vt_plugin_cntr.h>

enum vt_plugin_abi { VT_PLUGIN_ABI_VT, VT_PLUGIN_ABI_SCOREP };

/* A loaded plugin: the metric source it is (name, how and where its counters are read, the
 * counters), and what only the loader and the plugin sources (vt_metric_plugins.c) need. */
struct vt_plugin {
	struct vt_metric_source src;
	char *path; /* what dlopen found */
	enum vt_plugin_abi abi;
	uint32_t version;
	void *dl;
	vt_plugin_cntr_info vt;	      /* abi VT */
	SCOREP_Metric_Plugin_Info sp; /* abi SCOREP */
	bool initialised;
	struct vt_plugin *next;
};

/*
 * Opens libNAME.so (first in the ':'-separated directories of path, then where dlopen
 * looks), checks its get_info against the interface, hands over the clock of asynchronous
 * plugins (wtime), and calls init. Returns the plugin, or NULL after one error line that
 * names the plugin, what was wrong and that it is skipped.
 */
struct vt_plugin *vt_plugin_open(const char *name, enum vt_plugin_abi abi, const char *path,
				 uint64_t (*wtime)(void));

/*
 * Which interface libNAME.so offers, for callers that are not told (vt-info --plugins):
 * VT_PLUGIN_ABI_VT when the library defines get_info itself, else VT_PLUGIN_ABI_SCOREP when
 * it defines SCOREP_MetricPlugin_NAME_get_info. Returns 0, or -1 (silently) when it does not
 * load or defines neither; vt_plugin_open then says why. The library stays loaded.
 */
int vt_plugin_detect_abi(const char *name, const char *path, enum vt_plugin_abi *abi);

/* Asks the plugin for the counters of one requested name and appends them; the number
 * added (0 after a message: nothing offered, or all were bad). */
size_t vt_plugin_expand(struct vt_plugin *p, const char *requested);

/* finalize (if init ran), dlclose, free. */
void vt_plugin_close(struct vt_plugin *p);

/* Names for messages and vt-info. */
const char *vt_plugin_sync_name(const struct vt_plugin *p);
const char *vt_plugin_per_name(enum vt_metric_per per);
/* "accumulated start", "absolute point", ... of an OTF2 metric mode. */
const char *vt_plugin_mode_name(uint32_t mode);
const char *vt_plugin_type_name(const struct vt_metric *m);

/*
 * Parses VT_PLUGIN_CNTR_METRICS ("Lib_counter:Lib2_*") and SCOREP_METRIC_PLUGINS
 * ("name,name2" with SCOREP_METRIC_<NAME>_PLUGIN "tok,tok2") into a list of opened and
 * expanded plugins, each with at least one counter. Bad entries are reported and skipped.
 */
struct vt_plugin *vt_plugin_load_all(const char *vt_spec, const char *scorep_spec, const char *path,
				     uint64_t (*wtime)(void));

#endif
