/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' outputs (tools/lib/vtr_out.c): JSON strings (escapes, '<' for HTML, UTF-8 kept,
 * bad bytes as U+FFFD), plain and gzip files (read back with zlib), and a file that cannot
 * be written.
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
