/* SPDX-License-Identifier: BSD-3-Clause */
/* stdio that _FORTIFY_SOURCE makes into libc's checking forms (__printf_chk, __fread_chk...). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int say(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int main(int argc, char **argv)
{
	/* Sizes the compiler cannot know: the fortified headers call the _chk forms. */
	size_t n = (size_t)atoi(argc > 1 ? argv[1] : "40");
	int m = atoi(argc > 2 ? argv[2] : "32");
	char buf[64], line[32];
	FILE *f = fopen("fort.txt", "w");
	int a = fprintf(f, "%d %s\n", 1234, "fortified"); /* 15 */
	int b = say(f, "%s=%d\n", "vf", 7);		  /* 5 */
	fclose(f);
	f = fopen("fort.txt", "r");
	char *g = fgets(line, m, f);	/* "1234 fortified\n": 15 */
	size_t r = fread(buf, 1, n, f); /* the 5 left */
	fclose(f);
	printf("fprintf %d vfprintf %d fgets %d fread %zu\n", a, b, g != NULL, r);
	return 0;
}
