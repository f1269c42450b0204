/* SPDX-License-Identifier: BSD-3-Clause */
/* A thread blocked in read() on a pipe while the test switches recording off, woken after. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fds[2];
static pthread_barrier_t started;
static long reader_tid;
static long got;

__attribute__((noinline)) void *reader(void *arg)
{
	char buf[16];
	(void)arg;
	reader_tid = syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	got = read(fds[0], buf, sizeof(buf)); /* blocks until the main thread writes */
	return NULL;
}

/* One line of the test on stdin, one read(): the test writes "\n" alone. */
static void wait_go(void)
{
	char buf[16];
	if (read(0, buf, sizeof(buf)) != 1)
		_exit(3);
}

int main(void)
{
	pthread_t th;
	if (pipe(fds) != 0)
		return 2;
	pthread_barrier_init(&started, NULL, 2);
	pthread_create(&th, NULL, reader, NULL);
	pthread_barrier_wait(&started);
	/* The test switches recording off once the reader waits in read(), then says go. */
	printf("ready %ld %d\n", reader_tid, fds[0]);
	fflush(stdout);
	wait_go();
	if (write(fds[1], "abc", 3) != 3)
		return 2;
	pthread_join(th, NULL);
	printf("read %ld\n", got);
	fflush(stdout);
	wait_go(); /* the test switches recording on before this line */
	printf("done\n");
	fflush(stdout);
	return 0;
}
