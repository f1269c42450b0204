/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' outputs (tools/lib/vtr_out.c): JSON strings (escapes, '<' for HTML, UTF-8 kept,
 * bad bytes as U+FFFD), plain and gzip files (read back with zlib) through the writer thread,
 * a device that refuses the bytes, and a file that cannot be written.
 */
#include "unit.h"
#include "vtr_out.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char *json(const char *s)
{
	static char buf[256];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	vtr_json_string(m, s);
	fclose(m);
	return buf;
}

int main(void)
{
	CHECK(strcmp(json("a\"b\\c"), "\"a\\\"b\\\\c\"") == 0);
	CHECK(strcmp(json("x\n\t\x01"), "\"x\\u000a\\u0009\\u0001\"") == 0);
	CHECK(strcmp(json("</script>"), "\"\\u003c/script>\"") == 0);
	CHECK(strcmp(json("f\xc3\xbc\xe2\x82\xac"), "\"f\xc3\xbc\xe2\x82\xac\"") == 0); /* ü € */
	CHECK(strcmp(json("a\xff"
			  "b\xc3"),
		     "\"a\\ufffdb\\ufffd\"") == 0);
	CHECK(strcmp(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"") == 0); /* a surrogate */

	char dir[] = "/tmp/vt-test-out-XXXXXX", path[300], err[256];
	if (!mkdtemp(dir))
		return 1;
	/* plain */
	snprintf(path, sizeof(path), "%s/a.json", dir);
	FILE *f = vtr_out_open(path, err, sizeof(err));
	CHECK(f != NULL);
	fputs("{\"x\": 1}\n", f);
	CHECK(vtr_out_close(f, err, sizeof(err)) == 0);
	char back[64] = {0};
	FILE *r = fopen(path, "r");
	CHECK(r && fread(back, 1, sizeof(back) - 1, r) == 9 && strcmp(back, "{\"x\": 1}\n") == 0);
	if (r)
		fclose(r);
	/* plain, larger than the blocks on their way to the writer thread (4 of 1 MiB), in
	 * writes of every size: the same bytes in the same order */
	snprintf(path, sizeof(path), "%s/big.json", dir);
	f = vtr_out_open(path, err, sizeof(err));
	CHECK(f != NULL);
	static char piece[3 << 20];
	for (size_t i = 0; i < sizeof(piece); i++)
		piece[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	size_t total = 0;
	for (size_t n = 1; f && total + n <= sizeof(piece); n = n * 3 + 1) {
		fwrite(piece + total, 1, n, f);
		total += n;
	}
	for (int rep = 0; f && rep < 3; rep++) /* then 9 MiB more, in large writes */
		fwrite(piece, 1, sizeof(piece), f);
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0);
	r = fopen(path, "r");
	static char big[3 << 20];
	CHECK(r && fread(big, 1, total, r) == total && memcmp(big, piece, total) == 0);
	for (int rep = 0; r && rep < 3; rep++)
		CHECK(fread(big, 1, sizeof(big), r) == sizeof(big) &&
		      memcmp(big, piece, sizeof(big)) == 0);
	CHECK(r && fread(big, 1, 1, r) == 0);
	if (r)
		fclose(r);
	/* a device that takes nothing (a full disk): the close says why, once */
	f = vtr_out_open("/dev/full", err, sizeof(err));
	CHECK(f != NULL);
	for (int rep = 0; f && rep < 3; rep++)
		fwrite(piece, 1, sizeof(piece), f);
	err[0] = '\0';
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == -1 &&
	      strcmp(err, "cannot write: No space left on device") == 0);
	/* gzip: a large output, read back through zlib */
	CHECK(vtr_out_have_gzip());
	snprintf(path, sizeof(path), "%s/b.json.gz", dir);
	f = vtr_out_open(path, err, sizeof(err));
	CHECK(f != NULL);
	for (int i = 0; f && i < 100000; i++)
		fprintf(f, "%d,", i);
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0);
	gzFile gz = gzopen(path, "rb");
	CHECK(gz != NULL);
	char chunk[16];
	int ok = 1;
	for (int i = 0; gz && i < 100000 && ok; i++) {
		int n = snprintf(chunk, sizeof(chunk), "%d,", i);
		char got[16];
		ok = gzread(gz, got, (unsigned)n) == n && memcmp(got, chunk, (size_t)n) == 0;
	}
	CHECK(ok && gz && gzread(gz, chunk, 1) == 0);
	if (gz)
		gzclose(gz);
	/* a directory that does not exist: NULL and a reason */
	snprintf(path, sizeof(path), "%s/no/such/dir.json", dir);
	err[0] = '\0';
	CHECK(vtr_out_open(path, err, sizeof(err)) == NULL && strstr(err, "cannot write") == err);
	snprintf(path, sizeof(path), "%s/no/such/dir.json.gz", dir);
	CHECK(vtr_out_open(path, err, sizeof(err)) == NULL);

	char rm[320];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_done();
}
