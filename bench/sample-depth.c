/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sampling benchmark's program (run-sampling.py): recurses to a given depth, then burns
 * a fixed amount of CPU in a leaf, so that every sample's stack has that depth plus the few
 * frames from _start to main. Built plain; vt comes in through vtrun.
 * Usage: sample-depth DEPTH ITERATIONS [FLOOR_PERIOD_US]
 * With FLOOR_PERIOD_US, the program takes SIGPROF itself from a timer of that period with a
 * handler that only counts: the floor of the technique (the kernel's delivery of a signal),
 * and prints the signals it took. It prints the seconds its work took, without start and end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void leaf(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) static void down(int depth, long n)
{
	if (depth > 1)
		down(depth - 1, n);
	else
		leaf(n);
	sink += 1; /* not a tail call: each level keeps its frame */
}

static volatile long signals;

static void count(int sig)
{
	(void)sig;
	signals++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 10;
	long n = argc > 2 ? atol(argv[2]) : 100000000;
	if (argc > 3) {
		long us = atol(argv[3]);
		struct sigaction sa = {0};
		sa.sa_handler = count;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGPROF, &sa, NULL);
		struct sigevent ev = {0};
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGPROF;
		ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		timer_t t;
		struct itimerspec its = {{us / 1000000, us % 1000000 * 1000},
					 {us / 1000000, us % 1000000 * 1000}};
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &its, NULL))
			return 1;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	down(depth, n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* The work's own time: the run-time overhead without vt's start and end. */
	printf("%.0f %ld %.6f\n", sink, signals,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
	return 0;
}
