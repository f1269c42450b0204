/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The filter files, through both users of the one parser (filter/vt_filter_spec.c): the
 * runtime's filter (VT_FILTER_SPEC, names only) and the compiler plugins' (names and source
 * files). One table of files and questions; both must give the same answer wherever the
 * question has no file, and the plugins' answers with files are checked exactly.
 */
#include "base/vt_log.h"
#include "filter/vt_filter.h"
#include "filter/vt_filter_spec.h"
#include "unit.h"
#include "vt_pass_filter.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *write_file(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/vt-test-filter.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

struct question {
	const char *name, *file; /* file NULL: the runtime is asked too */
	long limit;
	int line; /* of the rule that answers, 0: none */
};

static const char good[] = "# compile-time and run-time filter\n"
			   "\n"
			   "keep_me -- -1\n"
			   "hot -- 0   # trailing comment\n"
			   "lib_*; helper_? -- 0\n"
			   "limited -- 5\n"
			   "file:gen_*.c -- 0\n"
			   "file:*/third_party/* ; ns::* -- 0\n"
			   "file:/abs/only.c -- 0\n"
			   "operator new(unsigned long) -- 0\n"
			   "\t spaced  ;  out \t--\t 3 \r\n"
			   "* -- 7\n";

static const struct question questions[] = {
    {"hot", NULL, 0, 4},
    {"hotter", NULL, 7, 12},
    {"lib_x", NULL, 0, 5},
    {"helper_y", NULL, 0, 5},
    {"helper_yz", NULL, 7, 12},
    {"limited", NULL, 5, 6},
    {"ns::Widget::poke(int)", NULL, 0, 8},
    {"operator new(unsigned long)", NULL, 0, 10},
    {"spaced", NULL, 3, 11},
    {"out", NULL, 3, 11},
    {"keep_me", NULL, -1, 3},
    /* "file:" rules never match without a file: the runtime reads them as no name. */
    {"gen_parser.c", NULL, 7, 12},
    /* With files (the plugins only): base name without '/', whole path with one. */
    {"f", "/src/gen_parser.c", 0, 7},
    {"f", "/src/gen_parser.cc", 7, 12},
    {"f", "/gen_x/parser.c", 7, 12},
    {"f", "/w/third_party/z/q.c", 0, 8},
    {"f", "/abs/only.c", 0, 9},
    {"f", "/x/abs/only.c", 7, 12},
    /* First match wins: an earlier -1 keeps what a later 0 would remove. */
    {"keep_me", "/src/gen_parser.c", -1, 3},
};

/* Bad files: the line refused and what the message says, the same for both users. */
static const struct {
	const char *text;
	int line;
	const char *why;
} bad[] = {
    {"foo -- lots\n", 1, "expected 'pattern[;pattern...] -- LIMIT'"},
    {"# ok\nfoo\n", 2, "expected 'pattern[;pattern...] -- LIMIT'"},
    {"-- 0\n", 1, "expected 'pattern[;pattern...] -- LIMIT'"},
    {"a -- 1\nfoo -- -2\n", 2, "expected 'pattern[;pattern...] -- LIMIT'"},
    {"foo -- 1 2\n", 1, "expected 'pattern[;pattern...] -- LIMIT'"},
    {"x -- 0\n\nfile: -- 0\n", 3, "'file:' needs a file pattern"},
};

