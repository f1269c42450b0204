// SPDX-License-Identifier: BSD-3-Clause
// e2e "closefd": the program closes its stdout, makes MBs of events (vt's event file is
// opened meanwhile), then writes to fd 1, opens a file (the lowest free descriptor), and
// runs a child that lists the descriptors it inherited; all it says goes to stderr.
// "closefd N close2 FILE" / "closefd N dup2 FILE": the program puts a file of its own on fd 2
// (close(2) then open, or dup2 onto it), writes "mine" there, makes N events and ends: vt's
// lines must not land in that file.
// "closefd N HOW FILE" with HOW steal, closefrom, close_range or sys_close_range: N calls of
// leaf, then the program takes descriptors 3..63 (steal: dup2 of FILE over each; the others
// close every descriptor from 3 on, sys_close_range by the bare system call, check that the
// program's own at 3, 9, 40 and 200 are closed, then open FILE),
// writes a known line through each descriptor that refers to FILE, N calls of leaf2, and ends
// with status 5.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

__attribute__((noinline)) void leaf2(long i)
{
	sink -= i;
}

static int take(const char *how, const char *path)
{
	int fd, last = 3;
	if (strcmp(how, "steal") == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return 1;
		for (int to = 3; to <= 63; to++)
			if (to != fd && dup2(fd, to) != to)
				return 1;
		last = 63;
	} else {
		/* Descriptors of the program's own below, between and above vt's: all closed. */
		int mine[] = {3, 9, 40, 200};
		for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
			if (dup2(0, mine[i]) != mine[i])
				return 1;
		if (strcmp(how, "closefrom") == 0)
			closefrom(3);
		else if (strcmp(how, "close_range") == 0 && close_range(3, ~0U, 0) != 0)
			return 1;
		else if (strcmp(how, "sys_close_range") == 0 && syscall(SYS_close_range, 3, ~0U, 0))
			return 1;
		for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
			if (fcntl(mine[i], F_GETFD) != -1 || errno != EBADF) {
				fprintf(stderr, "fd %d still open\n", mine[i]);
				return 1;
			}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != 3)
			return 1;
	}
	char line[32];
	for (int k = 3; k <= last; k++) {
		int len = snprintf(line, sizeof(line), "fd %d\n", k);
		if (write(k, line, (size_t)len) != len)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	if (argc > 3 && strcmp(argv[2], "close2") && strcmp(argv[2], "dup2")) {
		for (long i = 0; i < n; i++)
			leaf(i);
		if (take(argv[2], argv[3]) != 0) {
			fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		for (long i = 0; i < n; i++)
			leaf2(i);
		printf("took 3..63: %s\n", argv[2]);
		return 5;
	}
	if (argc > 3) {
		int fd;
		if (strcmp(argv[2], "close2") == 0) {
			close(2);
			fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		} else {
			fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0 && fd != 2) {
				dup2(fd, 2);
				close(fd);
				fd = 2;
			}
		}
		if (fd != 2)
			return 3;
		ssize_t w = write(2, "mine\n", 5);
		for (long i = 0; i < n; i++)
			leaf(i);
		printf("done %ld\n", w);
		return 0;
	}
	close(1);
	for (long i = 0; i < n; i++)
		leaf(i);
	ssize_t w = write(1, "into the trace?\n", 16);
	fprintf(stderr, "write to fd 1: %s\n", w < 0 ? strerror(errno) : "written");
	int fd = open("/dev/null", O_RDONLY);
	fprintf(stderr, "open: fd %d\n", fd);
	fflush(stderr);
	int status = system("ls /proc/self/fd 1>&2");
	fprintf(stderr, "sink = %ld, child status %d\n", sink, status);
	return 0;
}
