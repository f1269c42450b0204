/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libbenchcb.so: the callback plugin of the overhead benchmark (docs/bench.md). One counter,
 * "values", per process; from enable_counter to disable_counter a thread of the plugin
 * sends BENCHCB_RATE values per second (default 10^6) through vt's callback, timestamped
 * with vt's wtime function, in batches every 50 us so that the rate holds on average. A
 * value vt refuses is dropped and counted. At finalize one line on stderr says what was
 * sent and what vt answered; the harness parses it:
 *   benchcb: sent=N ok=N buffer_full=N trace_off=N seconds=S
 */
#include <vampirtrace/vt_plugin_cntr.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

static uint64_t (*wtime)(void);
static int32_t (*send)(void *, vt_plugin_cntr_timevalue);
static void *send_obj;
static pthread_t sender;
static bool running;
static atomic_bool stop;
static __thread bool is_sender;
static uint64_t sent, ok, full, off;
static double seconds;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *sender_main(void *arg)
{
	const char *r = getenv("BENCHCB_RATE");
	double rate = r ? atof(r) : 1e6;
	double t0 = now_s();
	struct timespec pause = {0, 50 * 1000};
	is_sender = true;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t due = (uint64_t)((now_s() - t0) * rate);
		for (; sent < due; sent++) {
			vt_plugin_cntr_timevalue v = {wtime(), sent};
			int32_t rc = send(send_obj, v);
			if (rc == VT_PLUGIN_CNTR_CALLBACK_OK) {
				ok++;
			} else if (rc == VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL) {
				full++;
			} else {
				off++;
				goto out;
			}
		}
		nanosleep(&pause, NULL);
	}
out:
	seconds = now_s() - t0;
	return arg;
}

static int32_t cb_init(void)
{
	return 0;
}

static vt_plugin_cntr_metric_info *cb_get_event_info(char *name)
{
	vt_plugin_cntr_metric_info *list;
	if (strcmp(name, "values") != 0 && strcmp(name, "*") != 0)
		return NULL;
	list = calloc(2, sizeof(*list));
	if (!list)
		return NULL;
	list[0].name = strdup("values");
	list[0].unit = strdup("#");
	list[0].cntr_property = VT_PLUGIN_CNTR_ACC | VT_PLUGIN_CNTR_POINT | VT_PLUGIN_CNTR_UNSIGNED;
	return list;
}

static int32_t cb_add_counter(char *name)
{
	return 0;
}

static int32_t cb_set_callback(void *obj, int32_t id,
			       int32_t (*fn)(void *, vt_plugin_cntr_timevalue))
{
	send_obj = obj;
	send = fn;
	return 0;
}

static int32_t cb_enable(int32_t id)
{
	if (running || !send)
		return -1;
	atomic_store(&stop, false);
	if (pthread_create(&sender, NULL, sender_main, NULL) != 0)
		return -1;
	running = true;
	return 0;
}

static int32_t cb_disable(int32_t id)
{
	if (!running)
		return 0;
	atomic_store(&stop, true);
	pthread_join(sender, NULL);
	running = false;
	return 0;
}

static int32_t cb_is_thread_registered(void)
{
	return is_sender;
}

static void cb_set_wtime(uint64_t (*fn)(void))
{
	wtime = fn;
}

static void cb_finalize(void)
{
	cb_disable(0);
	fprintf(stderr, "benchcb: sent=%llu ok=%llu buffer_full=%llu trace_off=%llu seconds=%.3f\n",
		(unsigned long long)sent, (unsigned long long)ok, (unsigned long long)full,
		(unsigned long long)off, seconds);
}

EXPORT vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION;
	info.init = cb_init;
	info.get_event_info = cb_get_event_info;
	info.add_counter = cb_add_counter;
	info.enable_counter = cb_enable;
	info.disable_counter = cb_disable;
	info.is_thread_registered = cb_is_thread_registered;
	info.set_pform_wtime_function = cb_set_wtime;
	info.set_callback_function = cb_set_callback;
	info.finalize = cb_finalize;
	info.synch = VT_PLUGIN_CNTR_ASYNCH_CALLBACK;
	info.run_per = VT_PLUGIN_CNTR_PER_PROCESS;
	return info;
}
