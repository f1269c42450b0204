/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers of the vtcc driver: argument vectors, response files, quoting, path lookup. */
#ifndef VTCC_UTIL_H
#define VTCC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A growable, NULL-terminated argument vector. It stores pointers only: the strings are
 * argv entries, literals, or heap strings that live until the driver exits or execs. */
struct vtcc_argv {
	const char **v;
	size_t n;
	size_t cap;
};

/* Program name used as the prefix of every message (the basename of argv[0]). */
extern const char *vtcc_prog;

/* Prints "PROG: error: ..." on stderr as one line and exits with status. */
void vtcc_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

void *vtcc_xmalloc(size_t size);
char *vtcc_xstrdup(const char *s);
/* Returns a heap string formatted like printf. */
char *vtcc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void vtcc_argv_push(struct vtcc_argv *a, const char *s);
void vtcc_argv_append(struct vtcc_argv *a, const struct vtcc_argv *b);

/* Appends the words of response file PATH to OUT, expanding nested @files, with the
 * quoting rules of GCC's response files (whitespace separates; '', "" and \ quote).
 * Returns false if PATH cannot be read: the compiler then treats "@PATH" as a plain
 * argument, and so does the caller. */
bool vtcc_rsp_expand(const char *path, struct vtcc_argv *out, int depth);

/* Writes ARGV to F as one line a POSIX shell reads back as the same words. */
void vtcc_print_command(FILE *f, const struct vtcc_argv *argv);

/* Returns the canonical path of the program CMD would run as (PATH search when CMD has no
 * slash), or NULL if there is none. The result is heap memory. */
char *vtcc_which(const char *cmd);

/* Returns a pointer to the last path component of PATH. */
const char *vtcc_basename(const char *path);

#endif
