// SPDX-License-Identifier: BSD-3-Clause
// What each OpenMP construct costs: parallel, barrier, parallel for, task, lock, critical.
//
// Each construct runs alone in a loop timed with omp_get_wtime on the master thread; one
// line per construct: "NAME COUNT NS_PER_CONSTRUCT". Bodies are as small as the compiler
// leaves them (an atomic add or a volatile store), so the line is the OpenMP runtime's
// cost of the construct, plus a tool's when one is attached (run-openmp.py compares).
//
//   omp-costs [SCALE]   SCALE multiplies every count (default 1)
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

static void line(const char *name, long n, double t0)
{
	printf("%s %ld %.1f\n", name, n, (omp_get_wtime() - t0) * 1e9 / (double)n);
}

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 1;
	long regions = 100000 * scale, barriers = 100000 * scale, tasks = 1000000 * scale;
	long locks = 1000000 * scale;
	double t0;
	omp_lock_t lock;
	omp_init_lock(&lock);

	/* Warm-up: the team exists before the first timed region. */
#pragma omp parallel
	sink++;

	t0 = omp_get_wtime();
	for (long i = 0; i < regions; i++) {
#pragma omp parallel
		{
#pragma omp atomic
			sink++;
		}
	}
	line("parallel", regions, t0);

	t0 = omp_get_wtime();
#pragma omp parallel
	for (long i = 0; i < barriers; i++) {
#pragma omp barrier
	}
	line("barrier", barriers, t0);

	/* A tight parallel for: 10^5 regions of 64 iterations. */
	t0 = omp_get_wtime();
	for (long i = 0; i < regions; i++) {
#pragma omp parallel for schedule(static)
		for (int j = 0; j < 64; j++)
			sink = j;
	}
	line("parallel-for", regions, t0);

	/* Tasks: one thread creates them, the team runs them. */
	t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
	{
		for (long i = 0; i < tasks; i++) {
#pragma omp task
			sink = i;
		}
#pragma omp taskwait
	}
	line("task", tasks, t0);

	/* Locks and critical sections: every thread takes them (contended). */
	t0 = omp_get_wtime();
#pragma omp parallel
	{
		long mine = locks / omp_get_num_threads();
		for (long i = 0; i < mine; i++) {
			omp_set_lock(&lock);
			sink++;
			omp_unset_lock(&lock);
		}
	}
	line("lock", locks, t0);

	t0 = omp_get_wtime();
#pragma omp parallel
	{
		long mine = locks / omp_get_num_threads();
		for (long i = 0; i < mine; i++) {
#pragma omp critical
			sink++;
		}
	}
	line("critical", locks, t0);

	omp_destroy_lock(&lock);
	return 0;
}
