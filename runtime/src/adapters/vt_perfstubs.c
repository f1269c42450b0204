/* SPDX-License-Identifier: BSD-3-Clause */
/* The perfstubs tool interface: timers, phases, counters, metadata and the data calls. */
/*
 * The perfstubs tool interface: libraries instrumented with perfstubs (ADIOS2 and others)
 * find these functions with dlsym(RTLD_DEFAULT) or through weak symbols, and vt records what
 * they report. Timers are regions (by name, so the same name from any library is the same
 * region), dynamic phases are regions called "NAME ITERATION", counters are metrics the
 * program defines (vt_metric_define), metadata and parameters are trace properties
 * PERFSTUBS::METADATA::NAME and PERFSTUBS::PARAMETER::NAME (NAME upper-cased, other
 * characters than [A-Z0-9_] made '_'; a parameter's value is its last).
 *
 * The data calls answer from what vt recorded so far: per thread that used the interface
 * (in the order of its first call), each timer's calls and inclusive and exclusive time in
 * microseconds, and each counter's samples, total, minimum, maximum and sum of squares.
 * Each thread keeps its own figures in pages that never move, written by the thread alone,
 * so a data call on another thread reads them without stopping anybody.
 *
 * pause_measurement and resume_measurement switch recording off and on for the calling
 * thread, as VT_USER_TRACE_OFF/ON do. Stopping a timer that is not the innermost one
 * started on the thread stops those started after it first.
 */
#include "adapters/vt_perfstubs.h"
#include "base/vt_clock.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "metrics/vt_metric.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_EXPORT __attribute__((visibility("default"), no_instrument_function))

/* ---- timers and counters: process-wide, by name, never freed ---- */

#define PAGE	  64 /* entries per page of a thread's figures */
#define PAGES	  64 /* pages per thread: 4096 timers and 4096 counters */
#define MAX_ITEMS (PAGE * PAGES)
#define MAX_DEPTH 256

struct ps_timer {
	uint32_t index;
	uint32_t region; /* its region's value (id and filter flag): a handle needs no look-up */
	char *name;
};

struct ps_counter {
	uint32_t index;
	int32_t metric;
	char *name;
};

#define BY_REGION_SLOTS (MAX_ITEMS * 2)

struct ps_timer_fig {
	uint64_t calls, incl, excl; /* ticks */
};

struct ps_counter_fig {
	uint64_t samples;
	double total, min, max, sumsqr;
};

/* One thread's figures, and its stack of running timers. */
struct ps_thread {
	struct ps_timer_fig *tpages[PAGES];
	struct ps_counter_fig *cpages[PAGES];
	struct {
		uint32_t timer, region;
		uint64_t t0, child;
	} stack[MAX_DEPTH];
	uint32_t depth, overflow;
	struct ps_thread *next;
};

static struct {
	pthread_mutex_t lock;
	struct ps_timer *timers[MAX_ITEMS];
	uint32_t n_timers;
	struct ps_counter *counters[MAX_ITEMS];
	uint32_t n_counters;
	/* Timers by region id: the timer of a region started by name (start_string). */
	struct {
		uint32_t key; /* region id + 1; 0: empty; published last */
		uint32_t timer;
	} by_region[BY_REGION_SLOTS];
	/* threads_tail NULL: the list is empty. An initialiser pointing into ps would move its
	 * 128 KiB from .bss into libvt.so's .data. */
	struct ps_thread *threads, **threads_tail;
	uint32_t n_threads;
	/* Metadata and parameters. */
	struct {
		char **names, **values;
		unsigned n, cap;
	} meta;
} ps = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
static __thread struct ps_thread *self __attribute__((tls_model("initial-exec")));

static struct ps_thread *me(void)
{
	if (vt_likely(self))
		return self;
	struct ps_thread *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_lock(&ps.lock);
	*(ps.threads_tail ? ps.threads_tail : &ps.threads) = p;
	ps.threads_tail = &p->next;
	ps.n_threads++;
	pthread_mutex_unlock(&ps.lock);
	/* The list only grows; the thread's figures stay for the data calls after it ends. */
	self = p;
	return p;
}

