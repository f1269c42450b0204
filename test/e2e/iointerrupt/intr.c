/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads of a pipe, the last one interrupted by a signal whose handler's events fall inside it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

/* Instrumented: its Enter and Leave are recorded while the read waits. */
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

int main(void)
{
	int p[2];
	char c = 'x';
	if (pipe(p) != 0)
		return 1;
	/* The first write and read give the descriptors their handles; the next two are
	 * operations on known handles. */
	for (int i = 0; i < 2; i++)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* Every 50 ms, so that one comes while the read waits even if an early one came
	 * before it (no SA_RESTART: the read fails with EINTR). */
	struct itimerval it = {{0, 50000}, {0, 50000}};
	setitimer(ITIMER_REAL, &it, NULL);
	errno = 0;
	ssize_t r = read(p[0], &c, 1);
	int err = errno;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("read interrupted %zd errno %d\n", r, err);
	printf("close %d %d\n", close(p[0]), close(p[1]));
	return 0;
}
