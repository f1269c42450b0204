/* SPDX-License-Identifier: BSD-3-Clause */
/* Calls before() 7 times, then replaces itself with /bin/echo by the exec form in argv[1]. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void before(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void after_failed_exec(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	char *args[] = { "echo", "replaced", "by", "execv", NULL };

	for (int i = 0; i < 7; i++)
		before();
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "execl") == 0)
		execl("/bin/echo", "echo", "replaced", "by", "execl", (char *)NULL);
	else if (argc > 1 && strcmp(argv[1], "fail") == 0)
		execv("/nonexistent/program", args);
	else
		execv("/bin/echo", args);
	/* Only a failed exec gets here: the process goes on, untraced. */
	after_failed_exec();
	puts("exec failed");
	return 4;
}
