/* SPDX-License-Identifier: BSD-3-Clause */
/* Timer choice and TSC calibration against CLOCK_MONOTONIC over the whole run. */
#include "base/vt_clock.h"
#include "base/vt_config.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>

bool vt_clock_tsc;

static struct {
	const char *reason;
	/* Calibration points: (tsc, monotonic ns). The TSC rate is taken over the whole run,
	 * so no start-up spin is needed and the error shrinks as the run grows. */
	uint64_t tsc0, ns0, tsc1, ns1, real0;
	bool finished;
} clk = {
    .reason = "not initialised",
};

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
		clk.reason = "forced by VT_TIMER=tsc";
		break;
	case VT_TIMER_MONOTONIC:
		vt_clock_tsc = false;
		clk.reason = "forced by VT_TIMER=monotonic";
		break;
	default:
		vt_clock_tsc = vt_clock_tsc_invariant();
		clk.reason = vt_clock_tsc ? "the CPU has an invariant TSC"
					  : "the CPU reports no invariant TSC";
		break;
	}
	if (vt_clock_tsc)
		sample(&clk.tsc0, &clk.ns0);
	else
		clk.tsc0 = clk.ns0 = mono_ns(CLOCK_MONOTONIC);
	clk.real0 = mono_ns(CLOCK_REALTIME) - (mono_ns(CLOCK_MONOTONIC) - clk.ns0);
	clk.finished = false;
}

/*
 * The last point, taken when it is asked for: no spin to stretch a short run. A time
 * between the two points is interpolated, so its error is at most the two pairings'
 * (tens of ns), whatever the interval; only the rate, ticks per second, is less exact
 * over a short run, where it matters least. Points closer than MIN_SPAN_NS (a run that
 * ends as it starts) are pushed that far apart, so that a pairing's jitter cannot make
 * the rate meaningless.
 */
#define MIN_SPAN_NS 20000u

static void take_end(uint64_t *tsc, uint64_t *ns)
{
	sample(tsc, ns);
	while (*ns - clk.ns0 < MIN_SPAN_NS)
		sample(tsc, ns);
}

void vt_clock_finish(void)
{
	if (vt_clock_tsc)
		take_end(&clk.tsc1, &clk.ns1);
	clk.finished = true;
}

uint64_t vt_clock_resolution(void)
{
	if (!vt_clock_tsc)
		return 1000000000u;
	uint64_t t = clk.tsc1, n = clk.ns1;
	if (!clk.finished)
		take_end(&t, &n);
	return (uint64_t)((double)(t - clk.tsc0) * 1e9 / (double)(n - clk.ns0) + 0.5);
}

uint64_t vt_clock_start_ticks(void)
{
	return clk.tsc0;
}

uint64_t vt_clock_start_realtime_ns(void)
{
	return clk.real0;
}

const char *vt_clock_name(void)
{
	return vt_clock_tsc ? "tsc" : "monotonic";
}

const char *vt_clock_reason(void)
{
	return clk.reason;
}
