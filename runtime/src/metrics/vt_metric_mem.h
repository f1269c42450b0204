/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory counters of VT_MEMTRACE: bytes allocated now, their high-water mark, allocations. */
#ifndef VT_METRIC_MEM_H
#define VT_METRIC_MEM_H

#include "metrics/vt_metric.h"

/* The source of the three counters (VT_MEMTRACE=yes), or NULL. */
struct vt_metric_source *vt_metric_mem_load(uint64_t (*wtime)(void));

/* The hook of interpose/vt_mem.h: the program changed its memory by delta bytes with allocs
 * allocations (not counted inside vt, on its threads, or while vt does not record). */
bool vt_metric_mem_count(int64_t delta, uint32_t allocs);

/* The hooks of interpose/vt_mem.h with VT_MEMTRACE=regions: a call's region begins (the
 * thread's state, or NULL: not recorded) and ends. */
void *vt_metric_mem_enter(uint32_t fn);
void vt_metric_mem_leave(void *thread, uint32_t fn);

/* The counters now (for tests and messages). */
void vt_metric_mem_values(int64_t *now, uint64_t *high_water, uint64_t *allocs);

#endif
