/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rest of the user API in C: counters (integer and floating point, one of them defined
 * twice), markers, recording switched off and on, an explicit flush, and a second thread
 * setting the same counter.
 */
#include <pthread.h>
#include <stdio.h>
#include <vt/vt_user.h>

#define N 10

static int items; /* the integer counter, defined in main */

static void visible(void)
{
	VT_USER_START("visible");
	VT_USER_END("visible");
}

static void hidden(void)
{
	VT_USER_START("hidden");
	VT_USER_END("hidden");
}

static void *worker(void *arg)
{
	/* Defined again by name: the same counter. */
	int c = VT_USER_COUNTER_DEF("items", "#", VT_USER_COUNTER_INTEGER);
	for (int i = 0; i < N; i++)
		VT_USER_COUNTER_SET_INT(c, 1000 + i);
	VT_USER_MARKER("thread", "worker done");
	return arg;
}

int main(void)
{
	items = VT_USER_COUNTER_DEF("items", "#", VT_USER_COUNTER_INTEGER);
	int residual = VT_USER_COUNTER_DEF("residual", "1", VT_USER_COUNTER_DOUBLE);
	VT_USER_MARKER("phase", "start");
	for (int i = 0; i < N; i++) {
		VT_USER_COUNTER_SET_INT(items, i * i);
		VT_USER_COUNTER_SET_DOUBLE(residual, 1.0 / (i + 1));
	}
	visible();
	VT_USER_TRACE_OFF();
	int off = VT_USER_IS_TRACING();
	for (int i = 0; i < 5; i++)
		hidden();
	VT_USER_COUNTER_SET_INT(items, -1); /* not recorded either */
	/* Defined while off, set once on again. */
	int late = VT_USER_COUNTER_DEF("late", "#", VT_USER_COUNTER_INTEGER);
	VT_USER_TRACE_ON();
	VT_USER_COUNTER_SET_INT(late, 7);
	int on = VT_USER_IS_TRACING();
	visible();
	VT_USER_FLUSH();
	visible();
	pthread_t th;
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	VT_USER_MARKER_SEVERITY("check", VT_USER_MARKER_HIGH, "residual below 0.2");
	printf("items %d residual %d late %d tracing off %d on %d\n", items >= 0, residual >= 0,
	       late >= 0, off, on);
	return 0;
}
