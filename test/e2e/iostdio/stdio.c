/* SPDX-License-Identifier: BSD-3-Clause */
/* Known ISO C stdio: a file written and read back, freopen, a failed fopen, a pipe, printf. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char buf[4096], line[64];
	memset(buf, 'x', sizeof(buf));
	/* st.dat: 3 x 1000 + 500 + 13 + 9 + 1 bytes written (the last one over byte 100). */
	FILE *f = fopen("st.dat", "w");
	size_t w = 0;
	for (int i = 0; i < 3; i++)
		w += fwrite(buf, 1, 1000, f);
	w += 100 * fwrite(buf, 100, 5, f);
	int n = fprintf(f, "%05d|%s\n", 42, "abcdef");
	int s = fputs("line two\n", f);
	int fl = fflush(f);
	int sk = fseek(f, 100, SEEK_SET);
	long at = ftell(f);
	int c = fputc('z', f);
	int cl = fclose(f);
	printf("wrote %zu fprintf %d fputs %d fflush %d fseek %d ftell %ld fputc %d fclose %d\n", w,
	       n, s >= 0, fl, sk, at, c, cl);

	/* Read back: 2048, a short read of 1474 at the end, 0; rewind, a line of 63, a char,
	 * and a write on the read-only stream that fails (EBADF). */
	f = fopen("st.dat", "r");
	size_t a = fread(buf, 1, 2048, f);
	size_t b = fread(buf, 1, 2048, f);
	size_t z = fread(buf, 1, 2048, f);
	rewind(f);
	char *g = fgets(line, sizeof(line), f);
	int ch = fgetc(f);
	errno = 0;
	int bad = fputc('q', f);
	int e1 = errno;
	fclose(f);
	printf("fread %zu %zu %zu fgets %zu fgetc %c fputc %d errno %d\n", a, b, z,
	       g ? strlen(g) : 0, ch, bad, e1);

	/* freopen: the stream's handles on a.dat end, new ones on b.dat begin (4 bytes). */
	f = fopen("a.dat", "w");
	f = freopen("b.dat", "w", f);
	size_t fr = f ? fwrite("four", 1, 4, f) : 0;
	if (f)
		fclose(f);

	/* A file that is not there. */
	errno = 0;
	FILE *none = fopen("no/such/file", "r");
	int e2 = errno;

	/* A pipe: 10 bytes through fdopen's streams; a seek on it fails (ESPIPE). */
	int p[2];
	if (pipe(p) != 0)
		return 1;
	FILE *pw = fdopen(p[1], "w");
	int pn = fprintf(pw, "%s", "hello pipe");
	fclose(pw);
	FILE *pr = fdopen(p[0], "r");
	size_t pg = fread(buf, 1, 64, pr);
	errno = 0;
	int ps = fseek(pr, 0, SEEK_SET);
	int e3 = errno;
	fclose(pr);
	printf("fopen missing %s errno %d pipe %d %zu fseek %d errno %d freopen %zu\n",
	       none ? "ok" : "NULL", e2, pn, pg, ps, e3, fr);
	fputs("to stderr\n", stderr);
	return 0;
}
