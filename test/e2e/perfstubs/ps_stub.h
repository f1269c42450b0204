/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A perfstubs-style stub layer, written for vt's tests from the published tool interface
 * (perfstubs_api/tool.h): the library calls these macros; each forwards to the tool's
 * ps_tool_* function when a tool provides one and does nothing otherwise. How the functions
 * are found is chosen at build time, as perfstubs does: PS_STATIC takes their addresses
 * through weak references (resolved when a tool is linked in), otherwise ps_stub_init looks
 * them up with dlsym(RTLD_DEFAULT, ...) (a tool linked or preloaded into the process).
 */
#ifndef PS_STUB_H
#define PS_STUB_H

#include <stdint.h>

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

/* The tool's functions, NULL where it has none. */
struct ps_stub_tool {
	void (*initialize)(void);
	void (*finalize)(void);
	void (*pause_measurement)(void);
	void (*resume_measurement)(void);
	void (*register_thread)(void);
	void (*dump_data)(void);
	void *(*timer_create)(const char *);
	void (*timer_start)(void *);
	void (*timer_stop)(void *);
	void (*start_string)(const char *);
	void (*stop_string)(const char *);
	void (*stop_current)(void);
	void (*set_parameter)(const char *, int64_t);
	void (*dynamic_phase_start)(const char *, int);
	void (*dynamic_phase_stop)(const char *, int);
	void *(*create_counter)(const char *);
	void (*sample_counter)(void *, double);
	void (*set_metadata)(const char *, const char *);
	void (*get_timer_data)(ps_tool_timer_data_t *);
	void (*get_counter_data)(ps_tool_counter_data_t *);
	void (*get_metadata)(ps_tool_metadata_t *);
	void (*free_timer_data)(ps_tool_timer_data_t *);
	void (*free_counter_data)(ps_tool_counter_data_t *);
	void (*free_metadata)(ps_tool_metadata_t *);
};

extern struct ps_stub_tool ps_stub;

/* Finds the tool (once); 1 when there is one. */
int ps_stub_init(void);

#define PS_CALL(f, ...)		(ps_stub.f ? ps_stub.f(__VA_ARGS__) : (void)0)
#define PS_TIMER_CREATE(name)	(ps_stub.timer_create ? ps_stub.timer_create(name) : (void *)0)
#define PS_TIMER_START(t)	PS_CALL(timer_start, t)
#define PS_TIMER_STOP(t)	PS_CALL(timer_stop, t)
#define PS_START_STRING(name)	PS_CALL(start_string, name)
#define PS_STOP_STRING(name)	PS_CALL(stop_string, name)
#define PS_STOP_CURRENT()	(ps_stub.stop_current ? ps_stub.stop_current() : (void)0)
#define PS_PHASE_START(name, i) PS_CALL(dynamic_phase_start, name, i)
#define PS_PHASE_STOP(name, i)	PS_CALL(dynamic_phase_stop, name, i)
#define PS_COUNTER_CREATE(name) (ps_stub.create_counter ? ps_stub.create_counter(name) : (void *)0)
#define PS_SAMPLE_COUNTER(c, v) PS_CALL(sample_counter, c, v)
#define PS_METADATA(name, v)	PS_CALL(set_metadata, name, v)
#define PS_PARAMETER(name, v)	PS_CALL(set_parameter, name, v)
#define PS_REGISTER_THREAD()	(ps_stub.register_thread ? ps_stub.register_thread() : (void)0)
#define PS_PAUSE()		(ps_stub.pause_measurement ? ps_stub.pause_measurement() : (void)0)
#define PS_RESUME()		(ps_stub.resume_measurement ? ps_stub.resume_measurement() : (void)0)
#define PS_DUMP()		(ps_stub.dump_data ? ps_stub.dump_data() : (void)0)

#endif
