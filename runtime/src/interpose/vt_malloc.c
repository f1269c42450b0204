/* SPDX-License-Identifier: BSD-3-Clause */
/* malloc and its family: libc's, with each change of the program's memory counted (VT_MEMTRACE). */
#include "interpose/vt_interpose.h"
#include "interpose/vt_mem.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The first allocations come before AddressSanitizer's runtime has set up its shadow memory
 * when libvt is preloaded ahead of it (vtrun under scripts/test-sanitize.sh): nothing here is
 * instrumented by it, or those first calls would fault. */
#define VT_NOSAN  __attribute__((no_sanitize("address"), no_instrument_function))
#define VT_EXPORT __attribute__((visibility("default"))) VT_NOSAN

struct vt_mem_hooks vt_mem_hooks;

VT_NOSAN void vt_mem_set_hooks(const struct vt_mem_hooks *h)
{
	__atomic_store_n(&vt_mem_hooks.leave, h->leave, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_mem_hooks.enter, h->enter, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_mem_hooks.count, h->count, __ATOMIC_RELEASE);
}

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*memalign_fn)(size_t, size_t);

/*
 * libc's functions, looked up at the first allocation (the dynamic linker's, before any
 * constructor). dlsym allocates itself meanwhile: those few blocks come from boot, a static
 * arena that is never given back (free ignores its blocks; realloc moves them out).
 */
#define BOOT_SIZE (64 * 1024)
static struct {
	malloc_fn malloc;
	calloc_fn calloc;
	realloc_fn realloc;
	free_fn free;
	posix_memalign_fn posix_memalign;
	memalign_fn aligned_alloc, memalign;
	malloc_fn valloc, pvalloc;
	bool resolving, resolved;
	size_t boot_used;
	_Alignas(64) unsigned char boot[BOOT_SIZE];
	/* The program's anonymous mappings while memory is counted, [start, end) each, so that
	 * munmap and mremap count only what they mapped (a mapping of a file is I/O; glibc's
	 * own, for large blocks, are neither: its internal calls never reach these functions). */
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, void *);
	int maps_lock;
	uint32_t n_maps;
	struct {
		uintptr_t start, end;
	} maps[1024];
} mem;

VT_NOSAN static bool from_boot(const void *p)
{
	return (const unsigned char *)p >= mem.boot &&
	       (const unsigned char *)p < mem.boot + BOOT_SIZE;
}

/* A zeroed block of n bytes aligned to align (a power of two, at least 16), with its size
 * in the 16 bytes before it; NULL when the arena is used up. */
VT_NOSAN static void *boot_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	size_t at = (mem.boot_used + 16 + align - 1) & ~(align - 1);
	if (n > BOOT_SIZE || at + n > BOOT_SIZE)
		return NULL;
	mem.boot_used = at + n;
	memcpy(mem.boot + at - 16, &n, sizeof(n));
	return mem.boot + at;
}

VT_NOSAN static size_t boot_size(const void *p)
{
	size_t n;
	memcpy(&n, (const unsigned char *)p - 16, sizeof(n));
	return n;
}

VT_NOSAN static void resolve(void)
{
	mem.resolving = true;
	int saved = errno;
	*(void **)&mem.malloc = dlsym(RTLD_NEXT, "malloc");
	*(void **)&mem.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&mem.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&mem.free = dlsym(RTLD_NEXT, "free");
	*(void **)&mem.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	*(void **)&mem.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	*(void **)&mem.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&mem.valloc = dlsym(RTLD_NEXT, "valloc");
	*(void **)&mem.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	errno = saved;
	mem.resolved = mem.malloc && mem.calloc && mem.realloc && mem.free;
	mem.resolving = false;
}

/* Whether libc's functions are there; false while they are being looked up (the caller then
 * serves from boot) or when they are missing. The first allocation comes before any thread. */
VT_NOSAN static inline __attribute__((always_inline)) bool ready(void)
{
	if (__builtin_expect(mem.resolved, 1))
		return true;
	if (!mem.resolving)
		resolve();
	return mem.resolved;
}

/* Whether the malloc the program binds to lies in this library (the name malloc inside libvt
 * means that same one, whoever defines it). */
