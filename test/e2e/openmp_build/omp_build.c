// SPDX-License-Identifier: BSD-3-Clause
// e2e "openmp_build": a deterministic OpenMP program (2 threads, static schedules) whose
// per-thread regions, barriers, locks and tasks test_openmp_build.py lists and counts.
#include <omp.h>
#include <stdio.h>

#define NTHREADS 2
#define WORK	 3 /* thread t calls work() (t + 1) * WORK times in region 1 */
#define ITERS	 8 /* the static loop: ITERS / NTHREADS iterations per thread */
#define TASKS	 4 /* tasks the primary thread creates in region 1 */

static long sum_work, sum_tasks;
static omp_lock_t lock;

__attribute__((noinline)) void work(long i)
{
#pragma omp atomic
	sum_work += i;
}

__attribute__((noinline)) long iter(long i)
{
	return 3 * i + 1;
}

__attribute__((noinline)) void locked(int t)
{
	omp_set_lock(&lock);
	sum_work += 100 * (t + 1);
	omp_unset_lock(&lock);
}

__attribute__((noinline)) void task_body(long k)
{
#pragma omp atomic
	sum_tasks += k * k;
}

int main(void)
{
	long loop = 0;
	int team = 0;

	omp_init_lock(&lock);
	/* Region 1: each thread works, meets the others at an explicit barrier, shares a
	 * static loop (implicit barrier at its end), takes the lock once; the primary thread
	 * creates TASKS tasks and waits for them; the region ends with its implicit barrier. */
#pragma omp parallel num_threads(NTHREADS)
	{
		int t = omp_get_thread_num();

		for (long i = 0; i < (t + 1) * WORK; i++)
			work(i);
#pragma omp barrier
#pragma omp for schedule(static) reduction(+ : loop)
		for (long i = 0; i < ITERS; i++)
			loop += iter(i);
		locked(t);
#pragma omp master
		{
			team = omp_get_num_threads();
			for (long k = 1; k <= TASKS; k++) {
#pragma omp task firstprivate(k)
				task_body(k);
			}
#pragma omp taskwait
		}
	}
	/* Region 2: each thread calls work() once. */
#pragma omp parallel num_threads(NTHREADS)
	work(1000 + omp_get_thread_num());
	omp_destroy_lock(&lock);
	printf("team %d, work %ld, loop %ld, tasks %ld\n", team, sum_work, loop, sum_tasks);
	return team == NTHREADS ? 0 : 1;
}
