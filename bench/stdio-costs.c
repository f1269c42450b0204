/* SPDX-License-Identifier: BSD-3-Clause */
/* What a 1-byte fwrite to /dev/null costs, buffered and unbuffered, and a 1-byte fprintf. */
/*
 * One line per case: "NAME COUNT NS_PER_CALL", the loop timed with CLOCK_MONOTONIC after one
 * call outside it. run-io.py runs it plain, and under vtrun with VT_IOTRACE off and on.
 *   fwrite        1 byte into the stream's buffer (libc writes 4 KiB at a time)
 *   fwrite-unbuf  1 byte on an unbuffered stream: one write(2) per call
 *   fprintf       "%d" of one digit into the buffer (gcc makes a "%c" an fputc)
 *
 *   stdio-costs [COUNT]   calls per loop (default 10^6)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int loop(const char *name, FILE *f, long n, int formatted)
{
	char c = 'x';
	if (fwrite(&c, 1, 1, f) != 1)
		return 1;
	double t0 = now();
	for (long i = 0; i < n; i++)
		if (formatted ? fprintf(f, "%d", (int)(i % 10)) != 1 : fwrite(&c, 1, 1, f) != 1)
			return 1;
	printf("%s %ld %.1f\n", name, n, (now() - t0) / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	FILE *buffered = fopen("/dev/null", "w");
	FILE *unbuffered = fopen("/dev/null", "w");
	if (!buffered || !unbuffered || setvbuf(unbuffered, NULL, _IONBF, 0) != 0)
		return 1;
	if (loop("fwrite", buffered, n, 0) || loop("fwrite-unbuf", unbuffered, n, 0) ||
	    loop("fprintf", buffered, n, 1))
		return 1;
	fclose(buffered);
	fclose(unbuffered);
	return 0;
}