VT_NOSAN bool vt_mem_interposed(void)
{
	Dl_info bound, self;
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	return m && dladdr(m, &bound) && dladdr((void *)vt_mem_interposed, &self) &&
	       bound.dli_fbase == self.dli_fbase;
}

VT_NOSAN static inline __attribute__((always_inline)) bool count(int64_t delta, uint32_t allocs)
{
	bool (*hook)(int64_t, uint32_t) = __atomic_load_n(&vt_mem_hooks.count, __ATOMIC_ACQUIRE);
	return __builtin_expect(hook != NULL, 0) && hook(delta, allocs);
}

/* VT_MEMTRACE=regions: the call's region begins (the thread's state, or NULL: not recorded,
 * as always without the mode: one load and a branch). */
VT_NOSAN static inline __attribute__((always_inline)) void *enter(uint32_t fn)
{
	void *(*hook)(uint32_t) = __atomic_load_n(&vt_mem_hooks.enter, __ATOMIC_ACQUIRE);
	return __builtin_expect(hook != NULL, 0) ? hook(fn) : NULL;
}

VT_NOSAN static inline __attribute__((always_inline)) void leave(void *thread, uint32_t fn)
{
	if (__builtin_expect(thread != NULL, 0))
		vt_mem_hooks.leave(thread, fn);
}

/* A new block p (NULL: none): counted when counting is on. */
VT_NOSAN static inline __attribute__((always_inline)) void *allocated(void *p)
{
	if (p && __builtin_expect(vt_mem_hooks.count != NULL, 0))
		count((int64_t)malloc_usable_size(p), 1);
	return p;
}

VT_NOSAN __attribute__((noinline)) static void *malloc_slow(size_t n)
{
	if (__builtin_expect(!ready(), 0))
		return boot_alloc(n, 16);
	void *t = enter(VT_MEM_MALLOC);
	void *p = allocated(mem.malloc(n));
	leave(t, VT_MEM_MALLOC);
	return p;
}

VT_NOSAN __attribute__((noinline)) static void *calloc_slow(size_t k, size_t n)
{
	if (__builtin_expect(!ready(), 0)) {
		size_t total;
		if (__builtin_mul_overflow(k, n, &total))
			return NULL;
		return boot_alloc(total, 16); /* static: zeroed */
	}
	void *t = enter(VT_MEM_CALLOC);
	void *p = allocated(mem.calloc(k, n));
	leave(t, VT_MEM_CALLOC);
	return p;
}

VT_NOSAN __attribute__((noinline)) static void free_slow(void *p)
{
	if (!p || from_boot(p))
		return;
	if (__builtin_expect(!ready(), 0))
		return; /* not from libc's malloc either: nothing to give back */
	void *t = enter(VT_MEM_FREE);
	if (__builtin_expect(vt_mem_hooks.count != NULL, 0))
		count(-(int64_t)malloc_usable_size(p), 0);
	mem.free(p);
	leave(t, VT_MEM_FREE);
}

VT_NOSAN __attribute__((noinline)) static void *realloc_slow(void *p, size_t n)
{
	if (p && from_boot(p)) {
		void *q = malloc_slow(n);
		if (q) {
			size_t old = boot_size(p);
			memcpy(q, p, old < n ? old : n);
		}
		return q;
	}
	if (__builtin_expect(!ready(), 0))
		return p ? NULL : boot_alloc(n, 16);
	if (__builtin_expect(vt_mem_hooks.count == NULL, 1))
		return mem.realloc(p, n);
	void *t = enter(VT_MEM_REALLOC);
	int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
	void *q = mem.realloc(p, n);
	if (q)
		count((int64_t)malloc_usable_size(q) - old, 1);
	else if (p && n == 0)
		count(-old, 0); /* glibc's realloc(p, 0) frees p */
	leave(t, VT_MEM_REALLOC);
	return q;
}

/*
 * The four calls every program makes most: with libc's functions known and no counting (no
 * VT_MEMTRACE), a tail call of libc's, without a frame; all the rest in the slow paths above.
 */
#define PLAIN()                                                                                    \
	(__builtin_expect(mem.resolved, 1) &&                                                      \
	 __builtin_expect(__atomic_load_n(&vt_mem_hooks.count, __ATOMIC_RELAXED) == NULL, 1))

