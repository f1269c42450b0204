/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer: invariant TSC when the CPU has one, CLOCK_MONOTONIC otherwise. */
#ifndef VT_CLOCK_H
#define VT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

/* Written once by vt_clock_init() before the first event, read lock-free after. */
extern bool vt_clock_tsc;

/*
 * Ticks of the chosen timer. The TSC read is not serialising on purpose: order within a
 * thread comes from buffer order, and a coarse or slightly early tick only shares a value.
 */
static inline __attribute__((always_inline)) uint64_t vt_clock_now(void)
{
	if (__builtin_expect(vt_clock_tsc, 1))
		return __rdtsc();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Chooses the timer (VT_TIMER: 0 auto, 1 tsc, 2 monotonic) and takes the first calibration point.
 */
void vt_clock_init(int request);

/* Takes the last calibration point; after it, vt_clock_resolution() is final. */
void vt_clock_finish(void);

/* Ticks per second, calibrated between init and now (or finish). */
uint64_t vt_clock_resolution(void);

/* Tick value at init, and CLOCK_REALTIME in ns at that tick. */
uint64_t vt_clock_start_ticks(void);
uint64_t vt_clock_start_realtime_ns(void);

/* "tsc" or "monotonic", and why it was chosen. */
const char *vt_clock_name(void);
const char *vt_clock_reason(void);

/* Whether the CPU reports an invariant TSC (cpuid, or the kernel's constant+nonstop flags). */
bool vt_clock_tsc_invariant(void);

#endif
