/* SPDX-License-Identifier: BSD-3-Clause */
/* A metric source: the process's memory counters (VT_MEMTRACE), kept by every allocation. */
#include "metrics/vt_metric_mem.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "interpose/vt_mem.h"
#include "record/vt_buf.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"
#include "vt/vt_inst.h"

#include <errno.h>
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
 * what it allocated (vt-profile --memory); still no event per allocation. VT_MEMTRACE=regions
 * adds a region around each call of malloc's family (roles ALLOCATE, DEALLOCATE, REALLOCATE),
 * which then carries what the call changed between its Enter and Leave.
 */
enum { MEM_NOW, MEM_HIGH_WATER, MEM_ALLOCS, MEM_N };

static struct {
	struct vt_metric_source source;
	struct vt_metric metrics[MEM_N];
	uint64_t (*wtime)(void);
	int64_t now;
	uint64_t high_water, allocs;
	/* VT_MEMTRACE=regions: each function's region, registered at its first recorded call */
	struct vt_inst_desc regions[VT_MEM_FN_MAX];
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

/* The thread is inside a recorded call of malloc's family (what that call does is not
 * recorded again: libc's own allocations, vt's flush). */
static __thread bool mem_in __attribute__((tls_model("initial-exec")));

static const char *const mem_names[VT_MEM_FN_MAX] = {
    [VT_MEM_MALLOC] = "malloc",
    [VT_MEM_CALLOC] = "calloc",
    [VT_MEM_REALLOC] = "realloc",
    [VT_MEM_FREE] = "free",
    [VT_MEM_POSIX_MEMALIGN] = "posix_memalign",
    [VT_MEM_ALIGNED_ALLOC] = "aligned_alloc",
    [VT_MEM_MEMALIGN] = "memalign",
    [VT_MEM_VALLOC] = "valloc",
    [VT_MEM_PVALLOC] = "pvalloc",
    [VT_MEM_MMAP] = "mmap",
    [VT_MEM_MUNMAP] = "munmap",
    [VT_MEM_MREMAP] = "mremap",
};

static uint32_t mem_role(uint32_t fn)
{
	return fn == VT_MEM_FREE || fn == VT_MEM_MUNMAP	     ? OTF2_REGION_ROLE_DEALLOCATE
	       : fn == VT_MEM_REALLOC || fn == VT_MEM_MREMAP ? OTF2_REGION_ROLE_REALLOCATE
							     : OTF2_REGION_ROLE_ALLOCATE;
}

static uint32_t region_of(uint32_t fn)
{
	return vt_thread_desc_region(&mem.regions[fn]);
}

void *vt_metric_mem_enter(uint32_t fn)
{
	struct vt_tls *t = &vt_tls;
	/* Not inside vt or another recorded call, and only on a thread that records already:
	 * making a thread's state allocates, which would come back here. */
	if (mem_in || t->busy || t->nest || !t->pos || fn >= VT_MEM_FN_MAX ||
	    vt_core_state() != VT_STATE_ON)
		return NULL;
	mem_in = true;
	int saved = errno;
	vt_thread_enter(t, region_of(fn));
	errno = saved;
	return t;
}

void vt_metric_mem_leave(void *thread, uint32_t fn)
{
	int saved = errno;
	vt_thread_leave(thread, region_of(fn));
	mem_in = false;
	errno = saved;
}

bool vt_metric_mem_count(int64_t delta, uint32_t allocs)
{
	struct vt_tls *t = &vt_tls;
	/* vt's own code and threads (busy), a producer a signal interrupted, a thread vt has
	 * switched off: their memory is not the program's. */
	if (t->busy || t->nest || t->state == VT_TLS_OFF || vt_core_state() != VT_STATE_ON)
		return false;
	if (allocs)
		__atomic_add_fetch(&mem.allocs, allocs, __ATOMIC_RELAXED);
	int64_t now = __atomic_add_fetch(&mem.now, delta, __ATOMIC_RELAXED);
	if (delta <= 0 || now <= 0)
		return true;
	uint64_t high = __atomic_load_n(&mem.high_water, __ATOMIC_RELAXED);
	while ((uint64_t)now > high &&
	       !__atomic_compare_exchange_n(&mem.high_water, &high, (uint64_t)now, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return true;
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
			vt_cfg.memtrace == VT_MEMTRACE_REGIONS	? "regions"
			: vt_cfg.memtrace == VT_MEMTRACE_EVENTS ? "events"
								: "yes");
		return NULL;
	}
	mem.wtime = wtime;
	mem.source.ops = &ops;
	for (uint32_t fn = 0; fn < VT_MEM_FN_MAX; fn++)
		mem.regions[fn] = (struct vt_inst_desc){
		    .abi = VT_INST_ABI,
		    .name = mem_names[fn],
		    .reserved = (uint32_t)OTF2_PARADIGM_NONE << 8 | mem_role(fn),
		};
	if (vt_cfg.memtrace >= VT_MEMTRACE_EVENTS) {
		mem.source.sync = VT_METRIC_STRICT;
		mem.source.per = VT_METRIC_PER_THREAD;
		mem.source.ops = &sync_ops;
		mem.source.get = get_now;
	}
	mem.source.metrics = mem.metrics;
	mem.source.n_metrics = MEM_N;
	return &mem.source;
}
