/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A library instrumented through the perfstubs-style stubs (ps_stub.h), never built with
 * vtcc: a timer by handle, dynamic phases, timers by name (one stopped with stop_current, one
 * stopped by stopping the timer around it), a counter, metadata, a parameter, a paused
 * stretch, and a second thread.
 */
#include "ps_stub.h"

#include <pthread.h>

static void *bytes;
static volatile double sink;

static void work(int n)
{
	for (int i = 0; i < n * 1000; i++)
		sink += i;
}

static void *worker(void *arg)
{
	PS_REGISTER_THREAD();
	for (int i = 0; i < 3; i++) {
		PS_START_STRING("worker");
		work(1);
		PS_STOP_STRING("worker");
	}
	PS_SAMPLE_COUNTER(bytes, 5.0);
	PS_SAMPLE_COUNTER(bytes, 5.0);
	return arg;
}

long psdemo_run(int steps)
{
	long total = 0;
	ps_stub_init();
	PS_METADATA("ADIOS Method", "POSIX");
	PS_PARAMETER("steps", steps);
	void *solve = PS_TIMER_CREATE("demo solve");
	bytes = PS_COUNTER_CREATE("Bytes Written");
	for (int i = 0; i < steps; i++) {
		PS_PHASE_START("timestep", i);
		PS_TIMER_START(solve);
		work(i + 1);
		total += i;
		PS_SAMPLE_COUNTER(bytes, 1024.0 * (i + 1));
		PS_TIMER_STOP(solve);
		PS_START_STRING("inner io");
		work(1);
		PS_STOP_CURRENT();
		PS_PHASE_STOP("timestep", i);
	}
	/* Stopping the outer timer stops the inner one first. */
	PS_START_STRING("outer");
	PS_START_STRING("inner");
	PS_STOP_STRING("outer");
	PS_PAUSE();
	PS_START_STRING("paused");
	PS_STOP_STRING("paused");
	PS_RESUME();
	pthread_t th;
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	PS_DUMP();
	return total;
}
