/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace tools' common command line: one-line usage errors, exit status 2. */
/*
 * The command line of vt's trace tools, alike in each: a usage error is one line
 * "TOOL: what (see TOOL --help)" and exit status 2.
 */
#ifndef VTR_CLI_H
#define VTR_CLI_H

#include <stdbool.h>

/* The tool's name for the messages; main sets it first. */
extern const char *vtr_cli_tool;

/* Says what is wrong with the command line and exits with status 2. */
__attribute__((format(printf, 1, 2), noreturn)) void vtr_usage_error(const char *fmt, ...);

/* getopt_long's answer c ('?' or ':') for the option at argv[optind - 1]: its usage error. */
__attribute__((noreturn)) void vtr_cli_bad_option(int c, char **argv);

/* The one trace the arguments left after the options name, else a usage error. */
const char *vtr_cli_trace(int argc, char **argv);

/*
 * Progress: every reading (vtr_read_locations, vtr_read_merged) shows on stderr, when stderr
 * is a terminal and the tool has been reading for more than a second (from its first
 * reading's beginning; VT_PROGRESS_AFTER seconds, for tests), one line rewritten in place: "TOOL:
 * [pass N: ]reading P% of T events, S s left, R events/s", the share of the events the definitions
 * count (without them: the events read). The line is cleared when the reading ends and before a
 * problem callback. main calls vtr_progress_setup once, with the tool's --quiet; nothing is shown
 * without it.
 */
void vtr_progress_setup(bool quiet);
/* Clears the progress line, if one is shown: before a tool writes to stderr mid-reading. */
void vtr_progress_clear(void);

#endif
