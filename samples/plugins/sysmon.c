/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysmon: a sampler thread reading /proc (and /sys where it has them) at a fixed rate,
 * asynchronous, per process. Built twice from this file:
 *   libsysmon.so    ASYNCH_EVENT: vt collects the samples at the buffer flushes of the
 *                   thread that added the counters, and at the end;
 *   libsysmonpm.so  ASYNCH_POST_MORTEM (-DSYSMON_POST_MORTEM): vt collects them at the end.
 *
 * Counters (VT_PLUGIN_CNTR_METRICS=sysmon_* or sysmonpm_*, or by name, with wildcards):
 *   cpu_busy           % of the host's CPU time not idle since the previous sample
 *   context_switches   context switches on the host since the counter was added
 *   mem_available      MemAvailable of /proc/meminfo, bytes
 *   process_rss        resident set of this process, bytes
 *   process_cpu_time   CPU time of this process since the counter was added, ns (in steps
 *                      of the kernel's clock tick)
 *   cpuN_freq          current frequency of CPU N, Hz (cpufreq, where there is a driver)
 *   energy_ZONE        energy of powercap RAPL zone ZONE since the counter was added, J
 *                      (where readable; current kernels let only root read it)
 *
 * SYSMON_INTERVAL_MS (default 100, 1 to 60000) sets the period. Samples are never closer
 * than that: after a late wake-up the next one is due a full period later. Timestamps come
 * from the wtime function vt hands over. SYSMON_VERBOSE=1 prints at the end, per counter,
 * how many values were taken and in how many calls vt fetched them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vampirtrace/vt_plugin_cntr.h>

#include "vt_sample_util.h"

#ifdef SYSMON_POST_MORTEM
#define PLUGIN "sysmonpm plugin"
#define SYNCH  VT_PLUGIN_CNTR_ASYNCH_POST_MORTEM
#else
#define PLUGIN "sysmon plugin"
#define SYNCH  VT_PLUGIN_CNTR_ASYNCH_EVENT
#endif

#define CPUFREQ	 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq"
#define POWERCAP "/sys/class/powercap"

enum source {
	CPU_BUSY,
	CONTEXT_SWITCHES,
	MEM_AVAILABLE,
	PROCESS_RSS,
	PROCESS_CPU_TIME,
	CPU_FREQ,
	ENERGY
};

/* What this host offers, found at init. */
struct offer {
	char *name;
	const char *unit;
	uint32_t property;
	enum source source;
	char *path;	/* CPU_FREQ, ENERGY: the file */
	uint64_t range; /* ENERGY: max_energy_range_uj, where the counter wraps */
};
static struct offer *offers;
static size_t n_offers;

/* A counter as added; ids index counters[]. */
struct counter {
	const struct offer *o;
	bool enabled;
	uint64_t base;			/* ACC: the raw reading when added */
	uint64_t prev_busy, prev_total; /* CPU_BUSY: the previous /proc/stat reading */
	uint64_t prev_raw, acc;		/* ENERGY: wrap-around bookkeeping (uJ) */
	struct vts_values vals;		/* not yet fetched */
	uint64_t taken, fetches;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct counter *counters; /* guarded by lock, as is everything below */
static size_t n_counters, cap_counters;
static struct vts_sampler sampler;

static uint64_t (*wtime)(void);
static long interval_ms = 100;
static bool verbose;
static _Thread_local bool is_sampler;

/* ---- reading the sources ---- */

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return n ? 0 : -1;
}

static int read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];
	if (read_file(path, buf, sizeof(buf)) != 0)
		return -1;
	char *end;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

/* /proc/stat: the busy and total jiffies of all CPUs, and the context switches. */
static int proc_stat(uint64_t *busy, uint64_t *total, uint64_t *ctxt)
{
	char buf[8192];
	if (read_file("/proc/stat", buf, sizeof(buf)) != 0)
		return -1;
	uint64_t f[8] = {0};
	if (sscanf(buf,
		   "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64,
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) < 4)
		return -1;
	/* user nice system idle iowait irq softirq steal: guest time is inside user. */
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += f[i];
	*busy = *total - f[3] - f[4];
	const char *c = strstr(buf, "\nctxt ");
	if (!c || sscanf(c + 6, "%" SCNu64, ctxt) != 1)
		return -1;
	return 0;
}

static int mem_available(uint64_t *bytes)
{
	char buf[4096];
	if (read_file("/proc/meminfo", buf, sizeof(buf)) != 0)
		return -1;
	const char *m = strstr(buf, "MemAvailable:");
	uint64_t kb;
	if (!m || sscanf(m + 13, "%" SCNu64, &kb) != 1)
		return -1;
	*bytes = kb * 1024;
	return 0;
}

