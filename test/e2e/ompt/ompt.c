// SPDX-License-Identifier: BSD-3-Clause
// e2e "ompt": OpenMP constructs of every kind the OMPT tool records, deterministic counts.
// omp_set_num_threads(2): REPS parallel loops with a reduction; one region with sections,
// critical sections, an omp lock, an explicit barrier, a single that makes tied tasks and
// an untied one with dependences and waits for them; then one nested region (2 x 2
// threads, all four at once).
#include <omp.h>
#include <stdio.h>

#define REPS  3	 /* parallel for with reduction */
#define ITERS 16 /* iterations of each loop, schedule(static) */
#define CRIT  4	 /* critical sections per thread */
#define TASKS 4	 /* tied tasks, a chain of dependences; then one untied task in it */

static volatile long sink, locked; /* sink: sections and critical; locked: the lock */

__attribute__((noinline)) long work(long i)
{
	return i * 2;
}

__attribute__((noinline)) void section(long i)
{
	/* the two sections may run at once, and at once with the other's critical sections */
	__atomic_add_fetch(&sink, i, __ATOMIC_SEQ_CST);
}

int main(void)
{
	long sum = 0, chain = 0;
	int inner = 0;
	omp_lock_t lock;

	omp_init_lock(&lock);
	omp_set_num_threads(2);
	omp_set_max_active_levels(2);
	for (int r = 0; r < REPS; r++) {
#pragma omp parallel for schedule(static) reduction(+ : sum)
		for (long i = 0; i < ITERS; i++)
			sum += work(i);
	}
#pragma omp parallel
	{
#pragma omp sections
		{
#pragma omp section
			section(1);
#pragma omp section
			section(2);
		}
		for (int k = 0; k < CRIT; k++) {
#pragma omp critical
			sink++;
		}
		omp_set_lock(&lock);
		locked++;
		omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp single
		{
			for (int k = 0; k < TASKS; k++) {
#pragma omp task depend(inout : chain) firstprivate(k)
				chain = chain * 10 + k + 1;
			}
#pragma omp task untied depend(inout : chain)
			chain = chain * 10 + TASKS + 1;
#pragma omp taskwait
		}
	}
#pragma omp parallel num_threads(2)
	{
#pragma omp parallel num_threads(2)
		{
			/* All four at once, so that the inner teams are four threads. */
			__atomic_add_fetch(&inner, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&inner, __ATOMIC_SEQ_CST) < 4)
				;
		}
	}
	omp_destroy_lock(&lock);
	printf("sum = %ld, sink = %ld, locked = %ld, chain = %ld, inner = %d\n", sum, (long)sink,
	       (long)locked, chain, inner);
	return sum == REPS * ITERS * (ITERS - 1) && chain == 12345 && inner == 4 ? 0 : 1;
}
