/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostload: the load and the network traffic of the host, per host, sent to vt by a
 * sampler thread of the plugin through vt's callback (ASYNCH_CALLBACK).
 *
 * Counters (VT_PLUGIN_CNTR_METRICS=hostload_* or by name, with wildcards):
 *   load1, load5, load15     the load averages of /proc/loadavg, runnable tasks
 *   runnable                 tasks runnable now (/proc/loadavg)
 *   net_rx_bytes             bytes received by all interfaces but lo since the counter was
 *   net_tx_bytes             added, and sent (/proc/net/dev)
 *   net_IF_rx_bytes          the same for interface IF alone (lo included)
 *   net_IF_tx_bytes
 *
 * HOSTLOAD_INTERVAL_MS (default 100, 1 to 60000) sets the period; samples are never closer
 * than that. When vt answers BUFFER_FULL, the value waits in the plugin (up to 4096 per
 * counter, the oldest dropped beyond) and is offered again at the next sample, before the
 * newer ones; TRACE_OFF_PERMANENT stops the counter for good, and the thread ends when no
 * counter is left. HOSTLOAD_VERBOSE=1 prints at the end, per counter, what was sent,
 * refused and dropped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vampirtrace/vt_plugin_cntr.h>

#include "vt_sample_util.h"

#define PLUGIN "hostload plugin"
#define QUEUE  4096 /* values per counter waiting for vt to take them */

enum source { LOAD1, LOAD5, LOAD15, RUNNABLE, NET_RX, NET_TX };

struct offer {
	char *name;
	enum source source;
	char *iface; /* NET_*: one interface; NULL: all but lo */
};
static struct offer *offers;
static size_t n_offers;

typedef int32_t (*callback_fn)(void *, vt_plugin_cntr_timevalue);