/* The thread's figures of item i, the page made on first use (NULL: no memory). */
static void *fig(void **pages, uint32_t i, size_t size)
{
	void *page = __atomic_load_n(&pages[i / PAGE], __ATOMIC_ACQUIRE);
	if (vt_unlikely(!page)) {
		page = calloc(PAGE, size);
		if (!page)
			return NULL;
		__atomic_store_n(&pages[i / PAGE], page, __ATOMIC_RELEASE);
	}
	return (char *)page + (i % PAGE) * size;
}

static struct ps_timer *timer_of_region(uint32_t val, const char *name, size_t len)
{
	uint32_t id = val & VT_REGION_ID_MASK, key = id + 1;
	uint32_t h = (uint32_t)(key * 0x9E3779B1u) % BY_REGION_SLOTS;
	for (uint32_t i = h;; i = (i + 1) % BY_REGION_SLOTS) {
		uint32_t k = __atomic_load_n(&ps.by_region[i].key, __ATOMIC_ACQUIRE);
		if (k == key)
			return ps.timers[ps.by_region[i].timer];
		if (!k)
			break;
	}
	struct ps_timer *t = NULL;
	pthread_mutex_lock(&ps.lock);
	for (uint32_t i = h;; i = (i + 1) % BY_REGION_SLOTS) {
		if (ps.by_region[i].key == key) {
			t = ps.timers[ps.by_region[i].timer];
			break;
		}
		if (ps.by_region[i].key)
			continue;
		if (ps.n_timers == MAX_ITEMS) {
			static bool said;
			if (!said)
				vt_warn("perfstubs: more than %d timers; the figures of later ones "
					"are not kept (their regions are recorded)",
					MAX_ITEMS);
			said = true;
			break;
		}
		t = malloc(sizeof(*t));
		char *copy = malloc(len + 1);
		if (!t || !copy) {
			free(t);
			free(copy);
			t = NULL;
			break;
		}
		memcpy(copy, name, len);
		copy[len] = '\0';
		*t = (struct ps_timer){ps.n_timers, val, copy};
		ps.timers[ps.n_timers] = t;
		ps.by_region[i].timer = ps.n_timers++;
		__atomic_store_n(&ps.by_region[i].key, key, __ATOMIC_RELEASE);
		break;
	}
	pthread_mutex_unlock(&ps.lock);
	return t;
}

/* ---- starting and stopping ---- */

static void start(uint32_t val, struct ps_timer *timer)
{
	struct vt_tls *t = vt_thread_self();
	if (!t)
		return;
	struct ps_thread *p = me();
	if (p && timer) {
		if (p->depth < MAX_DEPTH) {
			p->stack[p->depth].timer = timer->index;
			p->stack[p->depth].region = val;
			p->stack[p->depth].child = 0;
			p->stack[p->depth].t0 = vt_clock_now();
			p->depth++;
		} else {
			p->overflow++;
		}
	}
	vt_thread_enter(t, val);
}

/* Pops the top of p's stack at now, with its figures and its Leave. */
static void pop(struct vt_tls *t, struct ps_thread *p, uint64_t now)
{
	p->depth--;
	uint64_t d = now - p->stack[p->depth].t0, child = p->stack[p->depth].child;
	struct ps_timer_fig *f =
	    fig((void **)p->tpages, p->stack[p->depth].timer, sizeof(struct ps_timer_fig));
	if (f) {
		__atomic_store_n(&f->calls, f->calls + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&f->incl, f->incl + d, __ATOMIC_RELAXED);
		__atomic_store_n(&f->excl, f->excl + (d > child ? d - child : 0), __ATOMIC_RELAXED);
	}
	if (p->depth)
		p->stack[p->depth - 1].child += d;
	vt_thread_leave(t, p->stack[p->depth].region);
}

static void stop(uint32_t val, struct ps_timer *timer)
{
	struct vt_tls *t = vt_thread_self();
	if (!t)
		return;
	struct ps_thread *p = self;
	if (!p || !timer || p->overflow) {
		if (p && p->overflow)
			p->overflow--;
		vt_thread_leave(t, val);
		return;
	}
	uint32_t d = p->depth;
	while (d && p->stack[d - 1].timer != timer->index)
		d--;
	if (!d) {
		/* Not running here: its Leave goes to the trace, which repairs the stack. */
		vt_thread_leave(t, val);
		return;
	}
	uint64_t now = vt_clock_now();
	while (p->depth >= d)
		pop(t, p, now);
}

