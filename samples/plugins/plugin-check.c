/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugin-check: loads one VampirTrace-interface counter plugin and calls it in the order
 * vt's host does (docs/dev/plugin-host.md), checking what the interface promises. For the
 * sample plugins' tests, and for a plugin author's first steps without a traced program.
 *
 *   plugin-check LIB.so NAME... [options]
 *     --threads N       PER_THREAD plugins: add the counters on N threads at once (1)
 *     --ms N            asynchronous plugins: run N ms before disabling (200)
 *     --env VAR=VALUE   set before the plugin is loaded (repeatable)
 *     --expect-none     every NAME must yield no counter (and the plugin must say why)
 *     --monotonic       accumulated counters must never decrease
 *     --max V           every value must be <= V
 *     --period-ms P     asynchronous values of a counter at least P ms apart, at most
 *                       run/P + 1 of them, and at least 2
 *     --refuse K        callback plugins: the first K values offered get BUFFER_FULL, and
 *                       must be offered again, oldest first
 *     --off-after M     callback plugins: after M values accepted, TRACE_OFF_PERMANENT; no
 *                       call may follow
 *
 * Prints one line per check ("ok - ..." or "FAIL - ...") and the values' summary; exits 1
 * if a check failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vampirtrace/vt_plugin_cntr.h>

#define MAX_METRICS 256
#define MAX_THREADS 16
#define MAX_VALUES  100000

static vt_plugin_cntr_info info;
static int failed, passed;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	int threads, ms, refuse, off_after;
	bool expect_none, monotonic;
	uint64_t max;
	bool have_max;
	double period_ms;
} opt = {.threads = 1, .ms = 200, .refuse = 0, .off_after = -1};

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&out_lock);
	printf(cond ? "ok   - " : "FAIL - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (cond)
		passed++;
	else
		failed++;
	pthread_mutex_unlock(&out_lock);
}

static uint64_t t0;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock handed to the plugin: ns since a second before start (never 0). */
static uint64_t harness_wtime(void)
{
	return mono_ns() - t0;
}

/* The counters the plugin offered. */
static vt_plugin_cntr_metric_info metrics[MAX_METRICS];
static int n_metrics;

static bool bit_count_le1(uint32_t x)
{
	return (x & (x - 1)) == 0;
}

static void check_metric(const vt_plugin_cntr_metric_info *m, const char *requested)
{
	uint32_t p = m->cntr_property;
	check(m->name && *m->name, "%s: counter has a name", requested);
	if (!m->name)
		return;
	check(!strstr(m->name, "--"), "%s: name %s has no \"--\"", requested, m->name);
	check(m->unit != NULL && !strstr(m->unit, "--"), "%s: %s has a unit (%s)", requested,
	      m->name, m->unit ? m->unit : "NULL");
	check(!!(p & VT_PLUGIN_CNTR_ACC) != !!(p & VT_PLUGIN_CNTR_ABS),
	      "%s: %s is either ACC or ABS (0x%x)", requested, m->name, p);
	check(bit_count_le1(p & (VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_LAST |
				 VT_PLUGIN_CNTR_NEXT)),
	      "%s: %s has at most one timing (0x%x)", requested, m->name, p);
	check(bit_count_le1(p & (VT_PLUGIN_CNTR_SIGNED | VT_PLUGIN_CNTR_UNSIGNED |
				 VT_PLUGIN_CNTR_FLOAT | VT_PLUGIN_CNTR_DOUBLE)),
	      "%s: %s has at most one value type (0x%x)", requested, m->name, p);
	check((p & ~0x3ffu) == 0, "%s: %s sets no unknown property bit (0x%x)", requested, m->name,
	      p);
}

/* ---- counters as added ---- */

struct added {
	int metric; /* index into metrics */
	int thread;
	int32_t id;
	/* synchronous */
	uint64_t first, last, reads;
	bool decreased;
	uint64_t over_max;
	uint64_t distinct_guess; /* how often the value changed */
	/* asynchronous */
	vt_plugin_cntr_timevalue *v;
	size_t n, cap;
	/* callback */
	atomic_int calls, accepted, refusals_left;
	atomic_bool disabled, turned_off, late_call, foreign_thread;
	uint64_t first_refused_ts;
	atomic_bool refused_any;
	pthread_mutex_t lock;
};

static struct added added[MAX_METRICS * MAX_THREADS];
static atomic_int n_added;
static pthread_barrier_t barrier;

static bool is_acc(const struct added *a)
{
	return metrics[a->metric].cntr_property & VT_PLUGIN_CNTR_ACC;
}

static void append(struct added *a, vt_plugin_cntr_timevalue tv)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		if (cap > MAX_VALUES)
			return;
		a->v = realloc(a->v, cap * sizeof(*a->v));
		if (!a->v)
			abort();
		a->cap = cap;
	}
	a->v[a->n++] = tv;
}