static int process_rss(uint64_t *bytes)
{
	char buf[256];
	uint64_t size, resident;
	if (read_file("/proc/self/statm", buf, sizeof(buf)) != 0 ||
	    sscanf(buf, "%" SCNu64 " %" SCNu64, &size, &resident) != 2)
		return -1;
	*bytes = resident * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* utime + stime of /proc/self/stat (fields 14 and 15), in ns. */
static int process_cpu_ns(uint64_t *ns)
{
	char buf[1024];
	if (read_file("/proc/self/stat", buf, sizeof(buf)) != 0)
		return -1;
	/* The command name may hold spaces and parentheses: fields start after the last ')'. */
	const char *p = strrchr(buf, ')');
	unsigned long long ut, st;
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	long hz = sysconf(_SC_CLK_TCK);
	*ns = (uint64_t)(ut + st) * (1000000000u / (uint64_t)(hz > 0 ? hz : 100));
	return 0;
}

/* The raw reading of a source: what ACC counters subtract their base from. */
static int raw(const struct offer *o, uint64_t *v)
{
	uint64_t busy, total;
	switch (o->source) {
	case CONTEXT_SWITCHES:
		return proc_stat(&busy, &total, v);
	case MEM_AVAILABLE:
		return mem_available(v);
	case PROCESS_RSS:
		return process_rss(v);
	case PROCESS_CPU_TIME:
		return process_cpu_ns(v);
	case CPU_FREQ:
	case ENERGY:
		return read_u64_file(o->path, v);
	case CPU_BUSY:
		break;
	}
	return -1;
}

static uint64_t bits_of(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

/* The value of counter c now (its state advances); -1: no reading this time. */
static int sample(struct counter *c, uint64_t *value)
{
	const struct offer *o = c->o;
	uint64_t r, busy, total, ctxt;
	switch (o->source) {
	case CPU_BUSY:
		if (proc_stat(&busy, &total, &ctxt) != 0)
			return -1;
		double pct = total > c->prev_total ? 100.0 * (double)(busy - c->prev_busy) /
							 (double)(total - c->prev_total)
						   : 0.0;
		c->prev_busy = busy;
		c->prev_total = total;
		*value = bits_of(pct);
		return 0;
	case ENERGY:
		if (raw(o, &r) != 0)
			return -1;
		c->acc += r >= c->prev_raw ? r - c->prev_raw : o->range - c->prev_raw + r;
		c->prev_raw = r;
		*value = bits_of((double)c->acc * 1e-6);
		return 0;
	case CPU_FREQ:
		if (raw(o, &r) != 0)
			return -1;
		*value = r * 1000; /* kHz */
		return 0;
	default:
		if (raw(o, &r) != 0)
			return -1;
		*value = (o->property & VT_PLUGIN_CNTR_ACC) ? (r >= c->base ? r - c->base : 0) : r;
		return 0;
	}
}

/* ---- what the host offers ---- */

static void offer(const char *name, const char *unit, uint32_t property, enum source s,
		  const char *path, uint64_t range)
{
	struct offer *o = realloc(offers, (n_offers + 1) * sizeof(*o));
	if (!o)
		return;
	offers = o;
	o = &offers[n_offers];
	o->name = strdup(name);
	o->unit = unit;
	o->property = property;
	o->source = s;
	o->path = path ? strdup(path) : NULL;
	o->range = range;
	if (o->name && (!path || o->path))
		n_offers++;
}

static void find_cpufreq(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char path[128], name[32];
	uint64_t v;
	for (long i = 0; i < n && i < 4096; i++) {
		snprintf(path, sizeof(path), CPUFREQ, (unsigned)i);
		if (read_u64_file(path, &v) != 0)
			continue;
		snprintf(name, sizeof(name), "cpu%ld_freq", i);
		offer(name, "Hz",
		      VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_UNSIGNED, CPU_FREQ,
		      path, 0);
	}
}

/* Zones intel-rapl:N and their sub-zones intel-rapl:N:M, named by their name file
 * (package-0, core, dram, ...), made unique with the zone's number where needed. */
static void find_rapl(void)
{
	DIR *d = opendir(POWERCAP);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512], zname[64], name[128];
		uint64_t v, range;
		if (strncmp(e->d_name, "intel-rapl:", 11) != 0)
			continue;
		snprintf(path, sizeof(path), POWERCAP "/%s/max_energy_range_uj", e->d_name);
		if (read_u64_file(path, &range) != 0 || range == 0)
			continue;
		snprintf(path, sizeof(path), POWERCAP "/%s/name", e->d_name);
		if (read_file(path, zname, sizeof(zname)) != 0)
			continue;
		zname[strcspn(zname, "\n")] = 0;
		snprintf(path, sizeof(path), POWERCAP "/%s/energy_uj", e->d_name);
		if (read_u64_file(path, &v) != 0)
			continue;
		/* "package-0" is unique; "core" and "dram" repeat per package. */
		if (strncmp(zname, "package", 7) == 0)
			snprintf(name, sizeof(name), "energy_%s", zname);
		else
			snprintf(name, sizeof(name), "energy_%s-%s", zname, e->d_name + 11);
		offer(name, "J", VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_DOUBLE,
		      ENERGY, path, range);
	}
	closedir(d);
}