VT_EXPORT void *malloc(size_t n)
{
	if (PLAIN())
		return mem.malloc(n);
	return malloc_slow(n);
}

VT_EXPORT void *calloc(size_t k, size_t n)
{
	if (PLAIN())
		return mem.calloc(k, n);
	return calloc_slow(k, n);
}

VT_EXPORT void free(void *p)
{
	if (PLAIN() && !from_boot(p)) {
		mem.free(p);
		return;
	}
	free_slow(p);
}

VT_EXPORT void *realloc(void *p, size_t n)
{
	if (PLAIN() && !from_boot(p))
		return mem.realloc(p, n);
	return realloc_slow(p, n);
}

VT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (__builtin_expect(!ready(), 0)) {
		*out = boot_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (!mem.posix_memalign)
		return ENOMEM;
	void *t = enter(VT_MEM_POSIX_MEMALIGN);
	int rc = mem.posix_memalign(out, align, n);
	if (rc == 0)
		allocated(*out);
	leave(t, VT_MEM_POSIX_MEMALIGN);
	return rc;
}

/* The aligned forms that return the block: libc's, or NULL with ENOMEM when it has none. */
VT_NOSAN static void *aligned(memalign_fn fn, uint32_t which, size_t align, size_t n)
{
	if (__builtin_expect(!ready(), 0))
		return boot_alloc(n, align);
	if (!fn) {
		errno = ENOMEM;
		return NULL;
	}
	void *t = enter(which);
	void *p = allocated(fn(align, n));
	leave(t, which);
	return p;
}

VT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned(mem.aligned_alloc, VT_MEM_ALIGNED_ALLOC, align, n);
}

VT_EXPORT void *memalign(size_t align, size_t n)
{
	return aligned(mem.memalign, VT_MEM_MEMALIGN, align, n);
}

VT_NOSAN static void *paged(malloc_fn fn, uint32_t which, size_t n)
{
	if (__builtin_expect(!ready(), 0))
		return boot_alloc(n, 4096);
	if (!fn) {
		errno = ENOMEM;
		return NULL;
	}
	void *t = enter(which);
	void *p = allocated(fn(n));
	leave(t, which);
	return p;
}

VT_EXPORT void *valloc(size_t n)
{
	return paged(mem.valloc, VT_MEM_VALLOC, n);
}

VT_EXPORT void *pvalloc(size_t n)
{
	return paged(mem.pvalloc, VT_MEM_PVALLOC, n);
}

/* ---- anonymous mappings (VT_MEMTRACE) ---- */

VT_NOSAN static void maps_lock(void)
{
	while (__atomic_exchange_n(&mem.maps_lock, 1, __ATOMIC_ACQUIRE))
		;
}

VT_NOSAN static void maps_unlock(void)
{
	__atomic_store_n(&mem.maps_lock, 0, __ATOMIC_RELEASE);
}

VT_NOSAN static size_t pages_of(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (len + page - 1) / page * page;
}

VT_NOSAN static int64_t unmapped(uintptr_t start, uintptr_t end);

/* Follows [start, end), a mapping just made; false: no room left, not followed. */
VT_NOSAN static bool follow(uintptr_t start, uintptr_t end)
{
	maps_lock();
	bool room = mem.n_maps < sizeof(mem.maps) / sizeof(mem.maps[0]);
	if (room) {
		mem.maps[mem.n_maps].start = start;
		mem.maps[mem.n_maps].end = end;
		mem.n_maps++;
	}
	maps_unlock();
	return room;
}

/* Whether any of [start, start + len) is followed. */
VT_NOSAN static bool followed(uintptr_t start, size_t len)
{
	bool any = false;
	maps_lock();
	for (uint32_t i = 0; i < mem.n_maps && !any; i++)
		any = mem.maps[i].start < start + len && mem.maps[i].end > start;
	maps_unlock();
	return any;
}

VT_NOSAN void *vt_mem_mmap(vt_mmap_fn real, void *addr, size_t len, int prot, int flags, int fd,
			   long off)
{
	void *t = enter(VT_MEM_MMAP);
	void *r = real(addr, len, prot, flags, fd, off);
	if (r != MAP_FAILED) {
		/* Followed only when counted (not vt's own work, vt on) and there is room: an
		 * munmap gives back only what an mmap added. */
		uintptr_t start = (uintptr_t)r, end = start + pages_of(len);
		if (follow(start, end) && !count((int64_t)(end - start), 1))
			unmapped(start, end); /* not counted: not followed either */
	}
	leave(t, VT_MEM_MMAP);
	return r;
}

