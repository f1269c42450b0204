/* SPDX-License-Identifier: BSD-3-Clause */
/* What a 1-byte write to /dev/null, a 1-byte read of /dev/zero and a malloc/free pair cost. */
/*
 * Three lines per operation: "NAME COUNT NS_PER_CALL" with the loop timed by CLOCK_MONOTONIC
 * (wall), "NAME-cpu ..." by the program thread's CPU time (CLOCK_THREAD_CPUTIME_ID: what the
 * calling thread spent, whatever else the machine runs) and "NAME-proc ..." by the process's
 * (CLOCK_PROCESS_CPUTIME_ID: a tracer's writer thread working meanwhile included), after one
 * call outside the loop (a tracer's per-thread set-up and its first look-ups stay out).
 * run-io.py runs it plain, and under vtrun with VT_IOTRACE and VT_MEMTRACE off and on; each
 * loop is a function of its own, so that callgrind can count one (--toggle-collect).
 *
 *   io-costs [COUNT [write|read|malloc-free|read0]]   calls per loop (default 10^6); only that
 *   loop (read0: reads of 0 bytes of /dev/zero, run only when named: the system call without
 *   the kernel's store into the program's memory, see docs/bench.md)
 *
 * Two settings separate what a tracer adds per call from what it costs once or makes the
 * kernel pay (run-io.py's "steady state" table):
 *   IO_COSTS_THREAD=1  an idle second thread first: Linux looks a descriptor up without
 *                      taking a reference only while the process has one thread, so a
 *                      tracer's own thread alone makes every read and write of a
 *                      single-threaded program dearer; this is the plain baseline with it.
 *   IO_COSTS_THREAD=unshare  the same thread, which first leaves the process's descriptor
 *                      table (unshare(CLONE_FILES)) and closes its copies: the table is the
 *                      program thread's alone again, as with a tracer's writer that does so.
 *   IO_COSTS_WARM=1    each loop runs once untimed first: a tracer's buffer pages are
 *                      touched (its first fill's page faults, once per thread) and its
 *                      flushing is under way when the timed loop starts.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const clockid_t clocks[3] = {CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID,
				    CLOCK_PROCESS_CPUTIME_ID};
static const char *const suffix[3] = {"", "-cpu", "-proc"};

struct times {
	double ns[3];
};

static struct times now(void)
{
	struct times t;
	for (int i = 0; i < 3; i++) {
		struct timespec ts;
		clock_gettime(clocks[i], &ts);
		t.ns[i] = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
	}
	return t;
}

/* The three lines of a loop of n calls begun at t0. */
static void report(const char *name, long n, struct times t0)
{
	struct times t1 = now();
	for (int i = 0; i < 3; i++)
		printf("%s%s %ld %.1f\n", name, suffix[i], n, (t1.ns[i] - t0.ns[i]) / (double)n);
}

__attribute__((noinline)) int write_loop(int fd, long n)
{
	char c = 'x';
	for (long i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			return 1;
	return 0;
}

__attribute__((noinline)) int read_loop(int fd, long n)
{
	char c;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return 1;
	return 0;
}

__attribute__((noinline)) int read0_loop(int fd, long n)
{
	char c;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 0) != 0)
			return 1;
	return 0;
}

/* 32 bytes, used so the pair is not optimised away. */
__attribute__((noinline)) int malloc_loop(long n)
{
	for (long i = 0; i < n; i++) {
		char *volatile p = malloc(32);
		p[0] = 1;
		free(p);
	}
	return 0;
}

static bool wanted(const char *only, const char *name)
{
	return !only || !strcmp(only, name);
}

static pthread_mutex_t unshared_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t unshared_cond = PTHREAD_COND_INITIALIZER;
static int unshared; /* 1: done, -1: failed */

static void *idle(void *arg)
{
	if (arg) {
		int ok = unshare(CLONE_FILES) == 0 && close_range(0, ~0U, 0) == 0;
		pthread_mutex_lock(&unshared_lock);
		unshared = ok ? 1 : -1;
		pthread_cond_signal(&unshared_cond);
		pthread_mutex_unlock(&unshared_lock);
	}
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *only = argc > 2 ? argv[2] : NULL;
	int out = open("/dev/null", O_WRONLY);
	int in = open("/dev/zero", O_RDONLY);
	char c = 'x';
	if (out < 0 || in < 0 || write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
		return 1;
	pthread_t other;
	const char *thread = getenv("IO_COSTS_THREAD");
	void *unshare_it = thread && !strcmp(thread, "unshare") ? &other : NULL;
	if (thread && pthread_create(&other, NULL, idle, unshare_it) != 0)
		return 1;
	pthread_mutex_lock(&unshared_lock);
	while (unshare_it && !unshared)
		pthread_cond_wait(&unshared_cond, &unshared_lock);
	pthread_mutex_unlock(&unshared_lock);
	if (unshared < 0) {
		fprintf(stderr,
			"io-costs: IO_COSTS_THREAD=unshare: unshare or close_range failed\n");
		return 1;
	}
	bool warm = getenv("IO_COSTS_WARM") != NULL;
	struct times t0 = now();
	if (wanted(only, "write")) {
		if (warm && write_loop(out, n))
			return 1;
		t0 = now();
		if (write_loop(out, n))
			return 1;
		report("write", n, t0);
	}
	t0 = now();
	if (wanted(only, "read")) {
		if (warm && read_loop(in, n))
			return 1;
		t0 = now();
		if (read_loop(in, n))
			return 1;
		report("read", n, t0);
	}
	t0 = now();
	if (only && !strcmp(only, "read0")) {
		if (read0_loop(in, n))
			return 1;
		report("read0", n, t0);
	}
	/* 10 times as many pairs. */
	long m = 10 * n;
	free(malloc(32));
	t0 = now();
	if (wanted(only, "malloc-free")) {
		malloc_loop(m);
		report("malloc-free", m, t0);
	}
	close(out);
	close(in);
	return 0;
}
