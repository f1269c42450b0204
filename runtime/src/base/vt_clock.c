/* SPDX-License-Identifier: BSD-3-Clause */
/* Timer choice and TSC calibration against CLOCK_MONOTONIC over the whole run. */
#include "base/vt_clock.h"
#include "base/vt_config.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>

bool vt_clock_tsc;

static const char *reason = "not initialised";
/* Calibration points: (tsc, monotonic ns). The TSC rate is taken over the whole run, so
 * no start-up spin is needed and the error shrinks as the run grows. */
static uint64_t tsc0, ns0, tsc1, ns1, real0;
static bool finished;

static uint64_t mono_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A (tsc, ns) pair read as close together as the machine allows: the tightest of a few. */
static void sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = __rdtsc();
		uint64_t n = mono_ns(CLOCK_MONOTONIC);
		uint64_t b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

bool vt_clock_tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
		return true;
	/* Hypervisors often hide the cpuid bit but the kernel still knows. */
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool constant = false, nonstop = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

void vt_clock_init(int request)
{
	switch (request) {
	case VT_TIMER_TSC:
		vt_clock_tsc = true;
		reason = "forced by VT_TIMER=tsc";
		break;
	case VT_TIMER_MONOTONIC:
		vt_clock_tsc = false;
		reason = "forced by VT_TIMER=monotonic";
		break;
	default:
		vt_clock_tsc = vt_clock_tsc_invariant();
		reason = vt_clock_tsc ? "the CPU has an invariant TSC"
				      : "the CPU reports no invariant TSC";
		break;
	}
	if (vt_clock_tsc)
		sample(&tsc0, &ns0);
	else
		tsc0 = ns0 = mono_ns(CLOCK_MONOTONIC);
	real0 = mono_ns(CLOCK_REALTIME) - (mono_ns(CLOCK_MONOTONIC) - ns0);
	finished = false;
}

static void take_end(uint64_t *tsc, uint64_t *ns)
{
	sample(tsc, ns);
	/* Under a millisecond the pairing jitter would matter; stretch the interval. */
	while (*ns - ns0 < 1000000)
		sample(tsc, ns);
}

void vt_clock_finish(void)
{
	if (vt_clock_tsc)
		take_end(&tsc1, &ns1);
	finished = true;
}

uint64_t vt_clock_resolution(void)
{
	if (!vt_clock_tsc)
		return 1000000000u;
	uint64_t t = tsc1, n = ns1;
	if (!finished)
		take_end(&t, &n);
	return (uint64_t)((double)(t - tsc0) * 1e9 / (double)(n - ns0) + 0.5);
}

uint64_t vt_clock_start_ticks(void)
{
	return tsc0;
}

uint64_t vt_clock_start_realtime_ns(void)
{
	return real0;
}

const char *vt_clock_name(void)
{
	return vt_clock_tsc ? "tsc" : "monotonic";
}

const char *vt_clock_reason(void)
{
	return reason;
}
