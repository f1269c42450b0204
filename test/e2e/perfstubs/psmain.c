/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runs the perfstubs-instrumented library, then prints what the tool's data calls answer:
 * per timer (by name) and thread its calls and whether its times add up, per counter and
 * thread its samples, total, minimum, maximum and sum of squares, and the metadata.
 */
#include "ps_stub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long psdemo_run(int steps);

static const char *const *names_of;

static int by_name(const void *a, const void *b)
{
	return strcmp(names_of[*(const unsigned *)a], names_of[*(const unsigned *)b]);
}

static unsigned *sorted(char **names, unsigned n)
{
	unsigned *o = malloc((n ? n : 1) * sizeof(*o));
	for (unsigned i = 0; i < n; i++)
		o[i] = i;
	names_of = (const char *const *)names;
	qsort(o, n, sizeof(*o), by_name);
	return o;
}

int main(void)
{
	printf("total %ld\n", psdemo_run(4));
	if (!ps_stub.get_timer_data) {
		printf("no tool\n");
		return 0;
	}
	ps_tool_timer_data_t td;
	ps_stub.get_timer_data(&td);
	printf("timers: %u threads, metrics", td.num_threads);
	for (unsigned j = 0; j < td.num_metrics; j++)
		printf(" [%s]", td.metric_names[j]);
	printf("\n");
	unsigned *o = sorted(td.timer_names, td.num_timers);
	for (unsigned x = 0; x < td.num_timers; x++) {
		unsigned i = o[x];
		for (unsigned k = 0; k < td.num_threads; k++) {
			const double *v = &td.values[(i * td.num_threads + k) * td.num_metrics];
			if (v[0] == 0 && k > 0)
				continue;
			int times_ok = v[1] >= v[2] && v[2] >= 0 && (v[0] == 0 || v[1] > 0);
			printf("timer %s thread %u calls %.0f times %s\n", td.timer_names[i], k,
			       v[0], times_ok ? "ok" : "bad");
		}
	}
	free(o);
	ps_stub.free_timer_data(&td);
	ps_tool_counter_data_t cd;
	ps_stub.get_counter_data(&cd);
	for (unsigned i = 0; i < cd.num_counters; i++)
		for (unsigned k = 0; k < cd.num_threads; k++) {
			unsigned j = i * cd.num_threads + k;
			printf(
			    "counter %s thread %u samples %.0f total %g min %g max %g sumsqr %g\n",
			    cd.counter_names[i], k, cd.num_samples[j], cd.value_total[j],
			    cd.value_min[j], cd.value_max[j], cd.value_sumsqr[j]);
		}
	ps_stub.free_counter_data(&cd);
	ps_tool_metadata_t md;
	ps_stub.get_metadata(&md);
	for (unsigned i = 0; i < md.num_values; i++)
		printf("metadata %s = %s\n", md.names[i], md.values[i]);
	ps_stub.free_metadata(&md);
	return 0;
}
