/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim's guard of the simulators' calls: a crash inside one names it, the call and the event. */
#include "vts.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Which simulator call runs, for the signal handler: written before and after every call. */
static const char *volatile crash_sim, *volatile crash_call;
static volatile uint32_t crash_loc, crash_region;
static volatile uint64_t crash_time;
static const struct vtr_trace *crash_tr;

static void on_crash(int sig)
{
	char line[768];
	int n;
	if (crash_sim && crash_tr && crash_region < crash_tr->nregions)
		n = snprintf(line, sizeof(line),
			     "%s: simulator '%s' crashed (signal %d, %s) in %s on '%s' of location "
			     "%u at %" PRIu64 "; no output written\n",
			     vts_prog, crash_sim, sig, strsignal(sig), crash_call,
			     crash_tr->regions[crash_region].name, crash_loc, crash_time);
	else if (crash_sim)
		n = snprintf(line, sizeof(line),
			     "%s: simulator '%s' crashed (signal %d, %s) in %s%s\n", vts_prog,
			     crash_sim, sig, strsignal(sig), crash_call,
			     strcmp(crash_call, "destroy") ? "; no output written" : "");
	else
		n = snprintf(line, sizeof(line), "%s: crashed (signal %d, %s)\n", vts_prog, sig,
			     strsignal(sig));
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line)) < 0)
		_exit(70);
	_exit(70);
}

static void guard(bool on)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], on ? on_crash : SIG_DFL);
}

void vts_guard(const char *sim, const char *call)
{
	crash_sim = sim;
	crash_call = call;
	crash_region = VT_SIM_NONTRACING;
	guard(sim != NULL);
}

void vts_guard_replay(const struct vtr_trace *tr)
{
	crash_tr = tr;
	guard(tr != NULL);
}

void vts_guard_call(const char *sim, const char *call, uint32_t loc, uint32_t region, uint64_t time)
{
	if (sim) {
		crash_call = call;
		crash_loc = loc;
		crash_region = region;
		crash_time = time;
	}
	crash_sim = sim;
}
