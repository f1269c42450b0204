/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argv[1]: "vfork" (a vfork child execs /bin/echo), "vfork-fail" (its exec fails, it calls
 * _exit), or "fork" (a forked child calls work() and exits without exec). The parent calls
 * work() 10 times before and 20 times after, and waits for the child. "daemon FILE": after
 * the 10 calls the program becomes a daemon (daemon(3): its parent ends), which calls
 * child_work() 5 times and writes "daemon PID" into FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void work(int i)
{
	sink += i;
}

__attribute__((noinline)) static void child_work(int i)
{
	sink -= i;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "vfork";
	for (int i = 0; i < 10; i++)
		work(i);
	printf("parent before\n");
	fflush(stdout);
	pid_t pid;
	if (strcmp(how, "daemon") == 0 && argc > 2) {
		if (daemon(0, 0) != 0) {
			perror("daemon");
			return 1;
		}
		for (int i = 0; i < 5; i++)
			child_work(i);
		FILE *f = fopen(argv[2], "w");
		if (f) {
			fprintf(f, "daemon %d\n", (int)getpid());
			fclose(f);
		}
		return 0;
	}
	if (strcmp(how, "fork") == 0) {
		pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 5; i++)
				child_work(i);
			printf("child done\n");
			return 0;
		}
	} else {
		const char *prog = strcmp(how, "vfork") == 0 ? "/bin/echo" : "/nonexistent/prog";
		pid = vfork();
		if (pid == 0) {
			execl(prog, "echo", "child exec", (char *)NULL);
			_exit(127);
		}
	}
	int status = 0;
	waitpid(pid, &status, 0);
	for (int i = 0; i < 20; i++)
		work(i);
	printf("parent after, child status %d\n", WEXITSTATUS(status));
	return 0;
}
