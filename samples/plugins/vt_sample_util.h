/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_sample_util.h: what the sample counter plugins of this folder (random, perfsw,
 * sysmon, hostload, fsusage) would otherwise each write again. Static inline functions
 * only, no library: every sample stays one shared object built from its .c file.
 *
 *   vts_is_pattern, vts_info_set      get_event_info: wildcard test, one list entry
 *   vts_env_long, vts_env_u64,        the plugins' environment settings, with the
 *   vts_env_flag                      same messages for a value out of range
 *   vts_need_wtime                    init of an asynchronous plugin without a clock
 *   vts_grow, vts_values_*            growing arrays: counters, values not yet taken
 *   vts_sampler_*                     a sampler thread at a fixed rate (sysmon, hostload)
 *
 * Messages start with the plugin's name, as "sysmon plugin: ...". A plugin written
 * outside this tree does not need this header: plugin-sdk/template/myplugin.c does the
 * same things on its own.
 */
#ifndef VT_SAMPLE_UTIL_H
#define VT_SAMPLE_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vampirtrace/vt_plugin_cntr.h>

/* ---- get_event_info ---- */

/* Whether name is a wildcard pattern (fnmatch's *, ? or [). */
static inline bool vts_is_pattern(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

/* Fills one entry of get_event_info's list with copies of name and unit. false: out of
 * memory; the entry is then left empty (name NULL), which ends the list there. */
static inline bool vts_info_set(vt_plugin_cntr_metric_info *e, const char *name, const char *unit,
				uint32_t property)
{
	e->name = strdup(name);
	e->unit = strdup(unit);
	e->cntr_property = property;
	if (e->name && e->unit)
		return true;
	free(e->name);
	free(e->unit);
	e->name = e->unit = NULL;
	return false;
}

/* ---- the environment ---- */

/* *v = the integer in environment variable var when it is set and in [lo, hi]; when it
 * is set otherwise, says so and keeps *v. */
static inline void vts_env_long(const char *plugin, const char *var, long lo, long hi, long *v)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return;
	char *end;
	long x = strtol(s, &end, 10);
	if (*end || x < lo || x > hi)
		fprintf(stderr, "%s: %s=%s is not %ld to %ld; using %ld\n", plugin, var, s, lo, hi,
			*v);
	else
		*v = x;
}

/* true, with *v, when environment variable var holds a number (C syntax: 10, 0x1f, 017);
 * false when it is unset, or set to something else, which is said. */
static inline bool vts_env_u64(const char *plugin, const char *var, uint64_t *v)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return false;
	char *end;
	uint64_t x = strtoull(s, &end, 0);
	if (*end) {
		fprintf(stderr, "%s: %s=%s is not a number; ignored\n", plugin, var, s);
		return false;
	}
	*v = x;
	return true;
}

/* Whether environment variable var is set to something other than "" or "0". */
static inline bool vts_env_flag(const char *var)
{
	const char *s = getenv(var);
	return s && *s && strcmp(s, "0") != 0;
}

/* init of a plugin that stamps its own values: 0 when the host gave it its clock,
 * otherwise -1 (no counters), said. */
static inline int32_t vts_need_wtime(const char *plugin, uint64_t (*wtime)(void))
{
	if (wtime)
		return 0;
	fprintf(stderr,
		"%s: no clock from the host (set_pform_wtime_function was not called); no "
		"counters\n",
		plugin);
	return -1;
}

/* ---- growing arrays ---- */

/* Makes room in array p (elements of size elem, *cap of them) for an element at index n,
 * doubling from first: the array to use from now on, or NULL when out of memory (p is then
 * unchanged and still owned by the caller). */
static inline void *vts_grow(void *p, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? 2 * *cap : first;
	void *np = realloc(p, c * elem);
	if (np)
		*cap = c;
	return np;
}

/* Values an asynchronous counter took and vt has not fetched yet. */
struct vts_values {
	vt_plugin_cntr_timevalue *v;
	size_t n, cap;
};

/* Appends (ts, value), growing from room for first values. false: out of memory, the
 * value is lost. */
static inline bool vts_values_push(struct vts_values *q, uint64_t ts, uint64_t value, size_t first)
{
	vt_plugin_cntr_timevalue *v = vts_grow(q->v, &q->cap, q->n, sizeof(*v), first);
	if (!v)
		return false;
	q->v = v;
	q->v[q->n++] = (vt_plugin_cntr_timevalue){ts, value};
	return true;
}

/* get_all_values: hands the values over to vt, which frees them; q starts empty. */
static inline uint64_t vts_values_take(struct vts_values *q, vt_plugin_cntr_timevalue **result)
{
	uint64_t n = q->n;
	*result = q->v;
	*q = (struct vts_values){0};
	return n;
}

/* ---- a sampler thread ---- */

/* A thread that samples every interval; its fields are guarded by the plugin's lock. */
struct vts_sampler {
	pthread_cond_t wake; /* on CLOCK_MONOTONIC: signalled to stop or to look again */
	pthread_t thread;
	bool running, stopping;
};

/* At init. */
static inline void vts_sampler_init(struct vts_sampler *s)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
}

/* Starts fn unless it runs; the caller holds the lock. 0, or pthread_create's error,
 * said. */
static inline int vts_sampler_start(struct vts_sampler *s, void *(*fn)(void *), const char *plugin)
{
	if (s->running)
		return 0;
	s->stopping = false;
	int rc = pthread_create(&s->thread, NULL, fn, NULL);
	if (rc == 0)
		s->running = true;
	else
		fprintf(stderr, "%s: cannot start the sampler thread (%s); no values\n", plugin,
			strerror(rc));
	return rc;
}

/* Stops the thread and waits for it; the caller does not hold lock. */
static inline void vts_sampler_stop(struct vts_sampler *s, pthread_mutex_t *lock)
{
	pthread_mutex_lock(lock);
	bool join = s->running;
	s->stopping = true;
	s->running = false;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(lock);
	if (join)
		pthread_join(s->thread, NULL);
}

/* When the next sample is due: ms after now, on CLOCK_MONOTONIC. Take the host's
 * timestamp before this, so that consecutive timestamps are at least a period apart
 * however late the thread wakes. */
static inline struct timespec vts_sampler_due(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Waits, with lock held, until due or until the sampler is told to stop. */
static inline void vts_sampler_wait(struct vts_sampler *s, pthread_mutex_t *lock,
				    const struct timespec *due)
{
	for (;;) {
		pthread_cond_timedwait(&s->wake, lock, due);
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (s->stopping || now.tv_sec > due->tv_sec ||
		    (now.tv_sec == due->tv_sec && now.tv_nsec >= due->tv_nsec))
			break;
	}
}

#endif
