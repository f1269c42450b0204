// SPDX-License-Identifier: BSD-3-Clause
// e2e "closefd": the program closes its stdout, makes MBs of events (vt's event file is
// opened meanwhile), then writes to fd 1, opens a file (the lowest free descriptor), and
// runs a child that lists the descriptors it inherited; all it says goes to stderr.
// "closefd N close2 FILE" / "closefd N dup2 FILE": the program puts a file of its own on fd 2
// (close(2) then open, or dup2 onto it), writes "mine" there, makes N events and ends: vt's
// lines must not land in that file.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
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