PS_EXPORT void ps_tool_initialize(void)
{
	/* vt starts with the first event of the program; this starts it now if it has not. */
	vt_thread_self();
}

PS_EXPORT void ps_tool_finalize(void)
{
	/* vt writes the trace when the program ends; the library's end is not the program's. */
}

PS_EXPORT void ps_tool_register_thread(void)
{
	if (vt_thread_self())
		me();
}

PS_EXPORT void ps_tool_dump_data(void)
{
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_flush_now(t);
}

PS_EXPORT void ps_tool_pause_measurement(void)
{
	struct vt_tls *t = vt_thread_self();
	if (t)
		vt_thread_pause(t);
}

PS_EXPORT void ps_tool_resume_measurement(void)
{
	vt_thread_resume(&vt_tls);
}

PS_EXPORT void *ps_tool_timer_create(const char *name)
{
	if (!name)
		return NULL;
	size_t len = strlen(name);
	return timer_of_region(vt_region_of_string(name, len), name, len);
}

/* A handle is a struct ps_timer, which knows its region. */
PS_EXPORT void ps_tool_timer_start(void *timer)
{
	struct ps_timer *h = timer;
	if (h)
		start(h->region, h);
}

PS_EXPORT void ps_tool_timer_stop(void *timer)
{
	struct ps_timer *h = timer;
	if (h)
		stop(h->region, h);
}

PS_EXPORT void ps_tool_start_string(const char *name)
{
	if (!name)
		return;
	size_t len = strlen(name);
	uint32_t val = vt_region_of_string(name, len);
	start(val, timer_of_region(val, name, len));
}

PS_EXPORT void ps_tool_stop_string(const char *name)
{
	if (!name)
		return;
	size_t len = strlen(name);
	uint32_t val = vt_region_of_string(name, len);
	stop(val, timer_of_region(val, name, len));
}

PS_EXPORT void ps_tool_stop_current(void)
{
	struct vt_tls *t = vt_thread_self();
	struct ps_thread *p = self;
	if (t && p && p->depth)
		pop(t, p, vt_clock_now());
}

static int phase_name(char *buf, size_t size, const char *name, int iteration)
{
	return snprintf(buf, size, "%s %d", name, iteration);
}

PS_EXPORT void ps_tool_dynamic_phase_start(const char *name, int iteration)
{
	char buf[512];
	if (name && phase_name(buf, sizeof(buf), name, iteration) > 0)
		ps_tool_start_string(buf);
}

PS_EXPORT void ps_tool_dynamic_phase_stop(const char *name, int iteration)
{
	char buf[512];
	if (name && phase_name(buf, sizeof(buf), name, iteration) > 0)
		ps_tool_stop_string(buf);
}

/* ---- counters ---- */

PS_EXPORT void *ps_tool_create_counter(const char *name)
{
	if (!name)
		return NULL;
	vt_thread_self(); /* vt starts here if it has not */
	if (vt_core_state() != VT_STATE_ON)
		return NULL;
	struct ps_counter *c = NULL;
	pthread_mutex_lock(&ps.lock);
	for (uint32_t i = 0; i < ps.n_counters && !c; i++)
		if (strcmp(ps.counters[i]->name, name) == 0)
			c = ps.counters[i];
	if (!c && ps.n_counters < MAX_ITEMS && (c = malloc(sizeof(*c)))) {
		*c = (struct ps_counter){ps.n_counters, vt_metric_define(name, "", true),
					 strdup(name)};
		if (c->name)
			ps.counters[ps.n_counters++] = c;
		else {
			free(c);
			c = NULL;
		}
	}
	pthread_mutex_unlock(&ps.lock);
	return c;
}

PS_EXPORT void ps_tool_sample_counter(void *counter, double value)
{
	struct ps_counter *c = counter;
	struct vt_tls *t = vt_thread_self();
	struct ps_thread *p;
	if (!c || !t || !(p = me()))
		return;
	uint64_t bits;
	memcpy(&bits, &value, sizeof(bits));
	vt_metric_set(t, c->metric, bits);
	struct ps_counter_fig *f = fig((void **)p->cpages, c->index, sizeof(*f));
	if (!f)
		return;
	double v[4] = {f->total + value, f->samples && f->min < value ? f->min : value,
		       f->samples && f->max > value ? f->max : value, f->sumsqr + value * value};
	__atomic_store(&f->total, &v[0], __ATOMIC_RELAXED);
	__atomic_store(&f->min, &v[1], __ATOMIC_RELAXED);
	__atomic_store(&f->max, &v[2], __ATOMIC_RELAXED);
	__atomic_store(&f->sumsqr, &v[3], __ATOMIC_RELAXED);
	__atomic_store_n(&f->samples, f->samples + 1, __ATOMIC_RELEASE);
}

