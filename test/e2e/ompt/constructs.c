// SPDX-License-Identifier: BSD-3-Clause
// e2e "ompt": the constructs ompt.c leaves out, on 2 threads: a nest lock set twice and unset
// twice by each thread, omp_test_lock that fails while the other thread holds the lock and
// then succeeds (in a masked region), a taskgroup of two tasks, an ordered loop and a
// taskloop of four tasks.
#include <omp.h>
#include <stdio.h>

#define ORDERED 4 /* iterations of the ordered loop, schedule(static, 1) */
#define GROUP	2 /* tasks in the taskgroup */
#define LOOP	4 /* tasks of the taskloop (num_tasks) */

static volatile long nested, tested, failed, grouped, order, looped;

int main(void)
{
	omp_nest_lock_t nl;
	omp_lock_t tl;

	omp_init_nest_lock(&nl);
	omp_init_lock(&tl);
#pragma omp parallel num_threads(2)
	{
		omp_set_nest_lock(&nl);
		omp_set_nest_lock(&nl);
		nested++;
		omp_unset_nest_lock(&nl);
		omp_unset_nest_lock(&nl);
		if (omp_get_thread_num() == 1)
			omp_set_lock(&tl);
#pragma omp barrier
#pragma omp masked
		{
			while (!omp_test_lock(&tl))
				__atomic_add_fetch(&failed, 1, __ATOMIC_SEQ_CST);
			tested++;
			omp_unset_lock(&tl);
		}
		if (omp_get_thread_num() == 1) {
			/* the lock stays held until a test failed on it */
			while (!__atomic_load_n(&failed, __ATOMIC_SEQ_CST))
				;
			omp_unset_lock(&tl);
		}
#pragma omp barrier
#pragma omp single
		{
#pragma omp taskgroup
			{
				for (int k = 0; k < GROUP; k++) {
#pragma omp task
					__atomic_add_fetch(&grouped, 1, __ATOMIC_SEQ_CST);
				}
			}
		}
#pragma omp for ordered schedule(static, 1)
		for (int i = 0; i < ORDERED; i++) {
#pragma omp ordered
			order = order * 10 + i + 1;
		}
#pragma omp single
		{
#pragma omp taskloop num_tasks(LOOP)
			for (int i = 0; i < 8; i++)
				__atomic_add_fetch(&looped, i, __ATOMIC_SEQ_CST);
		}
	}
	omp_destroy_lock(&tl);
	omp_destroy_nest_lock(&nl);
	printf("nested = %ld, tested = %ld, failed > 0: %d, grouped = %ld, order = %ld, "
	       "looped = %ld\n",
	       (long)nested, (long)tested, failed > 0, (long)grouped, (long)order, (long)looped);
	return nested == 2 && tested == 1 && grouped == GROUP && order == 1234 && looped == 28 ? 0
											       : 1;
}
