// SPDX-License-Identifier: BSD-3-Clause
// e2e "closefd": the program closes its stdout, makes MBs of events (vt's event file is
// opened meanwhile), then writes to fd 1, opens a file (the lowest free descriptor), and
// runs a child that lists the descriptors it inherited; all it says goes to stderr.
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
