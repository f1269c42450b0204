/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the compile-time filter parser: the runtime's syntax plus "file:" patterns. */
#include "unit.h"
#include "vt_pass_filter.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *write_file(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/vt-test-pass-filter.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

int main(void)
{
	char err[512];
	char *p = write_file("# compile-time filter\n"
			     "\n"
			     "keep_me -- -1\n"
			     "hot -- 0   # trailing comment\n"
			     "lib_*; helper_? -- 0\n"
			     "limited -- 5\n"
			     "file:gen_*.c -- 0\n"
			     "file:*/third_party/* ; ns::* -- 0\n"
			     "file:/abs/only.c -- 0\n"
			     "* -- -1\n");
	struct vt_pass_filter *f = vt_pass_filter_load(p, err, sizeof(err));
	int line = -1;

	CHECK(f != NULL);
	CHECK(vt_pass_filter_size(f) == 10);
	/* Names, as the runtime matches them. */
	CHECK(vt_pass_filter_limit(f, "hot", "/src/a.c", &line) == 0 && line == 4);
	CHECK(vt_pass_filter_limit(f, "hotter", "/src/a.c", &line) == -1 && line == 10);
	CHECK(vt_pass_filter_limit(f, "lib_x", NULL, NULL) == 0);
	CHECK(vt_pass_filter_limit(f, "helper_y", NULL, NULL) == 0);
	CHECK(vt_pass_filter_limit(f, "helper_yz", NULL, NULL) == -1);
	CHECK(vt_pass_filter_limit(f, "limited", NULL, NULL) == 5);
	CHECK(vt_pass_filter_limit(f, "ns::Widget::poke(int)", "/src/w.cc", NULL) == 0);
	/* File patterns: a base name without '/', the whole path with one. */
	CHECK(vt_pass_filter_limit(f, "f", "/src/gen_parser.c", &line) == 0 && line == 7);
	CHECK(vt_pass_filter_limit(f, "f", "/src/gen_parser.cc", NULL) == -1);
	CHECK(vt_pass_filter_limit(f, "f", "/gen_x/parser.c", NULL) == -1);
	CHECK(vt_pass_filter_limit(f, "f", "/w/third_party/z/q.c", &line) == 0 && line == 8);
	CHECK(vt_pass_filter_limit(f, "f", "/abs/only.c", NULL) == 0);
	CHECK(vt_pass_filter_limit(f, "f", "/x/abs/only.c", NULL) == -1);
	/* Unknown file: file patterns do not match. */
	CHECK(vt_pass_filter_limit(f, "f", NULL, NULL) == -1);
	/* First match wins: an earlier -1 keeps what a later 0 would remove. */
	CHECK(vt_pass_filter_limit(f, "keep_me", "/src/gen_parser.c", &line) == -1 && line == 3);
	vt_pass_filter_free(f);
	unlink(p);

	/* Malformed files: one line naming file, line and text; no filter. */
	const char *bad[] = { "hot\n", "hot -- x\n", "hot -- -2\n", " -- 0\n", "file: -- 0\n",
			      "a -- 1 2\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_file(bad[i]);
		err[0] = '\0';
		f = vt_pass_filter_load(p, err, sizeof(err));
		CHECK(f == NULL);
		CHECK(strstr(err, p) != NULL && strstr(err, ":1: '") != NULL);
		CHECK(strchr(err, '\n') == NULL);
		unlink(p);
	}
	f = vt_pass_filter_load("/nonexistent/vt.filter", err, sizeof(err));
	CHECK(f == NULL && strstr(err, "/nonexistent/vt.filter: cannot read") == err);
	/* An empty file filters nothing. */
	p = write_file("# nothing\n");
	f = vt_pass_filter_load(p, err, sizeof(err));
	CHECK(f && vt_pass_filter_size(f) == 0 && vt_pass_filter_limit(f, "x", "/a.c", NULL) == -1);
	vt_pass_filter_free(f);
	unlink(p);
	return unit_done();
}
