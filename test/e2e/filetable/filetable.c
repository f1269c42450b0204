/* SPDX-License-Identifier: BSD-3-Clause */
/* A single-threaded program that lists the descriptors of every task of its process. */
/*
 *   filetable N   calls leaf() N times (the buffer fills and flushes), then prints the
 *                 descriptors of each other task (vt's writer) and of its own, closes a pipe
 *                 whose reader (a forked child) must then see its end, and writes a file.
 *
 * Lines: "self fd N -> TARGET", "task T fd N -> TARGET" for each other task, "pipe -> TARGET",
 * "mine -> TARGET", "tasks K", "child: EOF after 5 bytes" (or what the child saw instead).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

static void link_of(const char *dir, const char *name, char *out, size_t size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ssize_t n = readlink(path, out, size - 1);
	out[n < 0 ? 0 : n] = '\0';
}

/* Prints every descriptor of task tid ("self" for this one). */
static void list_fds(const char *who, long tid)
{
	char dir[256], target[4096];
	snprintf(dir, sizeof(dir), "/proc/self/task/%ld/fd", tid);
	DIR *d = opendir(dir);
	if (!d) {
		printf("%s: cannot list %s\n", who, dir);
		return;
	}
	int own = dirfd(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' || (tid == gettid() && atoi(e->d_name) == own))
			continue;
		link_of(dir, e->d_name, target, sizeof(target));
		printf("%s fd %s -> %s\n", who, e->d_name, target);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pid_t child = fork();
	if (child == 0) {
		/* The reader: the pipe's end must come once the parent closed its write end. */
		close(p[1]);
		alarm(60);
		char buf[64];
		long got = 0;
		for (ssize_t r; (r = read(p[0], buf, sizeof(buf))) > 0;)
			got += r;
		_exit(got == 5 ? 0 : 3);
	}
	close(p[0]);
	int mine = open("mine.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (child < 0 || mine < 0)
		return 1;
	for (long i = 0; i < n; i++)
		leaf(i);

	char target[4096], fd[32];
	snprintf(fd, sizeof(fd), "%d", p[1]);
	link_of("/proc/self/fd", fd, target, sizeof(target));
	printf("pipe -> %s\n", target);
	snprintf(fd, sizeof(fd), "%d", mine);
	link_of("/proc/self/fd", fd, target, sizeof(target));
	printf("mine -> %s\n", target);
	link_of("/proc/self/fd", "2", target, sizeof(target));
	printf("stderr -> %s\n", target);
	DIR *d = opendir("/proc/self/task");
	int tasks = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		tasks++;
		long tid = atol(e->d_name);
		if (tid == gettid())
			continue;
		char who[64];
		snprintf(who, sizeof(who), "task %ld", tid);
		list_fds(who, tid);
	}
	if (d)
		closedir(d);
	printf("tasks %d\n", tasks);
	list_fds("self", gettid());
	fflush(stdout);

	if (write(p[1], "hello", 5) != 5 || close(p[1]) != 0)
		return 1;
	int status = 0;
	if (waitpid(child, &status, 0) != child)
		return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("child: EOF after 5 bytes\n");
	else if (WIFSIGNALED(status))
		printf("child: killed by signal %d (no EOF)\n", WTERMSIG(status));
	else
		printf("child: exit status %d\n", WEXITSTATUS(status));
	for (int i = 0; i < 3; i++)
		if (write(mine, "x", 1) != 1)
			return 1;
	close(mine);
	return 0;
}