/* What an munmap of [start, end) unmaps of the tracked mappings, which shrink or split. */
VT_NOSAN static int64_t unmapped(uintptr_t start, uintptr_t end)
{
	int64_t gone = 0;
	maps_lock();
	for (uint32_t i = 0; i < mem.n_maps;) {
		uintptr_t s = mem.maps[i].start, e = mem.maps[i].end;
		if (e <= start || s >= end) {
			i++;
			continue;
		}
		gone += (int64_t)((e < end ? e : end) - (s > start ? s : start));
		if (s < start && e > end) { /* the middle: two parts stay */
			mem.maps[i].end = start;
			if (mem.n_maps < sizeof(mem.maps) / sizeof(mem.maps[0])) {
				mem.maps[mem.n_maps].start = end;
				mem.maps[mem.n_maps].end = e;
				mem.n_maps++;
			}
			i++;
		} else if (s < start) {
			mem.maps[i++].end = start;
		} else if (e > end) {
			mem.maps[i++].start = end;
		} else {
			mem.maps[i] = mem.maps[--mem.n_maps];
		}
	}
	maps_unlock();
	return gone;
}

VT_NOSAN static bool resolve_munmap(void)
{
	if (__builtin_expect(__atomic_load_n(&mem.munmap, __ATOMIC_ACQUIRE) != NULL, 1))
		return true;
	int (*real)(void *, size_t);
	*(void **)&real = dlsym(RTLD_NEXT, "munmap");
	if (!real)
		return false;
	__atomic_store_n(&mem.munmap, real, __ATOMIC_RELEASE);
	return true;
}

VT_EXPORT int munmap(void *addr, size_t len)
{
	if (__builtin_expect(!resolve_munmap(), 0)) {
		errno = ENOSYS;
		return -1;
	}
	int (*real)(void *, size_t) = __atomic_load_n(&mem.munmap, __ATOMIC_RELAXED);
	if (__builtin_expect(__atomic_load_n(&vt_mem_hooks.count, __ATOMIC_RELAXED) == NULL, 1))
		return real(addr, len);
	void *t = enter(VT_MEM_MUNMAP);
	int rc = real(addr, len);
	if (rc == 0) {
		int64_t gone = unmapped((uintptr_t)addr, (uintptr_t)addr + pages_of(len));
		if (gone)
			count(-gone, 0);
	}
	leave(t, VT_MEM_MUNMAP);
	return rc;
}

/*
 * mremap of a followed mapping: what it had of the old range leaves, the new range is followed
 * and the difference counted, with one allocation (a mapping resized, as realloc's block).
 * MREMAP_DONTUNMAP keeps the old range mapped: the new one is added. An old size of 0 (a
 * second mapping of shared memory) and a range vt does not follow change nothing.
 */
VT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	void *(*real)(void *, size_t, size_t, int, void *) =
	    __atomic_load_n(&mem.mremap, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!real, 0)) {
		*(void **)&real = dlsym(RTLD_NEXT, "mremap");
		if (!real) {
			errno = ENOSYS;
			return MAP_FAILED;
		}
		__atomic_store_n(&mem.mremap, real, __ATOMIC_RELEASE);
	}
	if (__builtin_expect(__atomic_load_n(&vt_mem_hooks.count, __ATOMIC_RELAXED) == NULL, 1))
		return real(old, old_len, new_len, flags, want);
	void *t = enter(VT_MEM_MREMAP);
	void *r = real(old, old_len, new_len, flags, want);
	if (r != MAP_FAILED && old_len && followed((uintptr_t)old, pages_of(old_len))) {
		uintptr_t start = (uintptr_t)old, now = (uintptr_t)r;
		int64_t had =
		    flags & MREMAP_DONTUNMAP ? 0 : unmapped(start, start + pages_of(old_len));
		if (follow(now, now + pages_of(new_len)))
			count((int64_t)pages_of(new_len) - had, 1);
		else if (had)
			count(-had, 0);
	}
	leave(t, VT_MEM_MREMAP);
	return r;
}
