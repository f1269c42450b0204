/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace tools' command-line errors (vtr_cli.h). */
#include "vtr_cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *vtr_cli_tool = "vt";

void vtr_usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", vtr_cli_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s --help)\n", vtr_cli_tool);
	exit(2);
}

void vtr_cli_bad_option(int c, char **argv)
{
	if (c == ':')
		vtr_usage_error("option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		vtr_usage_error("unknown option '-%c'", optopt);
	vtr_usage_error("unknown option '%s'", argv[optind - 1]);
}

const char *vtr_cli_trace(int argc, char **argv)
{
	if (optind == argc)
		vtr_usage_error("no trace given");
	if (optind + 1 < argc)
		vtr_usage_error("one trace at a time, got '%s' and '%s'", argv[optind],
				argv[optind + 1]);
	return argv[optind];
}
