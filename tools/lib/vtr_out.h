/* SPDX-License-Identifier: BSD-3-Clause */
/* Output files of the tools (plain, "-" or ".gz" through zlib) as one FILE *; JSON strings. */
#ifndef VTR_OUT_H
#define VTR_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* Opens path for writing; "-" is standard output. A path ending in ".gz" is written
 * gzip-compressed. A file is written by a thread of its own while the tool goes on, and only
 * vtr_out_close (or fclose) writes its last part: exit() alone loses it. An existing device,
 * FIFO or socket (/dev/null, a pipe) is written in place; a file is written under a temporary
 * name next to path and appears at path only when closed whole: never through a symbolic link
 * at path, and over an existing file or link only with force (the link itself is replaced).
 * NULL with a one-line reason in err (without the path). */
FILE *vtr_out_open(const char *path, bool force, char *err, size_t errlen);

/* Flushes, closes and publishes (standard output is only flushed). 0, or -1 with err (the
 * file is then not at its path). */
int vtr_out_close(FILE *f, char *err, size_t errlen);

/* Closes without publishing: what was written is removed (a tool that failed half-way). */
void vtr_out_abort(FILE *f);

/* Whether ".gz" outputs can be written by this build. */
bool vtr_out_have_gzip(void);

/* s as a JSON string: quotes, escapes, and bytes that are not UTF-8 as U+FFFD. */
void vtr_json_string(FILE *out, const char *s);

#endif
