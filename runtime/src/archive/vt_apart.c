/* SPDX-License-Identifier: BSD-3-Clause */
/* A piece of work run in a child process, so that its crash does not end the program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "archive/vt_apart.h"
#include "base/vt_log.h"
#include "interpose/vt_interpose.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Why a child: at the close libotf2 allocates, and libotf2 3.0 does not survive a NULL from
 * malloc (a double free in otf2_archive_close, a NULL written through in
 * otf2_archive_set_property). Probing malloc before each libotf2 call cannot help: a probe
 * that succeeds says nothing of the next allocation. In a child, whatever libotf2 does ends
 * there; the program's own exit (its status, its stdout still in stdio's buffers) is the
 * parent's and untouched.
 *
 * How the child is made: a raw clone with exit signal 0 and no flags (fork's copy). Not
 * fork(): it would run the program's fork handlers (vt's own turns tracing off) and send
 * SIGCHLD to the program's handler, which may reap the child (waitpid(-1)) before vt does;
 * a child without an exit signal is waited for only with __WALL. The child has only the
 * thread that made it: vt's writer thread has ended by then, but a lock another thread of
 * the program held at that moment (malloc's, stdio's) is never released there, hence the
 * look at a child that sleeps without progress: one that waits on a lock is killed, and the
 * work is done in the program's process after all. The child leaves with _exit: the
 * program's stdio buffers, copied into it, are flushed once, by the program.
 */

/* How often the parent looks at the child (ms), and for how many looks in a row a child
 * that waits on a lock (futex) without using the CPU is taken as deadlocked. */
#define VT_APART_LOOK_MS 100
#define VT_APART_LOCKED	 10
/* Where the child's system call cannot be read: this many seconds asleep without using the
 * CPU. */
#define VT_APART_IDLE_S 20

/* Reads /proc/PID/NAME into buf (NUL-terminated); its length, -1. No allocation: the
 * program's malloc may be the one failing. */
static ssize_t proc_read(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* The child at one look: its state letter, CPU time (clock ticks), and whether it waits
 * in futex (-1: cannot tell). */
struct look {
	char state;
	unsigned long long ticks;
	int in_futex;
};

static bool look_at(pid_t pid, struct look *l)
{
	char buf[1024];
	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return false;
	const char *p = strrchr(buf, ')');
	unsigned long long utime, stime;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &l->state,
			 &utime, &stime) != 3)
		return false;
	l->ticks = utime + stime;
	long nr;
	l->in_futex = -1;
	if (proc_read(pid, "syscall", buf, sizeof(buf)) > 0 && sscanf(buf, "%ld", &nr) == 1)
		l->in_futex = nr == SYS_futex
#ifdef SYS_futex_waitv
			      || nr == SYS_futex_waitv
#endif
		    ;
	return true;
}

/*
 * Whether the child is stuck, after one more look: asleep on a futex without using the CPU
 * for VT_APART_LOCKED looks in a row (it has one thread: nothing in it can wake it), or,
 * where its system call cannot be read, asleep without the CPU for VT_APART_IDLE_S.
 */
static bool stuck(pid_t pid, struct look *last, int *still)
{
	struct look now;
	if (!look_at(pid, &now))
		return false;
	bool same = now.state == 'S' && now.ticks == last->ticks;
	*last = now;
	*still = same && now.in_futex != 0 ? *still + 1 : 0;
	return now.in_futex > 0 ? *still >= VT_APART_LOCKED
				: *still >= VT_APART_IDLE_S * 1000 / VT_APART_LOOK_MS;
}

/* Waits for the child; its status, or -1 when it was stuck and is killed. */
static int wait_child(pid_t pid)
{
	int status, still = 0;
	struct look last = {0};
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	long nap_ns = 50000, slept_ns = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG | __WALL);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0; /* not ours to wait for any more: nothing known */
			break;
		}
		if (pfd >= 0) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};
			if (poll(&p, 1, VT_APART_LOOK_MS) != 0)
				continue; /* ended (or a signal of the program's): look */
		} else {
			/* No descriptor to wait on (an old kernel, a full table): growing naps. */
			struct timespec nap = {0, nap_ns};
			nanosleep(&nap, NULL);
			slept_ns += nap_ns;
			if (nap_ns < VT_APART_LOOK_MS * 1000000L)
				nap_ns *= 2;
			if (slept_ns < VT_APART_LOOK_MS * 1000000L)
				continue;
			slept_ns = 0;
		}
		if (stuck(pid, &last, &still)) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
				;
			status = -1;
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return status;
}

/* The child's signals: a fault ends it plainly (not through vt's or the program's
 * handlers); the program's terminating signals wait (a Ctrl-C for the program's group
 * lets the trace be finished); a closed stderr pipe does not end it. */
static void child_signals(void)
{
	struct sigaction dfl, ign, cur;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && vt_real_sigaction(sig, NULL, &cur) == 0 &&
		    ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_IGN) &&
		    ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL))
			vt_real_sigaction(sig, &dfl, NULL);
	vt_real_sigaction(SIGPIPE, &ign, NULL);
	sigset_t wait_set;
	sigemptyset(&wait_set);
	sigaddset(&wait_set, SIGHUP);
	sigaddset(&wait_set, SIGINT);
	sigaddset(&wait_set, SIGQUIT);
	sigaddset(&wait_set, SIGTERM);
	sigaddset(&wait_set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &wait_set, NULL);
}

/* vt's lines go to a copy of fd 2; fd 2 itself to /dev/null: what libc or libotf2 print
 * there when they fail ("free(): double free detected") is no line of the program's. */
static void child_stderr(long parent)
{
	/* Both descriptors or none: a full table (the program took every descriptor) has
	 * room only for what vt kept for libotf2. */
	int copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
	int null = copy >= 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	if (null >= 0 && dup2(null, STDERR_FILENO) == STDERR_FILENO) {
		vt_log_as(parent, copy);
	} else {
		vt_log_as(parent, STDERR_FILENO);
		if (copy >= 0)
			close(copy);
	}
	if (null >= 0)
		close(null);
}

/* Under valgrind a child's _exit runs libc's freeres, which flushes the program's stdio
 * buffers (valgrind's --run-libc-freeres): its output would be written twice. */
static bool under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");
	return preload && strstr(preload, "/vgpreload_core");
}

enum vt_apart vt_apart_run(int (*work)(void *), void *arg, const char *what)
{
	long parent = (long)getpid();
	if (under_valgrind())
		return VT_APART_NO_CHILD;
	pid_t pid = (pid_t)syscall(SYS_clone, 0L, NULL, NULL, NULL, 0L);
	if (pid < 0)
		return VT_APART_NO_CHILD;
	if (pid == 0) {
		child_signals();
		child_stderr(parent);
		_exit(work(arg) == 0 ? 0 : 1);
	}
	int saved = errno;
	int status = wait_child(pid);
	errno = saved;
	if (status < 0)
		return VT_APART_STUCK;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 0 ? VT_APART_DONE : VT_APART_FAILED;
	const char *sig = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : NULL;
	vt_error("%s failed: the process vt wrote it in ended with SIG%s (libotf2 out of "
		 "memory, or a fault); the trace is incomplete",
		 what, sig ? sig : "?");
	return VT_APART_DIED;
}