static int32_t callback(void *obj, vt_plugin_cntr_timevalue tv)
{
	struct added *a = obj;
	atomic_fetch_add(&a->calls, 1);
	if (a->disabled || a->turned_off)
		a->late_call = true;
	if (info.is_thread_registered && !info.is_thread_registered())
		a->foreign_thread = true;
	if (atomic_load(&a->refusals_left) > 0) {
		atomic_fetch_sub(&a->refusals_left, 1);
		if (!a->refused_any) {
			a->first_refused_ts = tv.timestamp;
			a->refused_any = true;
		}
		return VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL;
	}
	if (opt.off_after >= 0 && atomic_load(&a->accepted) >= opt.off_after) {
		a->turned_off = true;
		return VT_PLUGIN_CNTR_CALLBACK_TRACE_OFF_PERMANENT;
	}
	pthread_mutex_lock(&a->lock);
	append(a, tv);
	pthread_mutex_unlock(&a->lock);
	atomic_fetch_add(&a->accepted, 1);
	return VT_PLUGIN_CNTR_CALLBACK_OK;
}

/* Work between reads: touches fresh pages, sleeps now and then. */
static void work(int i)
{
	static _Thread_local char *mem;
	if (!mem)
		mem = malloc(64 << 20);
	if (mem)
		mem[((size_t)i * 4096) % (64 << 20)] = (char)i;
	if (i % 50 == 0)
		usleep(1000);
}

/* Adds every metric on the calling thread; mine gets the indices (in added[]) of its own
 * counters, which other threads' adds interleave with. */
static void add_all(int thread, int *mine, int *count)
{
	check(!info.is_thread_registered || !info.is_thread_registered(),
	      "thread %d: is_thread_registered says no on a thread of the program", thread);
	*count = 0;
	pthread_barrier_wait(&barrier);
	for (int m = 0; m < n_metrics; m++) {
		int32_t id = info.add_counter(metrics[m].name);
		check(id >= 0, "thread %d: add_counter(%s) = %d", thread, metrics[m].name, id);
		if (id < 0)
			continue;
		int k = atomic_fetch_add(&n_added, 1);
		struct added *a = &added[k];
		a->metric = m;
		a->thread = thread;
		a->id = id;
		a->refusals_left = opt.refuse;
		pthread_mutex_init(&a->lock, NULL);
		mine[(*count)++] = k;
	}
}

