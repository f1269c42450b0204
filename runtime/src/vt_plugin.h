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

#include <otf2/otf2.h>

struct vt_tls;
struct vt_loc;
struct vt_mpi_ops;

/* The synchronous counters of one thread, read at each of its events. */
struct vt_metric_sync_ctr {
	uint64_t (*get)(int32_t id); /* strictly synchronous */
	bool (*get_optional)(int32_t id, uint64_t *value); /* Score-P SYNC */
	int32_t id;
	uint32_t metric; /* index of the metric: its MetricClass id */
	uint64_t delta_t, last; /* SYNC: ticks between reads, time of the last */
};

struct vt_metric_sync {
	uint32_t n;
	struct vt_metric_sync_ctr c[];
};

/* Loads the plugins the environment names (at init, once). */
void vt_plugin_init(void);

/* Whether any plugin is loaded. */
bool vt_plugin_active(void);

/* A new thread, before vt records it: true if a plugin says the thread is its own. */
bool vt_plugin_thread_is_plugins(void);

/* A new location, on its thread, before its first event: adds the counters whose scope
 * includes it. */
void vt_plugin_loc_begin(struct vt_tls *t, struct vt_loc *loc);

/* The owner's buffer was flushed (on its thread): collects on-event values. */
void vt_plugin_loc_flush(struct vt_loc *loc);

/* The location's thread ends (on that thread): its counters are disabled and collected. */
void vt_plugin_loc_end(struct vt_tls *t, struct vt_loc *loc);

/* MPI_Init: adds the per-host and once counters where they belong. */
void vt_plugin_mpi_attach(const struct vt_mpi_ops *ops, struct vt_tls *t);

/* Before the locations are finalized: no more synchronous reads. */
void vt_plugin_stop_sync(void);

/* At finalize, before the archive closes: disables and collects every counter, writes and
 * closes the metric locations, finalizes the plugins. end: the run's last timestamp. */
void vt_plugin_finalize(uint64_t end);

/* The encoder: writes a synchronous value record (metric index, value) at ts. */
void vt_metric_write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t metric, uint64_t value);

/* The same for an asynchronous value of instance id (a metric id after the classes). */
void vt_plugin_write_value_instance(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t metric,
				    uint64_t value);

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
	uint32_t id; /* local metric id */
	uint32_t metric; /* index of its MetricClass */
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
