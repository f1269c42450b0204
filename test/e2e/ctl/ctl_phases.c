/* SPDX-License-Identifier: BSD-3-Clause */
/* Phases A, B, C of known calls, each started by a line on stdin, so a test can act between them.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;
static volatile sig_atomic_t usr2;

static void on_usr2(int sig)
{
	(void)sig;
	usr2++;
}

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

/* Blocks until the test writes a line (read restarts after vt's signals: SA_RESTART). */
static void wait_go(const char *done)
{
	char buf[16];
	printf("%s\n", done);
	fflush(stdout);
	while (read(0, buf, 1) == 1 && buf[0] != '\n')
		;
}

/* With an argument: the program handles SIGUSR2 itself (installed after vt's start). */
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		signal(SIGUSR2, on_usr2);
	wait_go("ready");
	for (int i = 0; i < 100; i++)
		phase_a(i);
	wait_go("A done");
	for (int i = 0; i < 200; i++)
		phase_b(i);
	wait_go("B done");
	for (int i = 0; i < 300; i++)
		phase_c(i);
	printf("C done %ld\n", sink);
	if (argc > 1)
		printf("usr2 %d\n", (int)usr2);
	return 0;
}
