/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program that is hard on a sampler: instrumented with vtcc, three threads that malloc and
 * free all the time, a SIGALRM timer of its own whose handler runs instrumented code, and
 * SIGUSR1 sent between threads. It runs for the seconds given, counts every call of its
 * functions per thread, and prints the counts, which the trace must have exactly.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum { THREADS = 3 };
enum { F_CHURN, F_COMPUTE, F_STEP, F_ON_ALARM, F_ON_USR1, N_F };
static const char *const names[N_F] = {"churn", "compute", "step", "on_alarm", "on_usr1"};

/* Per thread, written by the thread and its signal handlers. */
static volatile long calls[THREADS][N_F];
static __thread int me;
static volatile double sink;
static double seconds;
static pthread_t tids[THREADS];
static int all_started;

__attribute__((noinline)) void on_alarm_work(void)
{
	calls[me][F_ON_ALARM]++;
	double s = 0;
	for (int i = 0; i < 2000; i++)
		s += i;
	sink = s;
}

__attribute__((noinline)) void on_usr1_work(void)
{
	calls[me][F_ON_USR1]++;
	sink += 1;
}

/* The handlers themselves are not instrumented (called through a pointer, static): what
 * they call is. */
static void on_alarm(int sig)
{
	(void)sig;
	on_alarm_work();
}

static void on_usr1(int sig)
{
	(void)sig;
	on_usr1_work();
}

__attribute__((noinline)) void churn(int round)
{
	calls[me][F_CHURN]++;
	void *p[64];
	for (int i = 0; i < 64; i++) {
		p[i] = malloc((size_t)(16 + (i * 37 + round) % 4000));
		if (p[i])
			memset(p[i], i, 16);
	}
	for (int i = 0; i < 64; i++)
		free(p[(i * 7) % 64]);
}

__attribute__((noinline)) double compute(int n)
{
	calls[me][F_COMPUTE]++;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += (double)i / (i + 1);
	return s;
}

__attribute__((noinline)) void step(int round)
{
	calls[me][F_STEP]++;
	churn(round);
	sink += compute(20000);
}

/* Not inlined: an inlined function has Enter and Leave events but no frame of its own. */
__attribute__((noinline)) static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	/* The signals wait until the thread knows its number (their handlers count under it). */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGALRM);
	me = (int)(long)arg;
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	double end = now() + seconds;
	for (int round = 0; now() < end; round++) {
		step(round);
		/* Now and then a signal to the next thread, once main has made them all (before,
		 * the next one's id may not be there yet). */
		if (round % 50 == 0 && __atomic_load_n(&all_started, __ATOMIC_ACQUIRE))
			pthread_kill(tids[(me + 1) % THREADS], SIGUSR1);
	}
	/* Done: no handler runs on this thread any more (a thread's events end with its
	 * location, which closes while the thread exits). */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 10;
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	struct itimerval it = {{0, 2000}, {0, 2000}};
	setitimer(ITIMER_REAL, &it, NULL);
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* inherited by the threads; run() unblocks */
	tids[0] = pthread_self();
	for (long i = 1; i < THREADS; i++)
		pthread_create(&tids[i], NULL, run, (void *)i);
	__atomic_store_n(&all_started, 1, __ATOMIC_RELEASE);
	run((void *)0);
	for (int i = 1; i < THREADS; i++)
		pthread_join(tids[i], NULL);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	for (int t = 0; t < THREADS; t++)
		for (int f = 0; f < N_F; f++)
			printf("thread %d %s %ld\n", t, names[f], calls[t][f]);
	/* The CPU time the threads had: what a CPU-clock sampler can have sampled. */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu us %ld\n", (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
				   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return 0;
}
