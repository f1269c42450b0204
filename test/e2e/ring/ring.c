/* SPDX-License-Identifier: BSD-3-Clause */
/* Phases A, B, C with known call counts for ring mode; "segv" ends in C, "snap" snapshots in
 * B, "threads" runs two threads of NW calls each instead. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifdef VTRACE
#include <vt/vt_user.h>
#else
#define VT_USER_SNAPSHOT(why) (-1)
#endif

#define NA 5000
#define NB 20000
#define NC 2000
#define NW 20000

static volatile long sink;

__attribute__((noinline)) static void work_a(int i)
{
	sink += i;
}

__attribute__((noinline)) static void work_b(int i)
{
	sink ^= i;
}

__attribute__((noinline)) static void work_c(int i)
{
	sink -= i;
}

__attribute__((noinline)) static void phase_a(void)
{
	for (int i = 0; i < NA; i++)
		work_a(i);
}

__attribute__((noinline)) static void phase_b(int snap)
{
	for (int i = 0; i < NB; i++) {
		work_b(i);
		if (snap && i == NB / 2)
			printf("snapshot: %d\n", VT_USER_SNAPSHOT("in phase B") == 0 ? 0 : -1);
	}
}

__attribute__((noinline)) static void phase_c(int segv)
{
	for (int i = 0; i < NC; i++)
		work_c(i);
	if (segv) {
		fflush(stdout);
		raise(SIGSEGV);
	}
}

__attribute__((noinline)) static void work_w(int i)
{
	sink += 2 * i;
}

static void *worker(void *arg)
{
	for (int i = 0; i < NW; i++)
		work_w(i);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "threads") == 0) {
		pthread_t th[2];
		for (int k = 0; k < 2; k++)
			pthread_create(&th[k], NULL, worker, NULL);
		for (int k = 0; k < 2; k++)
			pthread_join(th[k], NULL);
		printf("threads done\n");
		return 0;
	}
	int segv = argc > 1 && strcmp(argv[1], "segv") == 0;
	int snap = argc > 1 && strcmp(argv[1], "snap") == 0;
	phase_a();
	phase_b(snap);
	phase_c(segv);
	printf("phases done: %ld\n", (long)sink);
	return 0;
}
