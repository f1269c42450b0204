/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' outputs (tools/lib/vtr_out.c): JSON strings (escapes, '<' for HTML, UTF-8 kept,
 * bad bytes as U+FFFD), plain and gzip files (read back with zlib) through the writer thread,
 * a device that refuses the bytes, and a file that cannot be written; an existing file or a
 * planted symbolic link never written through nor replaced without force, with force the link
 * itself replaced and its target untouched, a name taken while the tool wrote kept, an aborted
 * output left nowhere, no temporary file left behind, /dev/null written in place.
 */
#include "unit.h"
#include "vtr_out.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The whole content of a small file, or "" when it cannot be read. */
static const char *content(const char *path)
{
	static char buf[256];
	memset(buf, 0, sizeof(buf));
	FILE *f = fopen(path, "r");
	if (f) {
		if (fread(buf, 1, sizeof(buf) - 1, f) == 0)
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static int entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

static FILE *write_text(const char *path, bool force, const char *text, char *err, size_t len)
{
	FILE *f = vtr_out_open(path, force, err, len);
	if (f)
		fputs(text, f);
	return f;
}

static void no_clobber(void)
{
	char dir[] = "/tmp/vt-test-clobber-XXXXXX", path[300], target[300], err[256];
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/out.html", dir);
	snprintf(target, sizeof(target), "%s/precious", dir);
	FILE *t = fopen(target, "w");
	fputs("precious\n", t);
	fclose(t);
	/* a link planted where the output goes: refused, target and link as they were */
	CHECK(symlink(target, path) == 0);
	err[0] = '\0';
	CHECK(vtr_out_open(path, false, err, sizeof(err)) == NULL &&
	      strcmp(err, "exists as a symbolic link; not replaced (--force replaces it)") == 0);
	struct stat st;
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(strcmp(content(target), "precious\n") == 0);
	/* with force: the link is replaced by the output, its target untouched */
	FILE *f = write_text(path, true, "report\n", err, sizeof(err));
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	mode_t mask = umask(0);
	umask(mask);
	CHECK((st.st_mode & 0777) == (0666 & ~mask));
	CHECK(strcmp(content(path), "report\n") == 0);
	CHECK(strcmp(content(target), "precious\n") == 0);
	/* an existing file: refused without force, replaced with it */
	err[0] = '\0';
	CHECK(vtr_out_open(path, false, err, sizeof(err)) == NULL &&
	      strcmp(err, "exists; not replaced (--force replaces it)") == 0);
	f = write_text(path, true, "second\n", err, sizeof(err));
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0 &&
	      strcmp(content(path), "second\n") == 0);
	/* a dangling link is a name taken too */
	snprintf(path, sizeof(path), "%s/dangling.json", dir);
	CHECK(symlink("/nonexistent/vt-test", path) == 0);
	CHECK(vtr_out_open(path, false, err, sizeof(err)) == NULL);
	CHECK(lstat("/nonexistent/vt-test", &st) != 0);
	/* the name taken while the tool wrote (a race): kept, and the close says so */
	snprintf(path, sizeof(path), "%s/late.json", dir);
	f = write_text(path, false, "mine\n", err, sizeof(err));
	CHECK(f != NULL);
	CHECK(lstat(path, &st) != 0); /* nothing at the path while it is written */
	t = fopen(path, "w");
	fputs("theirs\n", t);
	fclose(t);
	err[0] = '\0';
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == -1 &&
	      strcmp(err, "exists; not replaced (--force replaces it)") == 0);
	CHECK(strcmp(content(path), "theirs\n") == 0);
	/* aborted (the tool failed half-way): nothing published */
	snprintf(path, sizeof(path), "%s/aborted.json", dir);
	f = write_text(path, false, "half", err, sizeof(err));
	CHECK(f != NULL);
	vtr_out_abort(f);
	CHECK(lstat(path, &st) != 0);
	/* gzip through the same path: published at the close */
	snprintf(path, sizeof(path), "%s/z.json.gz", dir);
	f = write_text(path, false, "{}", err, sizeof(err));
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0 && lstat(path, &st) == 0);
	/* precious, out.html, dangling.json, late.json, z.json.gz: no temporary file left */
	CHECK(entries(dir) == 5);
	/* a device is written in place */
	f = write_text("/dev/null", false, "x", err, sizeof(err));
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == 0);
	CHECK(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	char rm[320];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
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
	FILE *f = vtr_out_open(path, false, err, sizeof(err));
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
	f = vtr_out_open(path, false, err, sizeof(err));
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
	f = vtr_out_open("/dev/full", false, err, sizeof(err));
	CHECK(f != NULL);
	for (int rep = 0; f && rep < 3; rep++)
		fwrite(piece, 1, sizeof(piece), f);
	err[0] = '\0';
	CHECK(f && vtr_out_close(f, err, sizeof(err)) == -1 &&
	      strcmp(err, "cannot write: No space left on device") == 0);
	/* gzip: a large output, read back through zlib */
	CHECK(vtr_out_have_gzip());
	snprintf(path, sizeof(path), "%s/b.json.gz", dir);
	f = vtr_out_open(path, false, err, sizeof(err));
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
	CHECK(vtr_out_open(path, false, err, sizeof(err)) == NULL &&
	      strstr(err, "cannot write") == err);
	snprintf(path, sizeof(path), "%s/no/such/dir.json.gz", dir);
	CHECK(vtr_out_open(path, false, err, sizeof(err)) == NULL);

	char rm[320];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	no_clobber();
	return unit_done();
}