/* ---- metadata and parameters ---- */

/* PERFSTUBS::KIND::NAME, in the characters OTF2 allows in property names. */
static void property_name(char *out, size_t size, const char *kind, const char *name)
{
	int n = snprintf(out, size, "PERFSTUBS::%s::", kind);
	size_t i = n > 0 ? (size_t)n : 0;
	for (const char *s = name; *s && i + 1 < size; s++, i++) {
		char c = *s;
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		out[i] = c;
	}
	out[i] = '\0';
}

PS_EXPORT void ps_tool_set_metadata(const char *name, const char *value)
{
	char prop[512];
	if (!name || !*name || !value)
		return;
	property_name(prop, sizeof(prop), "METADATA", name);
	vt_annot_property(prop, value);
	int saved = errno;
	pthread_mutex_lock(&ps.lock);
	unsigned i = 0;
	while (i < ps.meta.n && strcmp(ps.meta.names[i], name) != 0)
		i++;
	char *v = strdup(value);
	if (v && i < ps.meta.n) {
		free(ps.meta.values[i]);
		ps.meta.values[i] = v;
	} else if (v) {
		if (ps.meta.n == ps.meta.cap) {
			unsigned cap = ps.meta.cap ? 2 * ps.meta.cap : 16;
			char **n = realloc(ps.meta.names, cap * sizeof(*n));
			if (n)
				ps.meta.names = n;
			char **w = realloc(ps.meta.values, cap * sizeof(*w));
			if (w)
				ps.meta.values = w;
			if (n && w)
				ps.meta.cap = cap;
		}
		char *k = strdup(name);
		if (ps.meta.n < ps.meta.cap && k) {
			ps.meta.names[ps.meta.n] = k;
			ps.meta.values[ps.meta.n++] = v;
		} else {
			free(k);
			free(v);
		}
	}
	pthread_mutex_unlock(&ps.lock);
	errno = saved;
}

PS_EXPORT void ps_tool_set_parameter(const char *name, int64_t value)
{
	char prop[512], text[32];
	if (!name || !*name)
		return;
	property_name(prop, sizeof(prop), "PARAMETER", name);
	snprintf(text, sizeof(text), "%lld", (long long)value);
	vt_annot_property(prop, text);
}

/* ---- the data calls ---- */

static char **copy_names(char *const *names, unsigned n)
{
	char **out = calloc(n ? n : 1, sizeof(*out));
	for (unsigned i = 0; out && i < n; i++)
		out[i] = strdup(names[i]);
	return out;
}

PS_EXPORT void ps_tool_get_timer_data(ps_tool_timer_data_t *d)
{
	static char *const metric_names[] = {"Calls", "Inclusive Time", "Exclusive Time"};
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	pthread_mutex_lock(&ps.lock);
	unsigned nt = ps.n_timers, nth = ps.n_threads;
	d->timer_names = calloc(nt ? nt : 1, sizeof(char *));
	for (unsigned i = 0; d->timer_names && i < nt; i++)
		d->timer_names[i] = strdup(ps.timers[i]->name);
	struct ps_thread *list = ps.threads;
	pthread_mutex_unlock(&ps.lock);
	d->metric_names = copy_names(metric_names, 3);
	d->values = calloc((size_t)nt * nth * 3 + 1, sizeof(double));
	if (!d->timer_names || !d->metric_names || !d->values)
		return;
	d->num_timers = nt;
	d->num_threads = nth;
	d->num_metrics = 3;
	double us = 1e6 / (double)vt_clock_resolution();
	unsigned k = 0;
	for (struct ps_thread *p = list; p && k < nth; p = p->next, k++) {
		for (unsigned i = 0; i < nt; i++) {
			struct ps_timer_fig *page =
			    __atomic_load_n(&p->tpages[i / PAGE], __ATOMIC_ACQUIRE);
			if (!page)
				continue;
			struct ps_timer_fig *f = &page[i % PAGE];
			double *v = &d->values[((size_t)i * nth + k) * 3];
			v[0] = (double)__atomic_load_n(&f->calls, __ATOMIC_RELAXED);
			v[1] = (double)__atomic_load_n(&f->incl, __ATOMIC_RELAXED) * us;
			v[2] = (double)__atomic_load_n(&f->excl, __ATOMIC_RELAXED) * us;
		}
	}
}

