// SPDX-License-Identifier: BSD-3-Clause
// The floor of OMPT tracing: a tool that registers vt's callbacks and does nothing in them.
//
// Loaded with OMP_TOOL_LIBRARIES=libomptnull.so into a program on LLVM's libomp, it makes
// the runtime call the same callbacks vt's tool does (VT_OPENMP=all) with empty bodies:
// what is left is libomp's own cost of having a tool, which vt cannot go below.
// OMPT_NULL_REGIONS=1 registers only the callbacks of VT_OPENMP=regions.
#include <omp-tools.h>
#include <stdlib.h>

static void on_thread(ompt_thread_t type, ompt_data_t *thread)
{
	(void)type, (void)thread;
}

static void on_thread_end(ompt_data_t *thread)
{
	(void)thread;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
			      unsigned int n, int flags, const void *codeptr)
{
	(void)task, (void)frame, (void)par, (void)n, (void)flags, (void)codeptr;
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *codeptr)
{
	(void)par, (void)task, (void)flags, (void)codeptr;
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
			     unsigned int n, unsigned int index, int flags)
{
	(void)ep, (void)par, (void)task, (void)n, (void)index, (void)flags;
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
			   ompt_data_t *task, const void *codeptr)
{
	(void)kind, (void)ep, (void)par, (void)task, (void)codeptr;
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
		    uint64_t count, const void *codeptr)
{
	(void)kind, (void)ep, (void)par, (void)task, (void)count, (void)codeptr;
}

static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
		      const void *codeptr)
{
	(void)ep, (void)par, (void)task, (void)codeptr;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t id, const void *codeptr)
{
	(void)kind, (void)hint, (void)impl, (void)id, (void)codeptr;
}

static void on_mutex(ompt_mutex_t kind, ompt_wait_id_t id, const void *codeptr)
{
	(void)kind, (void)id, (void)codeptr;
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame, ompt_data_t *task,
			   int flags, int deps, const void *codeptr)
{
	(void)parent, (void)frame, (void)task, (void)flags, (void)deps, (void)codeptr;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	(void)prior, (void)status, (void)next;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool)
{
	(void)device, (void)tool;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	const char *regions = getenv("OMPT_NULL_REGIONS");
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread);
	set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	set(ompt_callback_masked, (ompt_callback_t)on_masked);
	if (regions && *regions == '1')
		return 1;
	set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
	set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex);
	set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex);
	set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
	set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	return 1;
}

static void finalize(ompt_data_t *tool)
{
	(void)tool;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	(void)version, (void)runtime;
	static ompt_start_tool_result_t result = {initialize, finalize, {0}};
	return &result;
}
