/* SPDX-License-Identifier: BSD-3-Clause */
/* What the interposed allocation functions report, to whom (the memory counters, VT_MEMTRACE). */
#ifndef VT_MEM_H
#define VT_MEM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * interpose/vt_malloc.c defines malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc, munmap and mremap over libc's (and counts the anonymous
 * mmaps vt_io_posix.c's mmap hands it). Each call that changed the
 * program's memory reports it through count: the change of the bytes allocated (usable sizes,
 * malloc_usable_size's, so a block counts the same when it comes and when it goes) and the
 * allocations it made (0 or 1). The lifecycle sets the hook when VT_MEMTRACE=yes; left NULL,
 * a call costs one load and a branch. The hook decides whether the calling thread counts
 * (not vt's own code, not its threads).
 */
struct vt_mem_hooks {
	bool (*count)(int64_t delta, uint32_t allocs); /* false: not counted */
	/* VT_MEMTRACE=regions: around each call, its region (fn: enum vt_mem_fn). enter returns
	 * the recording thread's state, or NULL when this call is not recorded (the thread does
	 * not record, or it is inside vt or inside another recorded call). */
	void *(*enter)(uint32_t fn);
	void (*leave)(void *thread, uint32_t fn);
};

/* The functions whose calls are regions with VT_MEMTRACE=regions, in vt_mem_names' order. */
enum vt_mem_fn {
	VT_MEM_MALLOC,
	VT_MEM_CALLOC,
	VT_MEM_REALLOC,
	VT_MEM_FREE,
	VT_MEM_POSIX_MEMALIGN,
	VT_MEM_ALIGNED_ALLOC,
	VT_MEM_MEMALIGN,
	VT_MEM_VALLOC,
	VT_MEM_PVALLOC,
	VT_MEM_MMAP,   /* of anonymous memory (interpose/vt_io_posix.c's mmap hands it over) */
	VT_MEM_MUNMAP, /* of what such an mmap mapped */
	VT_MEM_MREMAP, /* of such a mapping */
	VT_MEM_FN_MAX
};

/* An anonymous mmap of the program while memory is counted: made with the real function,
 * counted (the pages mapped, one allocation) and, with VT_MEMTRACE=regions, a region. */
typedef void *(*vt_mmap_fn)(void *, size_t, int, int, int, long);
void *vt_mem_mmap(vt_mmap_fn real, void *addr, size_t len, int prot, int flags, int fd, long off);

void vt_mem_set_hooks(const struct vt_mem_hooks *h);
extern struct vt_mem_hooks vt_mem_hooks __attribute__((visibility("hidden")));

/* Whether the malloc the program calls is vt's (false: an allocator loaded before libvt, as
 * AddressSanitizer's runtime, takes the calls; then nothing is counted). */
bool vt_mem_interposed(void);

#endif
