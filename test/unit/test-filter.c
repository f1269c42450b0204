/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the filter file parser and matcher. */
#include "unit.h"
#include "vt_filter.h"
#include "vt_log.h"

#include <stdlib.h>
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

int main(void)
{
	vt_log_level = -1; /* the malformed files below print errors otherwise */
	char *p = write_file("# comment\n"
			     "\n"
			     "hot -- 0   # trailing comment\n"
			     "lib_*; helper_? -- 0\n"
			     "limited -- 5\n"
			     "operator new(unsigned long) -- 0\n"
			     "ns::* -- -1\n"
			     "* -- 7\n");
	CHECK(vt_filter_load(p) == 0);
	CHECK(vt_filter_active());
	CHECK(vt_filter_limit("hot") == 0);
	CHECK(vt_filter_limit("hotter") == 7);
	CHECK(vt_filter_limit("lib_a") == 0);
	CHECK(vt_filter_limit("helper_x") == 0);
	CHECK(vt_filter_limit("helper_xy") == 7);
	CHECK(vt_filter_limit("limited") == 5);
	CHECK(vt_filter_limit("operator new(unsigned long)") == 0);
	CHECK(vt_filter_limit("ns::Widget::poke(int)") == -1);
	vt_filter_free();
	CHECK(!vt_filter_active());
	CHECK(vt_filter_limit("hot") == -1);
	unlink(p);

	const char *bad[] = { "foo -- lots\n", "foo\n", "-- 0\n", "foo -- -2\n", "foo -- 1 2\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_file(bad[i]);
		CHECK(vt_filter_load(p) < 0);
		CHECK(!vt_filter_active());
		unlink(p);
	}
	CHECK(vt_filter_load("/nonexistent/filter") < 0);
	return unit_done();
}