int main(void)
{
	vt_log_level = -1; /* the malformed files below print errors otherwise */
	char err[512];
	char *p = write_file(good);

	struct vt_pass_filter *f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f != NULL && vt_filter_load(p) == 0);
	CHECK(vt_filter_active());
	CHECK(vt_pass_filter_size(f) == 13);
	for (size_t i = 0; i < sizeof(questions) / sizeof(questions[0]); i++) {
		const struct question *q = &questions[i];
		int line = -1;
		long got = vt_pass_filter_limit(f, q->name, q->file, &line);
		if (got != q->limit || line != q->line)
			fprintf(stderr, "plugins: %s in %s: %ld (line %d), want %ld (line %d)\n",
				q->name, q->file ? q->file : "-", got, line, q->limit, q->line);
		CHECK(got == q->limit && line == q->line);
		if (!q->file) {
			long rt = vt_filter_limit(q->name);
			if (rt != got)
				fprintf(stderr, "runtime: %s: %ld, plugins %ld\n", q->name, rt,
					got);
			CHECK(rt == got);
		}
	}
	vt_pass_filter_free(f);
	vt_filter_free();
	CHECK(!vt_filter_active() && vt_filter_limit("hot") == -1);
	unlink(p);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_file(bad[i].text);
		err[0] = '\0';
		f = vt_pass_filter_load(p, err, sizeof(err));
		CHECK(f == NULL && vt_filter_load(p) < 0 && !vt_filter_active());
		/* The plugins' one line names file, line, text and why. */
		char where[128];
		snprintf(where, sizeof(where), "%s:%d: '", p, bad[i].line);
		CHECK(strstr(err, where) == err && strstr(err, bad[i].why) != NULL);
		CHECK(strchr(err, '\n') == NULL);
		/* The parser both share says the same. */
		struct vt_filter_spec spec;
		struct vt_filter_error e;
		CHECK(vt_filter_spec_load(&spec, p, &e) < 0 && e.line == bad[i].line &&
		      strstr(e.why, bad[i].why) == e.why && spec.n == 0);
		unlink(p);
	}
	f = vt_pass_filter_load("/nonexistent/vt.filter", err, sizeof(err));
	CHECK(f == NULL && strstr(err, "/nonexistent/vt.filter: cannot read") == err);
	CHECK(vt_filter_load("/nonexistent/vt.filter") < 0);

	/* Not a filter file: a directory, a device, a FIFO, a file over 1 MiB; one reason each,
	 * for both, and nothing read (/dev/zero would never end). */
	static const struct {
		const char *path, *why;
	} not_files[] = {{"/tmp", "not a directory"},
			 {"/dev/zero", "not a device, FIFO"},
			 {"/dev/null", "not a device, FIFO"}};
	for (size_t i = 0; i < sizeof(not_files) / sizeof(not_files[0]); i++) {
		f = vt_pass_filter_load(not_files[i].path, err, sizeof(err));
		CHECK(f == NULL && strstr(err, not_files[i].why) != NULL);
		CHECK(vt_filter_load(not_files[i].path) < 0 && !vt_filter_active());
	}
	char fifo[] = "/tmp/vt-test-filter-fifo.XXXXXX";
	int fd = mkstemp(fifo);
	close(fd);
	unlink(fifo);
	CHECK(mkfifo(fifo, 0600) == 0);
	f = vt_pass_filter_load(fifo, err, sizeof(err));
	CHECK(f == NULL && strstr(err, "not a device, FIFO") != NULL);
	unlink(fifo);
	char *big = malloc((1 << 20) + 2);
	memset(big, '#', (1 << 20) + 1);
	big[(1 << 20) + 1] = '\0';
	p = write_file(big);
	free(big);
	f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f == NULL && strstr(err, "at most 1 MiB") != NULL);
	unlink(p);

	/* A UTF-8 byte order mark before the first rule is not part of it. */
	p = write_file("\xEF\xBB\xBFhot -- 0\n");
	f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f && vt_pass_filter_size(f) == 1 && vt_pass_filter_limit(f, "hot", NULL, NULL) == 0);
	vt_pass_filter_free(f);
	unlink(p);

	/* A binary file's bytes are named, not echoed: only printable ASCII in the message. */
	p = write_file("\x7f"
		       "ELF\x02\x01\x1b[31m\n");
	f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f == NULL && strstr(err, "'\\x7fELF\\x02\\x01\\x1b[31m'") != NULL);
	for (const char *c = err; *c; c++)
		CHECK(*c >= 0x20 && *c < 0x7f);
	unlink(p);

	/* An empty file filters nothing, for both. */
	p = write_file("# nothing\n\n");
	f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f && vt_pass_filter_size(f) == 0 && vt_pass_filter_limit(f, "x", "/a.c", NULL) == -1);
	CHECK(vt_filter_load(p) == 0 && !vt_filter_active() && vt_filter_limit("x") == -1);
	vt_pass_filter_free(f);
	unlink(p);
	return unit_done();
}
