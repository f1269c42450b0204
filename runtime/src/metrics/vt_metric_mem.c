/* SPDX-License-Identifier: BSD-3-Clause */
/* A metric source: the process's memory counters (VT_MEMTRACE), kept by every allocation. */
#include "metrics/vt_metric_mem.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "interpose/vt_mem.h"
#include "record/vt_buf.h"

#include <otf2/otf2.h>
#include <stdlib.h>

/*
 * Three counters of the process, kept by interpose/vt_malloc.c's calls with two or three
 * atomic operations (no event): the bytes allocated now and their high-water mark, in usable
 * sizes (malloc_usable_size: what a block really holds, and what it gives back), and the
 * allocations made (every malloc, calloc, realloc and aligned form that returned a block).
 * With VT_MEMTRACE=yes they are written once, at the end (a post-mortem source: a METRIC
 * location of the process with one value of each), so the program pays no event per
 * allocation. With VT_MEMTRACE=events they are also a strictly synchronous source of every
 * thread: each Enter and Leave carries the process's three values at that moment (three
 * atomic loads), which shows the memory over time and, between a region's Enter and Leave,
 * what it allocated (vt-profile --memory); still no event per allocation.
 */
enum { MEM_NOW, MEM_HIGH_WATER, MEM_ALLOCS, MEM_N };

static struct {
	struct vt_metric_source source;
	struct vt_metric metrics[MEM_N];
	uint64_t (*wtime)(void);
	int64_t now;
	uint64_t high_water, allocs;
} mem = {
    .source.name = "memory",
    .source.what = "memory counters",
    .source.sync = VT_METRIC_POST_MORTEM,
    .source.per = VT_METRIC_PER_PROCESS,
    .metrics =
	{
	    [MEM_NOW] = {.name = "mem_allocated",
			 .unit = "bytes",
			 .description = "bytes allocated by the program (malloc and its family)",
			 .mode = OTF2_METRIC_ABSOLUTE_POINT,
			 .type = OTF2_TYPE_INT64,
			 .base = OTF2_BASE_BINARY},
	    [MEM_HIGH_WATER] = {.name = "mem_high_water",
				.unit = "bytes",
				.description = "the most bytes the program had allocated at once",
				.mode = OTF2_METRIC_ABSOLUTE_POINT,
				.type = OTF2_TYPE_UINT64,
				.base = OTF2_BASE_BINARY},
	    [MEM_ALLOCS] = {.name = "mem_allocations",
			    .unit = "#",
			    .description = "allocations made by the program",
			    .mode = OTF2_METRIC_ACCUMULATED_START,
			    .type = OTF2_TYPE_UINT64,
			    .base = OTF2_BASE_DECIMAL},
	},
};

void vt_metric_mem_count(int64_t delta, uint32_t allocs)
{
	struct vt_tls *t = &vt_tls;
	/* vt's own code and threads (busy), a producer a signal interrupted, a thread vt has
	 * switched off: their memory is not the program's. */
	if (t->busy || t->nest || t->state == VT_TLS_OFF || vt_core_state() != VT_STATE_ON)
		return;
	if (allocs)
		__atomic_add_fetch(&mem.allocs, allocs, __ATOMIC_RELAXED);
	int64_t now = __atomic_add_fetch(&mem.now, delta, __ATOMIC_RELAXED);
	if (delta <= 0 || now <= 0)
		return;
	uint64_t high = __atomic_load_n(&mem.high_water, __ATOMIC_RELAXED);
	while ((uint64_t)now > high &&
	       !__atomic_compare_exchange_n(&mem.high_water, &high, (uint64_t)now, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void vt_metric_mem_values(int64_t *now, uint64_t *high_water, uint64_t *allocs)
{
	*now = __atomic_load_n(&mem.now, __ATOMIC_RELAXED);
	*high_water = __atomic_load_n(&mem.high_water, __ATOMIC_RELAXED);
	*allocs = __atomic_load_n(&mem.allocs, __ATOMIC_RELAXED);
}

/* At an Enter or Leave (VT_MEMTRACE=events): counter id's value now. */
static uint64_t get_now(int32_t id)
{
	switch (id) {
	case MEM_NOW:
		return (uint64_t)__atomic_load_n(&mem.now, __ATOMIC_RELAXED);
	case MEM_HIGH_WATER:
		return __atomic_load_n(&mem.high_water, __ATOMIC_RELAXED);
	default:
		return __atomic_load_n(&mem.allocs, __ATOMIC_RELAXED);
	}
}

/* The counter's id is its index. */
static int32_t add(struct vt_metric_source *s, const struct vt_metric *m)
{
	for (int32_t i = 0; i < MEM_N; i++)
		if (m == &mem.metrics[i])
			return i;
	return -1;
}

/* The one value of counter id, now (the end of the run). */
static uint64_t get_all(struct vt_metric_source *s, int32_t id, struct vt_metric_tv **list)
{
	int64_t now;
	uint64_t high, allocs;
	vt_metric_mem_values(&now, &high, &allocs);
	*list = malloc(sizeof(**list));
	if (!*list)
		return 0;
	uint64_t v = id == MEM_NOW ? (uint64_t)now : id == MEM_HIGH_WATER ? high : allocs;
	**list = (struct vt_metric_tv){mem.wtime(), v};
	return 1;
}

static const struct vt_metric_ops ops = {.add = add, .get_all = get_all};
static const struct vt_metric_ops sync_ops = {.add = add};

struct vt_metric_source *vt_metric_mem_load(uint64_t (*wtime)(void))
{
	if (vt_cfg.memtrace == VT_MEMTRACE_NO)
		return NULL;
	if (!vt_mem_interposed()) {
		vt_warn("VT_MEMTRACE=%s: the program's malloc is not vt's (an allocator loaded "
			"before libvt, as AddressSanitizer's runtime, takes the calls): no memory "
			"counters are recorded",
			vt_cfg.memtrace == VT_MEMTRACE_EVENTS ? "events" : "yes");
		return NULL;
	}
	mem.wtime = wtime;
	mem.source.ops = &ops;
	if (vt_cfg.memtrace == VT_MEMTRACE_EVENTS) {
		mem.source.sync = VT_METRIC_STRICT;
		mem.source.per = VT_METRIC_PER_THREAD;
		mem.source.ops = &sync_ops;
		mem.source.get = get_now;
	}
	mem.source.metrics = mem.metrics;
	mem.source.n_metrics = MEM_N;
	return &mem.source;
}
