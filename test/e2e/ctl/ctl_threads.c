/* SPDX-License-Identifier: BSD-3-Clause */
/* Three threads through phases A, B, C, a thread started during B, and one spinning across B. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 2

static pthread_barrier_t phase;
static volatile long sink;
static volatile int spin_stop;
static int spinning; /* the spinner's first burst is done (atomic) */

__attribute__((noinline)) void phase_a(int i)
{
	sink += i;
}

__attribute__((noinline)) void phase_b(int i)
{
	sink += 2 * i;
}

__attribute__((noinline)) void phase_c(int i)
{
	sink += 3 * i;
}

__attribute__((noinline)) void spin(void)
{
	sink++;
}

static void run_phases(void)
{
	pthread_barrier_wait(&phase);
	for (int i = 0; i < 100; i++)
		phase_a(i);
	pthread_barrier_wait(&phase); /* A done; the test switches recording off */
	pthread_barrier_wait(&phase);
	for (int i = 0; i < 200; i++)
		phase_b(i);
	pthread_barrier_wait(&phase); /* B done; the test switches recording on */
	pthread_barrier_wait(&phase);
	for (int i = 0; i < 300; i++)
		phase_c(i);
}

static void *worker(void *arg)
{
	run_phases();
	return arg;
}

/* Started while recording is off: it starts paused. */
static void *late(void *arg)
{
	for (int i = 0; i < 50; i++)
		phase_b(i);
	return arg;
}

/* Calls spin() from before off until after on, in bursts (a trace of bounded size). */
static void *spinner(void *arg)
{
	struct timespec pause = {0, 1000 * 1000};
	while (!spin_stop) {
		for (int i = 0; i < 20; i++)
			spin();
		__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
		nanosleep(&pause, NULL);
	}
	return arg;
}

static void wait_go(const char *done)
{
	char c;
	printf("%s\n", done);
	fflush(stdout);
	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

int main(void)
{
	pthread_t w[WORKERS], l, s;
	pthread_barrier_init(&phase, NULL, WORKERS + 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	pthread_create(&s, NULL, spinner, NULL);
	pthread_barrier_wait(&phase);
	for (int i = 0; i < 100; i++)
		phase_a(i);
	pthread_barrier_wait(&phase);
	/* The spinner recording before the test switches off, however late it was scheduled. */
	struct timespec nap = {0, 1000 * 1000};
	while (!__atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
		nanosleep(&nap, NULL);
	wait_go("A done");
	pthread_barrier_wait(&phase);
	pthread_create(&l, NULL, late, NULL);
	pthread_join(l, NULL);
	for (int i = 0; i < 200; i++)
		phase_b(i);
	pthread_barrier_wait(&phase);
	wait_go("B done");
	spin_stop = 1;
	pthread_join(s, NULL);
	pthread_barrier_wait(&phase);
	for (int i = 0; i < 300; i++)
		phase_c(i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	printf("C done\n");
	return 0;
}