static int32_t sysmon_init(void)
{
	vts_env_long(PLUGIN, "SYSMON_INTERVAL_MS", 1, 60000, &interval_ms);
	verbose = vts_env_flag("SYSMON_VERBOSE");
	if (vts_need_wtime(PLUGIN, wtime) != 0)
		return -1;
	vts_sampler_init(&sampler);

	uint64_t a, b, c;
	const uint32_t abs = VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_UNSIGNED;
	const uint32_t acc = VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_UNSIGNED;
	if (proc_stat(&a, &b, &c) == 0) {
		offer("cpu_busy", "%",
		      VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_LAST | VT_PLUGIN_CNTR_DOUBLE, CPU_BUSY,
		      NULL, 0);
		offer("context_switches", "#", acc, CONTEXT_SWITCHES, NULL, 0);
	}
	if (mem_available(&a) == 0)
		offer("mem_available", "B", abs, MEM_AVAILABLE, NULL, 0);
	if (process_rss(&a) == 0)
		offer("process_rss", "B", abs, PROCESS_RSS, NULL, 0);
	if (process_cpu_ns(&a) == 0)
		offer("process_cpu_time", "ns", acc, PROCESS_CPU_TIME, NULL, 0);
	find_cpufreq();
	find_rapl();
	if (!n_offers) {
		fprintf(stderr, PLUGIN ": neither /proc nor /sys can be read here (is /proc "
				       "mounted?); no counters\n");
		return -1;
	}
	return 0;
}

static void set_wtime(uint64_t (*f)(void))
{
	wtime = f;
}

/* Why a name that matches nothing here matches nothing. */
static void explain(const char *requested)
{
	unsigned cpu;
	char tail;
	if (sscanf(requested, "cpu%u_fre%c", &cpu, &tail) == 2 && tail == 'q')
		fprintf(stderr,
			PLUGIN ": %s: " CPUFREQ " is missing or unreadable (no cpufreq "
			       "driver, as in most virtual machines); skipped\n",
			requested, cpu);
	else if (strncmp(requested, "energy_", 7) == 0)
		fprintf(stderr,
			PLUGIN ": %s: no such readable RAPL zone in " POWERCAP
			       " (none on this machine, or energy_uj readable by root only); "
			       "skipped\n",
			requested);
	else if (vts_is_pattern(requested))
		fprintf(stderr, PLUGIN ": \"%s\" matches no counter here; skipped\n", requested);
	else
		fprintf(stderr,
			PLUGIN ": %s: no such counter (there are cpu_busy, "
			       "context_switches, mem_available, process_rss, process_cpu_time, "
			       "cpuN_freq, energy_ZONE); skipped\n",
			requested);
}

static vt_plugin_cntr_metric_info *sysmon_get_event_info(char *requested)
{
	vt_plugin_cntr_metric_info *list = calloc(n_offers + 1, sizeof(*list));
	size_t n = 0;
	bool freq = false, energy = false;
	if (!list)
		return NULL;
	for (size_t i = 0; i < n_offers; i++) {
		if (fnmatch(requested, offers[i].name, 0) != 0)
			continue;
		if (!vts_info_set(&list[n], offers[i].name, offers[i].unit, offers[i].property))
			break;
		freq |= offers[i].source == CPU_FREQ;
		energy |= offers[i].source == ENERGY;
		n++;
	}
	if (n == 0) {
		explain(requested);
	} else if (vts_is_pattern(requested)) {
		/* A pattern that could have matched the /sys counters says why it did not. */
		if (!freq && fnmatch(requested, "cpu0_freq", 0) == 0)
			fprintf(stderr, PLUGIN ": no cpuN_freq counters: no cpufreq driver here\n");
		if (!energy && fnmatch(requested, "energy_package-0", 0) == 0)
			fprintf(stderr, PLUGIN ": no energy_ZONE counters: no readable RAPL "
					       "zone in " POWERCAP "\n");
	}
	return list;
}

