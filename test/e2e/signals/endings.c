/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ends in the way argv[1] names after a known number of calls: a signal raised or a fault
 * (term int hup quit segv bus abort pipe), _exit, a handler of the program's own that exits
 * or re-raises, an ignored signal, "spin": calls work() until killed from outside, or
 * "many": 3 million calls, a line, and the end of main (the test signals it while vt writes
 * the trace at exit), or "thread-segv": a second thread faults while main waits for it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;
static int *volatile null_int;

__attribute__((noinline)) static void work(int i)
{
	sink += i;
}

static void handler_exit(int sig)
{
	static const char msg[] = "handled\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(9);
	exit(7);
}

static void handler_reraise(int sig)
{
	static const char msg[] = "reraise\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(9);
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((noinline)) static void fault(void)
{
	*null_int = 1;
}

static void *faulting_thread(void *arg)
{
	for (int i = 0; i < 25; i++)
		work(i);
	fault();
	return arg;
}

static const struct {
	const char *name;
	int sig;
} raised[] = {{"term", SIGTERM}, {"int", SIGINT}, {"hup", SIGHUP},
	      {"quit", SIGQUIT}, {"bus", SIGBUS}, {"pipe", SIGPIPE}};

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "term";
	if (strcmp(how, "handled") == 0)
		signal(SIGTERM, handler_exit);
	if (strcmp(how, "reraise") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handler_reraise;
		sigaction(SIGINT, &sa, NULL);
	}
	if (strcmp(how, "ignored") == 0)
		signal(SIGHUP, SIG_IGN);
	if (strcmp(how, "thread-segv") == 0) {
		for (int i = 0; i < 100; i++)
			work(i);
		printf("waiting for the thread\n");
		fflush(stdout);
		pthread_t t;
		pthread_create(&t, NULL, faulting_thread, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (strcmp(how, "many") == 0) {
		for (int i = 0; i < 3000000; i++)
			work(i);
		printf("returning from main\n");
		fflush(stdout);
		return 0;
	}
	if (strcmp(how, "spin") == 0) {
		printf("spinning\n");
		fflush(stdout);
		for (int i = 0;; i++)
			work(i);
	}
	for (int i = 0; i < 25; i++)
		work(i);
	printf("before the end\n");
	fflush(stdout);
	for (size_t i = 0; i < sizeof(raised) / sizeof(raised[0]); i++)
		if (strcmp(how, raised[i].name) == 0)
			raise(raised[i].sig);
	if (strcmp(how, "segv") == 0)
		*null_int = 1;
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "_exit") == 0)
		_exit(5);
	if (strcmp(how, "handled") == 0)
		raise(SIGTERM);
	if (strcmp(how, "reraise") == 0)
		raise(SIGINT);
	if (strcmp(how, "ignored") == 0)
		raise(SIGHUP);
	printf("after\n");
	return 0;
}
