/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Busy instrumented code interrupted by a 500 us SIGALRM timer whose handler calls
 * instrumented functions: prints how many calls of each kind ran, for the test to compare
 * with the trace. argv[1]: the number of work() calls, argv[2]: the loop iterations of each.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile long sink;
static volatile sig_atomic_t ticks, tocks;

__attribute__((noinline)) static void tock(void)
{
	tocks++;
}

__attribute__((noinline)) static void tick(void)
{
	ticks++;
	tock();
}

static void on_alarm(int sig)
{
	tick();
}

static long inner = 1;

__attribute__((noinline)) static void work(long i)
{
	for (long k = 0; k < inner; k++)
		sink += i + k;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	inner = argc > 2 ? atol(argv[2]) : 1000;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 500}, {0, 500}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < n; i++)
		work(i);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("work %ld tick %d tock %d\n", n, (int)ticks, (int)tocks);
	return 0;
}
