/* SPDX-License-Identifier: BSD-3-Clause */
/* The stub layer's look-up of the tool (ps_stub.h): weak references or dlsym. */
#define _GNU_SOURCE
#include "ps_stub.h"

#include <dlfcn.h>
#include <stddef.h>

struct ps_stub_tool ps_stub;

#define PS_FUNCTIONS(X)                                                                            \
	X(initialize)                                                                              \
	X(finalize)                                                                                \
	X(pause_measurement)                                                                       \
	X(resume_measurement)                                                                      \
	X(register_thread)                                                                         \
	X(dump_data)                                                                               \
	X(timer_create)                                                                            \
	X(timer_start)                                                                             \
	X(timer_stop)                                                                              \
	X(start_string)                                                                            \
	X(stop_string)                                                                             \
	X(stop_current)                                                                            \
	X(set_parameter)                                                                           \
	X(dynamic_phase_start)                                                                     \
	X(dynamic_phase_stop)                                                                      \
	X(create_counter)                                                                          \
	X(sample_counter)                                                                          \
	X(set_metadata)                                                                            \
	X(get_timer_data)                                                                          \
	X(get_counter_data)                                                                        \
	X(get_metadata)                                                                            \
	X(free_timer_data)                                                                         \
	X(free_counter_data)                                                                       \
	X(free_metadata)

#ifdef PS_STATIC
/* Weak references: each is NULL unless a tool linked into the program defines it. */
void ps_tool_initialize(void) __attribute__((weak));
void ps_tool_finalize(void) __attribute__((weak));
void ps_tool_pause_measurement(void) __attribute__((weak));
void ps_tool_resume_measurement(void) __attribute__((weak));
void ps_tool_register_thread(void) __attribute__((weak));
void ps_tool_dump_data(void) __attribute__((weak));
void *ps_tool_timer_create(const char *) __attribute__((weak));
void ps_tool_timer_start(void *) __attribute__((weak));
void ps_tool_timer_stop(void *) __attribute__((weak));
void ps_tool_start_string(const char *) __attribute__((weak));
void ps_tool_stop_string(const char *) __attribute__((weak));
void ps_tool_stop_current(void) __attribute__((weak));
void ps_tool_set_parameter(const char *, int64_t) __attribute__((weak));
void ps_tool_dynamic_phase_start(const char *, int) __attribute__((weak));
void ps_tool_dynamic_phase_stop(const char *, int) __attribute__((weak));
void *ps_tool_create_counter(const char *) __attribute__((weak));
void ps_tool_sample_counter(void *, double) __attribute__((weak));
void ps_tool_set_metadata(const char *, const char *) __attribute__((weak));
void ps_tool_get_timer_data(ps_tool_timer_data_t *) __attribute__((weak));
void ps_tool_get_counter_data(ps_tool_counter_data_t *) __attribute__((weak));
void ps_tool_get_metadata(ps_tool_metadata_t *) __attribute__((weak));
void ps_tool_free_timer_data(ps_tool_timer_data_t *) __attribute__((weak));
void ps_tool_free_counter_data(ps_tool_counter_data_t *) __attribute__((weak));
void ps_tool_free_metadata(ps_tool_metadata_t *) __attribute__((weak));
#define FIND(f) ps_stub.f = ps_tool_##f;
#else
#define FIND(f) *(void **)&ps_stub.f = dlsym(RTLD_DEFAULT, "ps_tool_" #f);
#endif

int ps_stub_init(void)
{
	static int done, found;
	if (done)
		return found;
	done = 1;
	PS_FUNCTIONS(FIND)
	/* As in perfstubs: no initialize, no tool. */
	if (!ps_stub.initialize) {
		ps_stub = (struct ps_stub_tool){0};
		return 0;
	}
	ps_stub.initialize();
	found = 1;
	return 1;
}
