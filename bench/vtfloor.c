/* SPDX-License-Identifier: BSD-3-Clause */
/* The floor of -finstrument-functions tracing: hooks that only store a TSC stamp and an address. */

/*
 * libvtfloor is the lower bound vt's hot path is measured against (docs/bench.md): each hook
 * writes one 16-byte record (timestamp, address with the exit flag in bit 63) into a
 * thread-local ring and advances a wrapping index. No flush, no region ids, no filter.
 * The ring has the size of vt's default buffer (8 MiB, VTFLOOR_BUFFER_SIZE overrides it) so
 * both stream through the same amount of memory. This file must not be built with
 * -finstrument-functions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define FLOOR_API   __attribute__((visibility("default"), no_instrument_function))
#define FLOOR_LOCAL __attribute__((no_instrument_function))

#define FLOOR_DEFAULT_BYTES (8u << 20)
#define FLOOR_EXIT_FLAG	    ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))

struct floor_rec {
	uint64_t time;
	uintptr_t addr;
};

struct floor_thread {
	struct floor_rec *ring;
	size_t next;
	size_t mask; /* ring length - 1; the length is a power of two */
};

/* initial-exec: one TLS offset from the thread pointer, no __tls_get_addr call. */
static __thread struct floor_thread floor_tls __attribute__((tls_model("initial-exec")));

/* Used when the ring cannot be allocated: one slot, overwritten forever. */
static __thread struct floor_rec floor_sink __attribute__((tls_model("initial-exec")));

FLOOR_LOCAL static inline uint64_t floor_stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* A thread's first event: allocate its ring. Out of line so the hooks stay small. */
FLOOR_LOCAL __attribute__((noinline, cold)) static void floor_thread_init(struct floor_thread *t)
{
	size_t bytes = FLOOR_DEFAULT_BYTES;
	const char *env = getenv("VTFLOOR_BUFFER_SIZE");

	if (env != NULL && *env != '\0') {
		char *end;
		unsigned long long v = strtoull(env, &end, 10);
		if (*end == 'k' || *end == 'K')
			v <<= 10;
		else if (*end == 'M')
			v <<= 20;
		else if (*end == 'G')
			v <<= 30;
		if (v >= sizeof(struct floor_rec))
			bytes = (size_t)v;
	}

	size_t len = 1;
	while (len * 2 * sizeof(struct floor_rec) <= bytes)
		len *= 2;

	struct floor_rec *ring = malloc(len * sizeof(*ring));
	if (ring == NULL) {
		ring = &floor_sink;
		len = 1;
	}
	t->ring = ring;
	t->next = 0;
	t->mask = len - 1;
}

FLOOR_LOCAL static inline void floor_put(uintptr_t addr)
{
	struct floor_thread *t = &floor_tls;

	if (__builtin_expect(t->ring == NULL, 0))
		floor_thread_init(t);
	struct floor_rec *r = &t->ring[t->next];
	r->time = floor_stamp();
	r->addr = addr;
	t->next = (t->next + 1) & t->mask;
}

FLOOR_API void __cyg_profile_func_enter(void *fn, void *site);
FLOOR_API void __cyg_profile_func_exit(void *fn, void *site);

FLOOR_API void __cyg_profile_func_enter(void *fn, void *site)
{
	floor_put((uintptr_t)fn);
}

FLOOR_API void __cyg_profile_func_exit(void *fn, void *site)
{
	floor_put((uintptr_t)fn | FLOOR_EXIT_FLAG);
}
