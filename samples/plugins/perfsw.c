/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perfsw: Linux software events of each thread, read at every event (synchronous, per
 * thread): page-faults, context-switches and task-clock, as perf(1) names them.
 *
 * VT_PLUGIN_CNTR_METRICS=perfsw_* (or perfsw_page-faults, ...). Each thread counts its own
 * events from the moment vt adds the counter there.
 *
 * The events come from perf_event_open(2). Where it is not allowed (an unprivileged user
 * and kernel.perf_event_paranoid >= 2, since these events happen in the kernel; or a
 * seccomp filter, or a kernel without perf events), the plugin says so once and counts
 * the same three from getrusage(RUSAGE_THREAD) and the thread's CPU clock: page faults and
 * context switches exactly, task-clock to the clock's resolution. PERFSW_BACKEND=perf or
 * rusage chooses instead of trying.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vampirtrace/vt_plugin_cntr.h>

#include "vt_sample_util.h"

#define PLUGIN	     "perfsw plugin"
#define MAX_COUNTERS 4096

enum kind { PAGE_FAULTS, CONTEXT_SWITCHES, TASK_CLOCK, N_KINDS };
static const struct {
	const char *name, *unit;
	uint64_t config;
} kinds[N_KINDS] = {
    [PAGE_FAULTS] = {"page-faults", "#", PERF_COUNT_SW_PAGE_FAULTS},
    [CONTEXT_SWITCHES] = {"context-switches", "#", PERF_COUNT_SW_CONTEXT_SWITCHES},
    [TASK_CLOCK] = {"task-clock", "ns", PERF_COUNT_SW_TASK_CLOCK},
};

static enum { BACKEND_PERF, BACKEND_RUSAGE } backend;

/* A counter on one thread. add_counter and get_current_value of an id run on its thread
 * only; disable_counter and finalize may run on another, after the last read. */
static struct slot {
	enum kind kind;
	int fd;	       /* perf: the event; rusage: -1 */
	uint64_t base; /* rusage: the reading when added */
	uint64_t last; /* the last value read, returned when a read fails */
} slots[MAX_COUNTERS];
static atomic_int n_slots;

