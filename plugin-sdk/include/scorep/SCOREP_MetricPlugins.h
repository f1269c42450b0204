/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Score-P's metric plugin interface (versions 0 and 1), with Score-P's names and layout,
 * for building Score-P metric plugins against vt. vt loads such a plugin when
 * SCOREP_METRIC_PLUGINS names it; see docs/plugins.md. Written for vt from the published
 * interface; it is not Score-P's file.
 */
#ifndef SCOREP_METRIC_PLUGINS_H
#define SCOREP_METRIC_PLUGINS_H

#include <stdbool.h>
#include <stdint.h>

#include <scorep/SCOREP_MetricTypes.h>

/* The interface version this header describes. Version 0 has no synchronize() and a
 * reserved tail of 100 words; vt loads both. */
#define SCOREP_METRIC_PLUGIN_VERSION 1

/* Visible also when the plugin is built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define SCOREP_METRIC_PLUGIN_EXPORT_ __attribute__((visibility("default")))
#else
#define SCOREP_METRIC_PLUGIN_EXPORT_
#endif

/* The name of the function a plugin NAME exports (libNAME.so). */
#ifdef __cplusplus
#define SCOREP_METRIC_PLUGIN_ENTRY(_name)                                                          \
	extern "C" SCOREP_METRIC_PLUGIN_EXPORT_ SCOREP_Metric_Plugin_Info                          \
	    SCOREP_MetricPlugin_##_name##_get_info(void)
#else
#define SCOREP_METRIC_PLUGIN_ENTRY(_name)                                                          \
	SCOREP_METRIC_PLUGIN_EXPORT_ SCOREP_Metric_Plugin_Info                                     \
	    SCOREP_MetricPlugin_##_name##_get_info(void)
#endif

/* One metric that get_event_info offers; a list ends at name == NULL. Score-P frees the
 * list and its strings; vt copies what it needs and frees none of them. */
typedef struct SCOREP_Metric_Plugin_MetricProperties {
	char *name;
	char *description;
	SCOREP_MetricMode mode;
	SCOREP_MetricValueType value_type;
	SCOREP_MetricBase base;
	int64_t exponent;
	char *unit;
} SCOREP_Metric_Plugin_MetricProperties;

/* What SCOREP_MetricPlugin_NAME_get_info returns. Unused members stay zero. */
typedef struct SCOREP_Metric_Plugin_Info {
	/* SCOREP_METRIC_PLUGIN_VERSION of the header the plugin was built with. */
	uint32_t plugin_version;
	SCOREP_MetricPer run_per;
	SCOREP_MetricSynchronicity sync;
	/* SYNC, ASYNC_EVENT, ASYNC: at least this many ticks between two reads. */
	uint64_t delta_t;
	/* Once per process; 0 on success. */
	int32_t (*initialize)(void);
	/* Once per process, at the end. */
	void (*finalize)(void);
	/* The metrics a requested token stands for; NULL-name terminated. */
	SCOREP_Metric_Plugin_MetricProperties *(*get_event_info)(char *token);
	/* Adds a metric on the calling thread; its id (>= 0), or < 0 on failure. */
	int32_t (*add_counter)(char *metric_name);
	/* STRICTLY_SYNC: the current value. */
	uint64_t (*get_current_value)(int32_t id);
	/* SYNC: the current value if there is one (true), else false. */
	bool (*get_optional_value)(int32_t id, uint64_t *value);
	/* Asynchronous plugins: the clock to timestamp values with, before initialize. */
	void (*set_clock_function)(uint64_t (*clock_time)(void));
	/* ASYNC_EVENT, ASYNC: the values since the last call (malloc'd; the host frees). */
	uint64_t (*get_all_values)(int32_t id, SCOREP_MetricTimeValuePair **time_value_list);
	/* Version 1: start (BEGIN, BEGIN_MPP) and end (END) of the measurement. */
	void (*synchronize)(bool is_responsible, SCOREP_MetricSynchronizationMode sync_mode);
	uint64_t reserved[92];
} SCOREP_Metric_Plugin_Info;

#endif
