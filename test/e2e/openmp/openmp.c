// SPDX-License-Identifier: BSD-3-Clause
// e2e "openmp": a parallel region of NTHREADS threads; thread t calls work() (t + 1) * K
// times, then a static-schedule loop gives each thread ITERS_PER_THREAD calls of iter();
// test_openmp.py checks one location per OpenMP thread with exact counts.
#include <omp.h>
#include <stdio.h>

#define NTHREADS 2
#define K 5
#define ITERS_PER_THREAD 8

static volatile long sink;

__attribute__((noinline)) void work(long i)
{
#pragma omp atomic
	sink += i;
}

__attribute__((noinline)) void iter(long i)
{
#pragma omp atomic
	sink += 2 * i;
}

int main(void)
{
	int nthreads = 0;

	omp_set_num_threads(NTHREADS);
#pragma omp parallel
	{
		long t = omp_get_thread_num();

#pragma omp single
		nthreads = omp_get_num_threads();
		for (long i = 0; i < (t + 1) * K; i++)
			work(i);
#pragma omp for schedule(static)
		for (long i = 0; i < NTHREADS * ITERS_PER_THREAD; i++)
			iter(i);
	}
	printf("threads = %d, sink = %ld\n", nthreads, (long)sink);
	return nthreads == NTHREADS ? 0 : 1;
}