PS_EXPORT void ps_tool_free_timer_data(ps_tool_timer_data_t *d)
{
	if (!d)
		return;
	for (unsigned i = 0; d->timer_names && i < d->num_timers; i++)
		free(d->timer_names[i]);
	for (unsigned i = 0; d->metric_names && i < d->num_metrics; i++)
		free(d->metric_names[i]);
	free(d->timer_names);
	free(d->metric_names);
	free(d->values);
	memset(d, 0, sizeof(*d));
}

PS_EXPORT void ps_tool_get_counter_data(ps_tool_counter_data_t *d)
{
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	pthread_mutex_lock(&ps.lock);
	unsigned nc = ps.n_counters, nth = ps.n_threads;
	d->counter_names = calloc(nc ? nc : 1, sizeof(char *));
	for (unsigned i = 0; d->counter_names && i < nc; i++)
		d->counter_names[i] = strdup(ps.counters[i]->name);
	struct ps_thread *list = ps.threads;
	pthread_mutex_unlock(&ps.lock);
	size_t n = (size_t)nc * nth + 1;
	double **arrays[] = {&d->num_samples, &d->value_total, &d->value_min, &d->value_max,
			     &d->value_sumsqr};
	for (size_t a = 0; a < 5; a++)
		*arrays[a] = calloc(n, sizeof(double));
	for (size_t a = 0; a < 5; a++)
		if (!*arrays[a] || !d->counter_names)
			return;
	d->num_counters = nc;
	d->num_threads = nth;
	unsigned k = 0;
	for (struct ps_thread *p = list; p && k < nth; p = p->next, k++) {
		for (unsigned i = 0; i < nc; i++) {
			struct ps_counter_fig *page =
			    __atomic_load_n(&p->cpages[i / PAGE], __ATOMIC_ACQUIRE);
			if (!page)
				continue;
			struct ps_counter_fig *f = &page[i % PAGE];
			size_t j = (size_t)i * nth + k;
			uint64_t samples = __atomic_load_n(&f->samples, __ATOMIC_ACQUIRE);
			d->num_samples[j] = (double)samples;
			if (!samples)
				continue;
			__atomic_load(&f->total, &d->value_total[j], __ATOMIC_RELAXED);
			__atomic_load(&f->min, &d->value_min[j], __ATOMIC_RELAXED);
			__atomic_load(&f->max, &d->value_max[j], __ATOMIC_RELAXED);
			__atomic_load(&f->sumsqr, &d->value_sumsqr[j], __ATOMIC_RELAXED);
		}
	}
}

PS_EXPORT void ps_tool_free_counter_data(ps_tool_counter_data_t *d)
{
	if (!d)
		return;
	for (unsigned i = 0; d->counter_names && i < d->num_counters; i++)
		free(d->counter_names[i]);
	free(d->counter_names);
	free(d->num_samples);
	free(d->value_total);
	free(d->value_min);
	free(d->value_max);
	free(d->value_sumsqr);
	memset(d, 0, sizeof(*d));
}

PS_EXPORT void ps_tool_get_metadata(ps_tool_metadata_t *d)
{
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	pthread_mutex_lock(&ps.lock);
	d->names = copy_names(ps.meta.names, ps.meta.n);
	d->values = copy_names(ps.meta.values, ps.meta.n);
	if (d->names && d->values)
		d->num_values = ps.meta.n;
	pthread_mutex_unlock(&ps.lock);
}

PS_EXPORT void ps_tool_free_metadata(ps_tool_metadata_t *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < d->num_values; i++) {
		free(d->names[i]);
		free(d->values[i]);
	}
	free(d->names);
	free(d->values);
	memset(d, 0, sizeof(*d));
}