static void *thread_main(void *arg)
{
	int thread = (int)(intptr_t)arg, count, mine[MAX_METRICS];
	add_all(thread, mine, &count);
	pthread_barrier_wait(&barrier);
	/* Synchronous: read each counter at every "event" of this thread. */
	for (int i = 0; i < 300 && count > 0; i++) {
		work(i);
		for (int j = 0; j < count; j++) {
			struct added *a = &added[mine[j]];
			uint64_t v = info.get_current_value(a->id);
			if (a->reads && v < a->last)
				a->decreased = true;
			if (a->reads && v != a->last)
				a->distinct_guess++;
			if (!a->reads)
				a->first = v;
			if (opt.have_max && v > opt.max)
				a->over_max++;
			a->last = v;
			a->reads++;
		}
	}
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void fetch(struct added *a)
{
	vt_plugin_cntr_timevalue *list = NULL;
	uint64_t n = info.get_all_values(a->id, &list);
	check(!n || list, "%s: get_all_values gave the %" PRIu64 " values it counted",
	      metrics[a->metric].name, n);
	for (uint64_t i = 0; i < n && list; i++)
		append(a, list[i]);
	free(list);
}

static void check_async(struct added *a, uint64_t start, uint64_t end)
{
	const char *name = metrics[a->metric].name;
	bool sorted = true, inside = true, spaced = true, mono = true;
	double min_gap = 1e30;
	for (size_t i = 0; i < a->n; i++) {
		uint64_t ts = a->v[i].timestamp;
		if (ts < start || ts > end)
			inside = false;
		if (i && ts < a->v[i - 1].timestamp)
			sorted = false;
		if (i) {
			double gap = (double)(ts - a->v[i - 1].timestamp) / 1e6;
			if (gap < min_gap)
				min_gap = gap;
			if (opt.period_ms > 0 && gap < opt.period_ms)
				spaced = false;
		}
		if (i && is_acc(a) && a->v[i].value < a->v[i - 1].value)
			mono = false;
		if (opt.have_max && a->v[i].value > opt.max)
			a->over_max++;
	}
	printf("values %s: %zu, first %" PRIu64 " last %" PRIu64 ", smallest gap %.3f ms\n", name,
	       a->n, a->n ? a->v[0].value : 0, a->n ? a->v[a->n - 1].value : 0,
	       a->n > 1 ? min_gap : 0.0);
	check(inside, "%s: timestamps from the clock handed over, within the run", name);
	check(sorted, "%s: timestamps in order", name);
	if (opt.period_ms > 0) {
		double run = (double)(end - start) / 1e6;
		check(spaced, "%s: values at least %.0f ms apart", name, opt.period_ms);
		check(a->n >= 2 && a->n <= (size_t)(run / opt.period_ms) + 1,
		      "%s: %zu values in %.0f ms at one per %.0f ms at most, and 2 at least", name,
		      a->n, run, opt.period_ms);
	} else {
		check(a->n >= 1, "%s: values arrived (%zu)", name, a->n);
	}
	if (opt.monotonic && is_acc(a))
		check(mono, "%s: accumulated values never decrease", name);
}

static int usage(void)
{
	fprintf(stderr, "usage: plugin-check LIB.so NAME... [--threads N] [--ms N] "
			"[--env VAR=VALUE] [--expect-none] [--monotonic] [--max V] "
			"[--period-ms P] [--refuse K] [--off-after M]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	const char *names[MAX_METRICS];
	int n_names = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--expect-none") == 0)
			opt.expect_none = true;
		else if (strcmp(a, "--monotonic") == 0)
			opt.monotonic = true;
		else if (a[0] == '-' && a[1] == '-' && !v)
			return usage();
		else if (strcmp(a, "--threads") == 0)
			opt.threads = atoi(argv[++i]);
		else if (strcmp(a, "--ms") == 0)
			opt.ms = atoi(argv[++i]);
		else if (strcmp(a, "--refuse") == 0)
			opt.refuse = atoi(argv[++i]);
		else if (strcmp(a, "--off-after") == 0)
			opt.off_after = atoi(argv[++i]);
		else if (strcmp(a, "--period-ms") == 0)
			opt.period_ms = atof(argv[++i]);
		else if (strcmp(a, "--max") == 0) {
			opt.max = strtoull(argv[++i], NULL, 0);
			opt.have_max = true;
		} else if (strcmp(a, "--env") == 0) {
			putenv(argv[++i]);
		} else if (!lib)
			lib = a;
		else if (n_names < MAX_METRICS)
			names[n_names++] = a;
	}
	if (!lib || !n_names || opt.threads < 1 || opt.threads > MAX_THREADS)
		return usage();
	t0 = mono_ns() - 1000000000u;

	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	check(h != NULL, "dlopen %s%s%s", lib, h ? "" : ": ", h ? "" : dlerror());
	if (!h)
		return 1;
	vt_plugin_cntr_info (*get)(void) = (vt_plugin_cntr_info(*)(void))dlsym(h, "get_info");
	check(get != NULL, "exports get_info");
	if (!get)
		return 1;
	info = get();
	bool zero = true;
	for (size_t i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		zero &= info.reserved[i] == 0;
	check(info.vt_plugin_cntr_version == VT_PLUGIN_CNTR_VERSION, "version %u",
	      info.vt_plugin_cntr_version);
	check(zero, "reserved words are zero");
	check(info.init && info.get_event_info && info.add_counter,
	      "has init, get_event_info, add_counter");
	check(info.run_per >= 0 && info.run_per < VT_PLUGIN_CNTR_RUN_PER_MAX, "run_per %d",
	      info.run_per);
	check(info.synch >= 0 && info.synch < VT_PLUGIN_CNTR_SYNCH_TYPE_MAX, "synch %d",
	      info.synch);
	bool sync = info.synch == VT_PLUGIN_CNTR_SYNCH;
	bool cb = info.synch == VT_PLUGIN_CNTR_ASYNCH_CALLBACK;
	if (sync)
		check(info.get_current_value != NULL, "synchronous: has get_current_value");
	else
		check(info.set_pform_wtime_function &&
			  (cb ? info.set_callback_function != NULL : info.get_all_values != NULL),
		      "asynchronous: has set_pform_wtime_function and %s",
		      cb ? "set_callback_function" : "get_all_values");
	if (failed)
		return 1;

	if (!sync)
		info.set_pform_wtime_function(harness_wtime);
	int32_t rc = info.init();
	check(rc == 0, "init() = %d", rc);
	if (rc != 0)
		return 1;

	for (int i = 0; i < n_names; i++) {
		vt_plugin_cntr_metric_info *list = info.get_event_info((char *)names[i]);
		int n = 0;
		while (list && list[n].name)
			n++;
		if (opt.expect_none) {
			check(n == 0, "get_event_info(\"%s\") offers nothing", names[i]);
		} else {
			check(n > 0, "get_event_info(\"%s\") offers %d counters", names[i], n);
		}
		for (int k = 0; k < n; k++) {
			printf("metric %s unit \"%s\" property 0x%x\n", list[k].name,
			       list[k].unit ? list[k].unit : "", list[k].cntr_property);
			check_metric(&list[k], names[i]);
			bool dup = false;
			for (int j = 0; j < n_metrics; j++)
				dup |= strcmp(metrics[j].name, list[k].name) == 0;
			check(!dup, "%s: offered once", list[k].name);
			if (!dup && n_metrics < MAX_METRICS)
				metrics[n_metrics++] = list[k];
			else {
				free(list[k].name);
				free(list[k].unit);
			}
		}
		free(list);
	}
	if (opt.expect_none || !n_metrics) {
		if (info.finalize)
			info.finalize();
		printf("%d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}

	/* Adding: PER_THREAD on every thread at once; other scopes on the first only. */
	int threads = info.run_per == VT_PLUGIN_CNTR_PER_THREAD ? opt.threads : 1;
	pthread_t tid[MAX_THREADS];
	uint64_t start = harness_wtime();
	if (sync) {
		pthread_barrier_init(&barrier, NULL, (unsigned)threads);
		for (int t = 1; t < threads; t++)
			pthread_create(&tid[t], NULL, thread_main, (void *)(intptr_t)t);
		thread_main((void *)0);
		for (int t = 1; t < threads; t++)
			pthread_join(tid[t], NULL);
		int n = atomic_load(&n_added);
		bool unique = true;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				unique &= added[i].id != added[j].id;
		check(unique, "ids of the %d counters added on %d threads are distinct", n,
		      threads);
		for (int i = 0; i < n; i++) {
			struct added *a = &added[i];
			const char *name = metrics[a->metric].name;
			printf("values %s thread %d: %" PRIu64 " reads, first %" PRIu64
			       " last %" PRIu64 ", changed %" PRIu64 " times\n",
			       name, a->thread, a->reads, a->first, a->last, a->distinct_guess);
			if (opt.monotonic && is_acc(a))
				check(!a->decreased, "%s thread %d: never decreases", name,
				      a->thread);
			if (opt.have_max)
				check(!a->over_max, "%s thread %d: values <= %" PRIu64, name,
				      a->thread, opt.max);
			if (info.disable_counter)
				check(info.disable_counter(a->id) == 0, "%s: disable_counter",
				      name);
		}
	} else {
		/* One thread: its counters are added[0, count). */
		int first = 0, count, mine[MAX_METRICS];
		pthread_barrier_init(&barrier, NULL, 1);
		add_all(0, mine, &count);
		for (int k = first; k < first + count; k++) {
			struct added *a = &added[k];
			if (cb)
				check(info.set_callback_function(a, a->id, callback) == 0,
				      "%s: set_callback_function", metrics[a->metric].name);
			if (info.enable_counter)
				check(info.enable_counter(a->id) == 0, "%s: enable_counter",
				      metrics[a->metric].name);
		}
		/* Run; on-event plugins are asked now and then, as at buffer flushes. */
		for (int ms = 0; ms < opt.ms; ms += 50) {
			sleep_ms(opt.ms - ms < 50 ? opt.ms - ms : 50);
			if (info.synch == VT_PLUGIN_CNTR_ASYNCH_EVENT)
				for (int k = first; k < first + count; k++)
					fetch(&added[k]);
		}
		for (int k = first; k < first + count; k++) {
			struct added *a = &added[k];
			if (info.disable_counter)
				check(info.disable_counter(a->id) == 0, "%s: disable_counter",
				      metrics[a->metric].name);
			a->disabled = true;
			if (!cb)
				fetch(a);
		}
		/* A callback arriving now would be late: give a stray one time to show. */
		if (cb)
			sleep_ms(100);
		uint64_t end = harness_wtime();
		for (int k = first; k < first + count && first >= 0; k++) {
			struct added *a = &added[k];
			const char *name = metrics[a->metric].name;
			pthread_mutex_lock(&a->lock);
			check_async(a, start, end);
			pthread_mutex_unlock(&a->lock);
			if (!cb)
				continue;
			check(!a->late_call,
			      "%s: no callback after disable_counter or "
			      "TRACE_OFF_PERMANENT",
			      name);
			check(!a->foreign_thread,
			      "%s: callbacks come from a thread the plugin "
			      "registered as its own",
			      name);
			if (opt.refuse > 0)
				check(
				    a->refused_any && a->n &&
					a->v[0].timestamp == a->first_refused_ts,
				    "%s: the value refused with BUFFER_FULL is offered again first",
				    name);
			if (opt.off_after >= 0)
				check(a->turned_off && a->calls == opt.off_after + opt.refuse + 1,
				      "%s: %d calls: %d accepted, then TRACE_OFF_PERMANENT and no "
				      "more",
				      name, atomic_load(&a->calls), opt.off_after);
		}
	}
	if (info.finalize)
		info.finalize();
	for (int m = 0; m < n_metrics; m++) {
		free(metrics[m].name);
		free(metrics[m].unit);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
