/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the configuration table and its parsers. */
#include "base/vt_config.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static void clear_env(void)
{
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	for (size_t i = 0; i < n; i++)
		unsetenv(t[i].name);
	setenv("VT_VERBOSE", "0", 1); /* the bad values below print errors otherwise */
}

int main(void)
{
	uint64_t v;
	CHECK(vt_config_parse_size("64M", &v) == 0 && v == 64u << 20);
	CHECK(vt_config_parse_size("4k", &v) == 0 && v == 4096);
	CHECK(vt_config_parse_size("1G", &v) == 0 && v == 1u << 30);
	CHECK(vt_config_parse_size("123", &v) == 0 && v == 123);
	CHECK(vt_config_parse_size("2MB", &v) == 0 && v == 2u << 20);
	CHECK(vt_config_parse_size("12x", &v) < 0);
	CHECK(vt_config_parse_size("", &v) < 0);
	CHECK(vt_config_parse_size("-1k", &v) < 0);
	CHECK(vt_config_parse_size("99999999999999999999", &v) < 0);
	CHECK(vt_config_parse_size("17179869184G", &v) < 0);

	clear_env();
	CHECK(vt_config_load() == 0);
	CHECK(vt_cfg.on && vt_cfg.buffer_size == 8u << 20 && vt_cfg.max_flushes == 0);
	CHECK(strcmp(vt_cfg.gdir, ".") == 0 && vt_cfg.prefix == NULL);
	CHECK(vt_cfg.timer == VT_TIMER_AUTO && vt_cfg.max_stack_depth == 0);

	setenv("VT_ON", "off", 1);
	setenv("VT_BUFFER_SIZE", "1M", 1);
	setenv("VT_TIMER", "Monotonic", 1);
	setenv("VT_MAX_FLUSHES", "3", 1);
	CHECK(vt_config_load() == 0);
	CHECK(!vt_cfg.on && vt_cfg.buffer_size == 1u << 20);
	CHECK(vt_cfg.timer == VT_TIMER_MONOTONIC && vt_cfg.max_flushes == 3);

	/* Each bad value fails the load and leaves the default in force. */
	const char *bad[][2] = {
	    {"VT_ON", "maybe"},	      {"VT_BUFFER_SIZE", "0"},	     {"VT_BUFFER_SIZE", "512"},
	    {"VT_MAX_FLUSHES", "-3"}, {"VT_MAX_STACK_DEPTH", "abc"}, {"VT_TIMER", "sundial"},
	    {"VT_VERBOSE", "9"},      {"VT_FILE_PREFIX", "a/b"},     {"VT_PFORM_GDIR", ""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clear_env();
		setenv(bad[i][0], bad[i][1], 1);
		CHECK(vt_config_load() < 0);
		CHECK(vt_cfg.buffer_size == 8u << 20 && vt_cfg.timer == VT_TIMER_AUTO);
	}

	clear_env();
	setenv("VT_BUFFER_SIZE", "3072", 1);
	CHECK(vt_config_load() == 0);
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	char buf[64] = "";
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, "VT_BUFFER_SIZE") == 0)
			vt_config_format(&t[i], buf, sizeof(buf));
	CHECK(strcmp(buf, "3k") == 0);
	return unit_done();
}
