/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads a trace through the trace layer (tools/lib) and says how fast and in how much
 * memory: "mode M events N seconds S mev_per_s R maxrss_kib K messages N collectives N
 * problems N" (the first problems are printed on stderr).
 * Usage: read-bench ARCHIVE.otf2 [locations|merged]
 */
#include "vtr.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t enters, problems;

static void on_enter(void *u, const struct vtr_location *l, uint64_t t, uint32_t r)
{
	enters++;
}

static void on_problem(void *u, const struct vtr_location *l, enum vtr_problem kind, bool has_time,
		       uint64_t t, uint32_t region, const char *message)
{
	if (problems++ < 5)
		fprintf(stderr, "read-bench: %s\n", message);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s ARCHIVE.otf2 [locations|merged]\n", argv[0]);
		return 2;
	}
	bool merged = argc > 2 && strcmp(argv[2], "merged") == 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	struct vtr_trace tr;
	if (vtr_open(&tr, argv[1]) < 0) {
		fprintf(stderr, "read-bench: %s: %s\n", argv[1], tr.err);
		return 1;
	}
	const struct vtr_callbacks cb = {.enter = on_enter, .problem = on_problem};
	int rc = merged ? vtr_read_merged(&tr, &cb, NULL) : vtr_read_locations(&tr, &cb, NULL);
	if (rc < 0) {
		fprintf(stderr, "read-bench: %s: %s\n", argv[1], tr.err);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	const struct vtr_stats *st = vtr_last_stats();
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("mode %s events %llu enters %llu seconds %.3f mev_per_s %.2f maxrss_kib %ld "
	       "messages %llu collectives %llu problems %llu\n",
	       merged ? "merged" : "locations", (unsigned long long)st->events,
	       (unsigned long long)enters, s, (double)st->events / s / 1e6, ru.ru_maxrss,
	       (unsigned long long)st->messages, (unsigned long long)st->collectives,
	       (unsigned long long)problems);
	vtr_close(&tr);
	return 0;
}
