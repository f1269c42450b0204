/* SPDX-License-Identifier: BSD-3-Clause */
/* The perfstubs tool interface libvt provides (vt_perfstubs.c), as perfstubs' tool.h has it. */
#ifndef VT_PERFSTUBS_H
#define VT_PERFSTUBS_H

#include <stdint.h>

/* The data structures of the interface (perfstubs_api/tool.h), field for field. */
typedef struct ps_tool_timer_data {
	unsigned int num_timers;
	unsigned int num_threads;
	unsigned int num_metrics;
	char **timer_names;
	char **metric_names;
	double *values;
} ps_tool_timer_data_t;

typedef struct ps_tool_counter_data {
	unsigned int num_counters;
	unsigned int num_threads;
	char **counter_names;
	double *num_samples;
	double *value_total;
	double *value_min;
	double *value_max;
	double *value_sumsqr;
} ps_tool_counter_data_t;

typedef struct ps_tool_metadata {
	unsigned int num_values;
	char **names;
	char **values;
} ps_tool_metadata_t;

void ps_tool_initialize(void);
void ps_tool_finalize(void);
void ps_tool_register_thread(void);
void ps_tool_dump_data(void);
void ps_tool_pause_measurement(void);
void ps_tool_resume_measurement(void);
void *ps_tool_timer_create(const char *name);
void ps_tool_timer_start(void *timer);
void ps_tool_timer_stop(void *timer);
void ps_tool_start_string(const char *name);
void ps_tool_stop_string(const char *name);
void ps_tool_stop_current(void);
void ps_tool_dynamic_phase_start(const char *name, int iteration);
void ps_tool_dynamic_phase_stop(const char *name, int iteration);
void *ps_tool_create_counter(const char *name);
void ps_tool_sample_counter(void *counter, double value);
void ps_tool_set_metadata(const char *name, const char *value);
void ps_tool_set_parameter(const char *name, int64_t value);
void ps_tool_get_timer_data(ps_tool_timer_data_t *d);
void ps_tool_free_timer_data(ps_tool_timer_data_t *d);
void ps_tool_get_counter_data(ps_tool_counter_data_t *d);
void ps_tool_free_counter_data(ps_tool_counter_data_t *d);
void ps_tool_get_metadata(ps_tool_metadata_t *d);
void ps_tool_free_metadata(ps_tool_metadata_t *d);

#endif
