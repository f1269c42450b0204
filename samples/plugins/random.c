/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * random: the first example of VampirTrace's plugin counter manual, written anew for vt's
 * header: a synchronous per-thread plugin whose counters read random numbers.
 *
 * VT_PLUGIN_CNTR_METRICS=random_NAME asks for one counter called NAME; each thread gets
 * its own sequence, in [0, 2^31) like rand(). RANDOM_SEED=N fixes the seeds (the j-th
 * counter added in the process gets N + j); by default they differ from run to run.
 *
 * Written from what the manual's example does, not from its listing. Where such listings
 * commonly go wrong, this one is careful: the version comes from the header's constant
 * (VampirTrace's header defined it with a stray ';', which broke it inside expressions),
 * the list get_event_info returns has room for its terminating entry and owns copies of
 * its strings, a unit is given, and each counter has its own generator instead of rand()'s
 * shared state, which threads would race on.
 *
 * It uses nothing but the interface header, unlike the other samples (vt_sample_util.h): a
 * plugin written for VampirTrace must build against vt as it is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vampirtrace/vt_plugin_cntr.h>

#define MAX_COUNTERS 4096

/* One counter on one thread: add_counter and get_current_value of an id run on that
 * thread only, so a slot has one writer; ids are taken atomically. */
static struct {
	uint64_t state;
} slots[MAX_COUNTERS];
static atomic_int n_slots;
static uint64_t seed;

static int32_t random_init(void)
{
	const char *s = getenv("RANDOM_SEED");
	if (s && *s) {
		char *end;
		seed = strtoull(s, &end, 0);
		if (*end) {
			fprintf(stderr, "random plugin: RANDOM_SEED=%s is not a number; ignored\n",
				s);
			s = NULL;
		}
	}
	if (!s || !*s) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
	}
	return 0;
}

static vt_plugin_cntr_metric_info *random_get_event_info(char *name)
{
	/* Any name makes a counter of that name; a pattern names none: random numbers have no
	 * list to match it against. */
	if (!*name || strpbrk(name, "*?[")) {
		fprintf(stderr,
			"random plugin: \"%s\": give each counter a plain name, as in "
			"random_counter; wildcards match nothing here\n",
			name);
		return NULL;
	}
	vt_plugin_cntr_metric_info *list = calloc(2, sizeof(*list));
	if (!list)
		return NULL;
	list[0].name = strdup(name);
	list[0].unit = strdup("#");
	list[0].cntr_property = VT_PLUGIN_CNTR_ABS | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_UNSIGNED;
	if (!list[0].name || !list[0].unit) {
		free(list[0].name);
		free(list[0].unit);
		list[0].name = NULL;
	}
	return list;
}

/* splitmix64: turns consecutive seeds into well-spread starting states. */
static uint64_t spread(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static int32_t random_add_counter(char *name)
{
	int id = atomic_fetch_add(&n_slots, 1);
	if (id >= MAX_COUNTERS) {
		fprintf(stderr, "random plugin: more than %d counters; %s not added\n",
			MAX_COUNTERS, name);
		return -1;
	}
	slots[id].state = spread(seed + (uint64_t)id) | 1; /* xorshift needs a non-zero state */
	return id;
}

/* xorshift64*, top 31 bits. */
static uint64_t random_get_current_value(int32_t id)
{
	uint64_t x = slots[id].state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	slots[id].state = x;
	return (x * 0x2545f4914f6cdd1du) >> 33;
}

vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.run_per = VT_PLUGIN_CNTR_PER_THREAD;
	info.synch = VT_PLUGIN_CNTR_SYNCH;
	info.init = random_init;
	info.get_event_info = random_get_event_info;
	info.add_counter = random_add_counter;
	info.get_current_value = random_get_current_value;
	return info;
}
