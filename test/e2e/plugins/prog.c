// SPDX-License-Identifier: BSD-3-Clause
// The program the plugin tests trace: main and NTHREADS threads with known calls, all
// ending normally (every Leave is the program's own). main: work() MAIN_CALLS times, then
// nap() once after joining the threads; thread n (0..NTHREADS-1): thread_main once, work()
// (n + 1) * K times, nap() once. K is argv[1] (default 5). nap() sleeps NAP_MS, long enough
// for the test plugins' samplers (a few milliseconds) to finish while the threads live.
// Each thread appends "prog main PID TID" or "prog thread PID TID n=N" to $TP_LOG, so the
// test can tell which trace location belongs to which thread id of the plugin log.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 3
#define MAIN_CALLS 4
#define NAP_MS 12

static long k_calls = 5;
static long sink;

static void log_thread(const char *what, const char *tail)
{
	const char *path = getenv("TP_LOG");
	char line[128];
	if (!path || !*path)
		return;
	int n = snprintf(line, sizeof(line), "prog %s %d %ld%s\n", what, (int)getpid(),
			 (long)syscall(SYS_gettid), tail);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n)
			perror("write");
		close(fd);
	}
}

__attribute__((noinline)) void work(long i)
{
	__atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, NAP_MS * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *thread_main(void *arg)
{
	long n = (long)arg;
	char what[32];

	snprintf(what, sizeof(what), " n=%ld", n);
	log_thread("thread", what);
	for (long i = 0; i < (n + 1) * k_calls; i++)
		work(i);
	nap();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[NTHREADS];

	if (argc > 1)
		k_calls = atol(argv[1]);
	log_thread("main", "");
	for (long i = 0; i < MAIN_CALLS; i++)
		work(i);
	for (long n = 0; n < NTHREADS; n++) {
		if (pthread_create(&threads[n], NULL, thread_main, (void *)n) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (long n = 0; n < NTHREADS; n++)
		pthread_join(threads[n], NULL);
	nap();
	printf("threads = %d, k = %ld, sink = %ld\n", NTHREADS, k_calls, sink);
	return 0;
}