static int32_t sysmon_add_counter(char *name)
{
	const struct offer *o = NULL;
	for (size_t i = 0; i < n_offers && !o; i++)
		if (strcmp(offers[i].name, name) == 0)
			o = &offers[i];
	if (!o)
		return -1;
	struct counter c = {.o = o};
	uint64_t r, ctxt;
	if (o->source == CPU_BUSY)
		proc_stat(&c.prev_busy, &c.prev_total, &ctxt);
	else if (raw(o, &r) == 0)
		c.base = c.prev_raw = r;
	pthread_mutex_lock(&lock);
	struct counter *nc = vts_grow(counters, &cap_counters, n_counters, sizeof(*nc), 16);
	if (!nc) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	counters = nc;
	int32_t id = (int32_t)n_counters;
	counters[n_counters++] = c;
	pthread_mutex_unlock(&lock);
	return id;
}

/* ---- the sampler ---- */

static void *sampler_main(void *arg)
{
	(void)arg;
	is_sampler = true;
	pthread_mutex_lock(&lock);
	while (!sampler.stopping) {
		/* The host's time first, the monotonic clock after it, and the next sample
		 * a full period after the latter: so consecutive timestamps are at least a
		 * period apart, however late this thread wakes. */
		uint64_t ts = wtime();
		struct timespec due = vts_sampler_due(interval_ms);
		for (size_t i = 0; i < n_counters; i++) {
			struct counter *c = &counters[i];
			uint64_t v;
			if (!c->enabled || sample(c, &v) != 0)
				continue;
			if (vts_values_push(&c->vals, ts, v, 256))
				c->taken++;
		}
		vts_sampler_wait(&sampler, &lock, &due);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int32_t sysmon_enable_counter(int32_t id)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (id < 0 || (size_t)id >= n_counters) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	counters[id].enabled = true;
	rc = vts_sampler_start(&sampler, sampler_main, PLUGIN);
	pthread_mutex_unlock(&lock);
	return rc ? -1 : 0;
}

static int32_t sysmon_disable_counter(int32_t id)
{
	bool any = false;
	pthread_mutex_lock(&lock);
	if (id < 0 || (size_t)id >= n_counters) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	counters[id].enabled = false;
	for (size_t i = 0; i < n_counters; i++)
		any |= counters[i].enabled;
	pthread_mutex_unlock(&lock);
	if (!any)
		vts_sampler_stop(&sampler, &lock);
	return 0;
}

/* Hands the values taken since the last call over to vt, which frees them. */
static uint64_t sysmon_get_all_values(int32_t id, vt_plugin_cntr_timevalue **result)
{
	uint64_t n = 0;
	*result = NULL;
	pthread_mutex_lock(&lock);
	if (id >= 0 && (size_t)id < n_counters) {
		struct counter *c = &counters[id];
		n = vts_values_take(&c->vals, result);
		c->fetches++;
	}
	pthread_mutex_unlock(&lock);
	return n;
}

static int32_t sysmon_is_thread_registered(void)
{
	return is_sampler;
}

static void sysmon_finalize(void)
{
	vts_sampler_stop(&sampler, &lock);
	for (size_t i = 0; i < n_counters; i++) {
		if (verbose)
			fprintf(stderr,
				PLUGIN ": %s: %" PRIu64 " values taken, fetched in %" PRIu64
				       " calls of get_all_values\n",
				counters[i].o->name, counters[i].taken, counters[i].fetches);
		free(counters[i].vals.v);
	}
	free(counters);
	counters = NULL;
	n_counters = cap_counters = 0;
	for (size_t i = 0; i < n_offers; i++) {
		free(offers[i].name);
		free(offers[i].path);
	}
	free(offers);
	offers = NULL;
	n_offers = 0;
	pthread_cond_destroy(&sampler.wake);
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.run_per = VT_PLUGIN_CNTR_PER_PROCESS;
	info.synch = SYNCH;
	info.set_pform_wtime_function = set_wtime;
	info.init = sysmon_init;
	info.get_event_info = sysmon_get_event_info;
	info.add_counter = sysmon_add_counter;
	info.enable_counter = sysmon_enable_counter;
	info.disable_counter = sysmon_disable_counter;
	info.get_all_values = sysmon_get_all_values;
	info.is_thread_registered = sysmon_is_thread_registered;
	info.finalize = sysmon_finalize;
	return info;
}