struct counter {
	const struct offer *o;
	uint64_t base; /* NET_*: the bytes when added */
	/* Set once before the sampler sees the counter (set_callback_function). */
	callback_fn cb;
	void *obj;
	/* Written with deliver held; read by the sampler's idle check without it. */
	atomic_bool enabled, off; /* off: TRACE_OFF_PERMANENT */
	/* Values not yet taken by vt: a ring. */
	vt_plugin_cntr_timevalue q[QUEUE];
	size_t head, len;
	uint64_t sent, refused, dropped;
	/* Held while this counter's callback runs: disable_counter waits on it, so that no
	 * call reaches vt after disable_counter returned. */
	pthread_mutex_t deliver;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct counter **counters; /* guarded by lock; a counter never moves */
static size_t n_counters, cap_counters;
static struct vts_sampler sampler;

static uint64_t (*wtime)(void);
static long interval_ms = 100;
static bool verbose;
static _Thread_local bool is_sampler;

/* ---- sources ---- */

struct reading {
	double load[3];
	uint64_t runnable;
	bool have_load;
	char *netdev; /* /proc/net/dev as read */
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

static bool read_load(struct reading *r)
{
	char *s = slurp("/proc/loadavg");
	uint64_t total;
	r->have_load = s && sscanf(s, "%lf %lf %lf %" SCNu64 "/%" SCNu64, &r->load[0], &r->load[1],
				   &r->load[2], &r->runnable, &total) == 5;
	free(s);
	return r->have_load;
}

/* Calls f(name, rx, tx, arg) for each interface of /proc/net/dev text s. */
static void each_iface(const char *s, void (*f)(const char *, uint64_t, uint64_t, void *),
		       void *arg)
{
	const char *line = s ? strchr(s, '\n') : NULL;
	/* Two header lines. */
	line = line ? strchr(line + 1, '\n') : NULL;
	while (line && *++line) {
		const char *colon = strchr(line, ':');
		const char *eol = strchr(line, '\n');
		if (!colon || (eol && colon > eol))
			break;
		const char *b = line;
		while (*b == ' ')
			b++;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(colon - b), b);
		uint64_t rx, tx;
		/* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes ... */
		if (sscanf(colon + 1, "%" SCNu64 " %*u %*u %*u %*u %*u %*u %*u %" SCNu64, &rx,
			   &tx) == 2)
			f(name, rx, tx, arg);
		line = eol;
	}
}

struct net_query {
	const struct offer *o;
	uint64_t sum;
	bool found;
};

static void net_add(const char *name, uint64_t rx, uint64_t tx, void *arg)
{
	struct net_query *q = arg;
	if (q->o->iface ? strcmp(name, q->o->iface) != 0 : strcmp(name, "lo") == 0)
		return;
	q->sum += q->o->source == NET_RX ? rx : tx;
	q->found = true;
}

/* The value of offer o in reading r; false: not there this time. */
static bool value_of(const struct offer *o, const struct reading *r, uint64_t *v)
{
	double d;
	switch (o->source) {
	case LOAD1:
	case LOAD5:
	case LOAD15:
		if (!r->have_load)
			return false;
		d = r->load[o->source - LOAD1];
		memcpy(v, &d, sizeof(*v));
		return true;
	case RUNNABLE:
		*v = r->runnable;
		return r->have_load;
	default: {
		struct net_query q = {o, 0, false};
		each_iface(r->netdev, net_add, &q);
		*v = q.sum;
		/* The sum over no interface but lo is 0, and still a value. */
		return q.found || !o->iface;
	}
	}
}

/* ---- what the host offers ---- */

static void offer(const char *name, enum source s, const char *iface)
{
	struct offer *o = realloc(offers, (n_offers + 1) * sizeof(*o));
	if (!o)
		return;
	offers = o;
	o = &offers[n_offers];
	o->name = strdup(name);
	o->source = s;
	o->iface = iface ? strdup(iface) : NULL;
	if (o->name && (!iface || o->iface))
		n_offers++;
}

static void offer_iface(const char *name, uint64_t rx, uint64_t tx, void *arg)
{
	char n[96];
	(void)rx, (void)tx, (void)arg;
	snprintf(n, sizeof(n), "net_%s_rx_bytes", name);
	offer(n, NET_RX, name);
	snprintf(n, sizeof(n), "net_%s_tx_bytes", name);
	offer(n, NET_TX, name);
}

static void set_wtime(uint64_t (*f)(void))
{
	wtime = f;
}

static int32_t hostload_init(void)
{
	vts_env_long(PLUGIN, "HOSTLOAD_INTERVAL_MS", 1, 60000, &interval_ms);
	verbose = vts_env_flag("HOSTLOAD_VERBOSE");
	if (vts_need_wtime(PLUGIN, wtime) != 0)
		return -1;
	vts_sampler_init(&sampler);

	struct reading r;
	if (read_load(&r)) {
		offer("load1", LOAD1, NULL);
		offer("load5", LOAD5, NULL);
		offer("load15", LOAD15, NULL);
		offer("runnable", RUNNABLE, NULL);
	} else {
		fprintf(stderr, PLUGIN ": /proc/loadavg cannot be read: no load counters\n");
	}
	char *net = slurp("/proc/net/dev");
	if (net) {
		offer("net_rx_bytes", NET_RX, NULL);
		offer("net_tx_bytes", NET_TX, NULL);
		each_iface(net, offer_iface, NULL);
		free(net);
	} else {
		fprintf(stderr, PLUGIN ": /proc/net/dev cannot be read: no network counters\n");
	}
	if (!n_offers) {
		fprintf(stderr, PLUGIN ": nothing to measure here; no counters\n");
		return -1;
	}
	return 0;
}

static vt_plugin_cntr_metric_info *hostload_get_event_info(char *requested)
{
	vt_plugin_cntr_metric_info *list = calloc(n_offers + 1, sizeof(*list));
	size_t n = 0;
	if (!list)
		return NULL;
	for (size_t i = 0; i < n_offers; i++) {
		const struct offer *o = &offers[i];
		if (fnmatch(requested, o->name, 0) != 0)
			continue;
		bool net = o->source == NET_RX || o->source == NET_TX;
		uint32_t property =
		    net ? VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_START | VT_PLUGIN_CNTR_UNSIGNED
			: VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT |
			      (o->source == RUNNABLE ? VT_PLUGIN_CNTR_UNSIGNED
						     : VT_PLUGIN_CNTR_DOUBLE);
		if (!vts_info_set(&list[n], o->name, net ? "B" : "tasks", property))
			break;
		n++;
	}
	if (n == 0)
		fprintf(stderr,
			PLUGIN ": \"%s\" matches no counter here (there are load1, load5, "
			       "load15, runnable, net_rx_bytes, net_tx_bytes and net_IF_rx_bytes, "
			       "net_IF_tx_bytes for the interfaces of /proc/net/dev); skipped\n",
			requested);
	return list;
}

static int32_t hostload_add_counter(char *name)
{
	const struct offer *o = NULL;
	for (size_t i = 0; i < n_offers && !o; i++)
		if (strcmp(offers[i].name, name) == 0)
			o = &offers[i];
	if (!o)
		return -1;
	struct counter *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->o = o;
	pthread_mutex_init(&c->deliver, NULL);
	if (o->source == NET_RX || o->source == NET_TX) {
		struct reading r = {.netdev = slurp("/proc/net/dev")};
		value_of(o, &r, &c->base);
		free(r.netdev);
	}
	pthread_mutex_lock(&lock);
	struct counter **nc = vts_grow(counters, &cap_counters, n_counters, sizeof(*nc), 16);
	if (!nc) {
		pthread_mutex_unlock(&lock);
		pthread_mutex_destroy(&c->deliver);
		free(c);
		return -1;
	}
	counters = nc;
	int32_t id = (int32_t)n_counters;
	counters[n_counters++] = c;
	pthread_mutex_unlock(&lock);
	return id;
}

static struct counter *counter_of(int32_t id)
{
	struct counter *c = NULL;
	pthread_mutex_lock(&lock);
	if (id >= 0 && (size_t)id < n_counters)
		c = counters[id];
	pthread_mutex_unlock(&lock);
	return c;
}

static int32_t hostload_set_callback_function(void *obj, int32_t id, callback_fn cb)
{
	struct counter *c = counter_of(id);
	if (!c || !cb)
		return -1;
	pthread_mutex_lock(&lock);
	c->obj = obj;
	c->cb = cb;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---- the sampler ---- */

/* Offers c's waiting values to vt, oldest first, until one is refused. Runs with
 * c->deliver held and lock not held: vt's callback may write to the trace meanwhile. */
static void deliver(struct counter *c)
{
	while (c->len && c->enabled && !c->off) {
		int32_t rc = c->cb(c->obj, c->q[c->head]);
		if (rc == VT_PLUGIN_CNTR_CALLBACK_OK) {
			c->head = (c->head + 1) % QUEUE;
			c->len--;
			c->sent++;
		} else if (rc == VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL) {
			/* Offered again next time, with what comes meanwhile behind it. */
			c->refused++;
			break;
		} else {
			/* TRACE_OFF_PERMANENT (or an answer this plugin does not know): no more. */
			c->off = true;
			c->dropped += c->len;
			c->len = 0;
		}
	}
}

/* Whether a counter waits for values; caller holds lock. */
static bool any_active(void)
{
	for (size_t i = 0; i < n_counters; i++)
		if (counters[i]->enabled && !counters[i]->off)
			return true;
	return false;
}

static void *sampler_main(void *arg)
{
	(void)arg;
	is_sampler = true;
	pthread_mutex_lock(&lock);
	while (!sampler.stopping) {
		/* The host's time first, then the monotonic clock the next sample is due by:
		 * consecutive timestamps are at least a period apart. */
		uint64_t ts = wtime();
		struct timespec due = vts_sampler_due(interval_ms);
		size_t n = n_counters;
		pthread_mutex_unlock(&lock);

		struct reading r;
		read_load(&r);
		r.netdev = slurp("/proc/net/dev");
		bool left = false;
		for (size_t i = 0; i < n; i++) {
			pthread_mutex_lock(&lock);
			struct counter *c = counters[i];
			pthread_mutex_unlock(&lock);
			pthread_mutex_lock(&c->deliver);
			uint64_t v;
			if (c->enabled && !c->off && c->cb && value_of(c->o, &r, &v)) {
				if (c->o->source == NET_RX || c->o->source == NET_TX)
					v = v >= c->base ? v - c->base : 0;
				if (c->len == QUEUE) {
					c->head = (c->head + 1) % QUEUE;
					c->len--;
					c->dropped++;
				}
				c->q[(c->head + c->len++) % QUEUE] =
				    (vt_plugin_cntr_timevalue){ts, v};
				deliver(c);
			}
			left |= c->enabled && !c->off;
			pthread_mutex_unlock(&c->deliver);
		}
		free(r.netdev);

		pthread_mutex_lock(&lock);
		if (!left && n == n_counters) {
			/* Every counter is disabled or was turned off for good: nothing is read
			 * until one is enabled again (or the plugin ends). */
			while (!sampler.stopping && !any_active())
				pthread_cond_wait(&sampler.wake, &lock);
			continue;
		}
		vts_sampler_wait(&sampler, &lock, &due);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int32_t hostload_enable_counter(int32_t id)
{
	struct counter *c = counter_of(id);
	int rc = 0;
	if (!c)
		return -1;
	pthread_mutex_lock(&c->deliver);
	c->enabled = true;
	pthread_mutex_unlock(&c->deliver);
	pthread_mutex_lock(&lock);
	rc = vts_sampler_start(&sampler, sampler_main, PLUGIN);
	pthread_cond_signal(&sampler.wake);
	pthread_mutex_unlock(&lock);
	return rc ? -1 : 0;
}

/* After this returns, the counter's callback is not called again. */
static int32_t hostload_disable_counter(int32_t id)
{
	struct counter *c = counter_of(id);
	if (!c)
		return -1;
	pthread_mutex_lock(&c->deliver);
	c->enabled = false;
	c->dropped += c->len;
	c->len = 0;
	pthread_mutex_unlock(&c->deliver);
	return 0;
}

static int32_t hostload_is_thread_registered(void)
{
	return is_sampler;
}

static void hostload_finalize(void)
{
	vts_sampler_stop(&sampler, &lock);
	for (size_t i = 0; i < n_counters; i++) {
		struct counter *c = counters[i];
		if (verbose)
			fprintf(stderr,
				PLUGIN ": %s: %" PRIu64 " values sent, %" PRIu64 " refused as "
				       "BUFFER_FULL, %" PRIu64 " dropped, %s\n",
				c->o->name, c->sent, c->refused, c->dropped,
				c->off ? "turned off by TRACE_OFF_PERMANENT" : "never turned off");
		pthread_mutex_destroy(&c->deliver);
		free(c);
	}
	free(counters);
	counters = NULL;
	n_counters = cap_counters = 0;
	for (size_t i = 0; i < n_offers; i++) {
		free(offers[i].name);
		free(offers[i].iface);
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
	info.run_per = VT_PLUGIN_CNTR_PER_HOST;
	info.synch = VT_PLUGIN_CNTR_ASYNCH_CALLBACK;
	info.set_pform_wtime_function = set_wtime;
	info.init = hostload_init;
	info.get_event_info = hostload_get_event_info;
	info.add_counter = hostload_add_counter;
	info.set_callback_function = hostload_set_callback_function;
	info.enable_counter = hostload_enable_counter;
	info.disable_counter = hostload_disable_counter;
	info.is_thread_registered = hostload_is_thread_registered;
	info.finalize = hostload_finalize;
	return info;
}