static int open_event(enum kind k)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = kinds[k].config;
	/* Context switches and most page faults are counted in the kernel: excluding it
	 * would leave them at zero. */
	attr.exclude_hv = 1;
	/* The calling thread only (pid 0, no inherit), on any CPU. */
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t ns_of(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static uint64_t rusage_value(enum kind k)
{
	struct rusage ru;
	struct timespec ts;
	switch (k) {
	case PAGE_FAULTS:
		if (getrusage(RUSAGE_THREAD, &ru) != 0)
			return 0;
		return (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	case CONTEXT_SWITCHES:
		if (getrusage(RUSAGE_THREAD, &ru) != 0)
			return 0;
		return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	default:
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
			if (getrusage(RUSAGE_THREAD, &ru) != 0)
				return 0;
			return ns_of(ru.ru_utime) + ns_of(ru.ru_stime);
		}
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
}

/* kernel.perf_event_paranoid, or INT32_MIN when the kernel has none. */
static int paranoid(void)
{
	int level = INT32_MIN;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = INT32_MIN;
		fclose(f);
	}
	return level;
}

static void say_fallback(int err)
{
	int level = paranoid();
	char why[160];
	if (level == INT32_MIN)
		snprintf(why, sizeof(why), "the kernel has no perf events");
	else if (err == EACCES || err == EPERM)
		snprintf(why, sizeof(why), "kernel.perf_event_paranoid is %d%s", level,
			 level >= 2 ? ", which keeps unprivileged users from counting kernel events"
				    : "; a seccomp filter or security module may forbid it");
	else
		snprintf(why, sizeof(why), "kernel.perf_event_paranoid is %d", level);
	fprintf(stderr,
		PLUGIN ": perf_event_open is not allowed here (%s: %s); counting page-faults and "
		       "context-switches with getrusage(RUSAGE_THREAD) and task-clock with the "
		       "thread's CPU clock instead\n",
		strerror(err), why);
}

static int32_t perfsw_init(void)
{
	const char *choice = getenv("PERFSW_BACKEND");
	if (choice && strcmp(choice, "rusage") == 0) {
		backend = BACKEND_RUSAGE;
		fprintf(stderr, PLUGIN ": PERFSW_BACKEND=rusage: counting with getrusage("
				       "RUSAGE_THREAD) and the thread's CPU clock\n");
		return 0;
	}
	if (choice && *choice && strcmp(choice, "perf") != 0 && strcmp(choice, "auto") != 0)
		fprintf(stderr,
			PLUGIN ": PERFSW_BACKEND=%s is not perf, rusage or auto; trying "
			       "perf\n",
			choice);
	/* Probing with one event tells for all three: they need the same permission. */
	int fd = open_event(TASK_CLOCK);
	if (fd >= 0) {
		close(fd);
		backend = BACKEND_PERF;
		return 0;
	}
	int err = errno;
	if (choice && strcmp(choice, "perf") == 0) {
		fprintf(stderr,
			PLUGIN ": PERFSW_BACKEND=perf, but perf_event_open failed (%s); "
			       "no counters\n",
			strerror(err));
		return -1;
	}
	say_fallback(err);
	backend = BACKEND_RUSAGE;
	return 0;
}

static vt_plugin_cntr_metric_info *perfsw_get_event_info(char *requested)
{
	vt_plugin_cntr_metric_info *list = calloc(N_KINDS + 1, sizeof(*list));
	int n = 0;
	if (!list)
		return NULL;
	for (int k = 0; k < N_KINDS; k++) {
		if (fnmatch(requested, kinds[k].name, 0) != 0)
			continue;
		/* Counts since the counter was added on its thread. */
		if (!vts_info_set(&list[n], kinds[k].name, kinds[k].unit,
				  VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START |
				      VT_PLUGIN_CNTR_UNSIGNED))
			break;
		n++;
	}
	if (n == 0)
		fprintf(stderr,
			PLUGIN ": no counter matches \"%s\" (there are page-faults, "
			       "context-switches and task-clock)\n",
			requested);
	return list;
}

static int32_t perfsw_add_counter(char *name)
{
	int k;
	for (k = 0; k < N_KINDS; k++)
		if (strcmp(name, kinds[k].name) == 0)
			break;
	if (k == N_KINDS)
		return -1;
	int fd = -1;
	if (backend == BACKEND_PERF) {
		fd = open_event((enum kind)k);
		if (fd < 0) {
			fprintf(stderr, PLUGIN ": %s: perf_event_open failed on thread %ld (%s)\n",
				name, (long)syscall(SYS_gettid), strerror(errno));
			return -1;
		}
	}
	int id = atomic_fetch_add(&n_slots, 1);
	if (id >= MAX_COUNTERS) {
		fprintf(stderr, PLUGIN ": more than %d counters; %s not added\n", MAX_COUNTERS,
			name);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct slot *s = &slots[id];
	s->kind = (enum kind)k;
	s->fd = fd;
	s->last = 0;
	s->base = fd < 0 ? rusage_value(s->kind) : 0;
	return id;
}

static uint64_t perfsw_get_current_value(int32_t id)
{
	struct slot *s = &slots[id];
	if (s->fd >= 0) {
		uint64_t v;
		if (read(s->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			s->last = v;
	} else {
		uint64_t v = rusage_value(s->kind);
		/* A tick-based CPU time can look like it ran backwards by one tick. */
		if (v >= s->base && v - s->base >= s->last)
			s->last = v - s->base;
	}
	return s->last;
}

static int32_t perfsw_enable_counter(int32_t id)
{
	if (slots[id].fd >= 0 && ioctl(slots[id].fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
		return -1;
	return 0;
}

/* Stops counting; the descriptor stays open until finalize, so that a read racing with
 * this can never hit a descriptor number the program has reused meanwhile. */
static int32_t perfsw_disable_counter(int32_t id)
{
	if (slots[id].fd >= 0 && ioctl(slots[id].fd, PERF_EVENT_IOC_DISABLE, 0) != 0)
		return -1;
	return 0;
}

static void perfsw_finalize(void)
{
	int n = atomic_load(&n_slots);
	for (int i = 0; i < n && i < MAX_COUNTERS; i++) {
		if (slots[i].fd >= 0)
			close(slots[i].fd);
		slots[i].fd = -1;
	}
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	info.synch = VT_PLUGIN_CNTR_SYNCH;
	info.init = perfsw_init;
	info.get_event_info = perfsw_get_event_info;
	info.add_counter = perfsw_add_counter;
	info.get_current_value = perfsw_get_current_value;
	info.enable_counter = perfsw_enable_counter;
	info.disable_counter = perfsw_disable_counter;
	info.finalize = perfsw_finalize;
	return info;
}
