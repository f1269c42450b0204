/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter plugin host: adds the counters of loaded plugins where their scope says,
 * records synchronous values with the events of their thread and asynchronous ones on
 * locations of their own, and defines them all as OTF2 metrics. The contract with plugins
 * and with readers of the trace is docs/dev/plugin-host.md.
 */
#ifndef VT_PLUGIN_H
#define VT_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "vt_metric.h"

#include <otf2/otf2.h>

struct vt_tls;
struct vt_loc;
struct vt_mpi_ops;

/*
 * Definitions. Metrics (MetricMember and MetricClass share the id: the metric's index),
 * instances (ids after the metrics) and their METRIC locations.
 */
struct vt_plugin_def_metric {
	const char *name, *unit, *description;
	uint32_t mode;
	uint8_t type, base, occurrence, recorder_kind;
	int64_t exponent;
};

enum vt_plugin_scope { VT_SCOPE_LOCATION, VT_SCOPE_PROCESS, VT_SCOPE_HOST, VT_SCOPE_RUN };

struct vt_plugin_def_instance {
	uint32_t id;	   /* local metric id */
	uint32_t metric;   /* index of its MetricClass */
	uint64_t recorder; /* ref of its METRIC location */
	const char *recorder_name;
	uint64_t events;
	enum vt_plugin_scope scope;
	uint64_t owner; /* ref of the owner location (VT_SCOPE_LOCATION) */
};

/* The latest timestamp of an asynchronous value written (0: none): the trace ends there
 * at the earliest. */
uint64_t vt_plugin_last_ts(void);

/* The metrics and the instances this process recorded (valid until exit). */
const struct vt_plugin_def_metric *vt_plugin_def_metrics(uint32_t *n);
const struct vt_plugin_def_instance *vt_plugin_def_instances(uint32_t *n);

#endif
