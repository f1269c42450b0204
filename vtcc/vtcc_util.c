/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers of the vtcc driver: argument vectors, response files, quoting, path lookup. */
#include "vtcc_util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nested @files deeper than this are passed on unexpanded; it stops self-including files. */
#define VTCC_RSP_MAX_DEPTH 16

const char *vtcc_prog = "vtcc";

void vtcc_die(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: error: ", vtcc_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

void *vtcc_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		vtcc_die(1, "out of memory");
	return p;
}

char *vtcc_xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(vtcc_xmalloc(len), s, len);
}

char *vtcc_xasprintf(const char *fmt, ...)
{
	va_list ap;
	int len;
	char *s;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		vtcc_die(1, "cannot format a string");
	s = vtcc_xmalloc((size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

void vtcc_argv_push(struct vtcc_argv *a, const char *s)
{
	/* Keep room for the terminating NULL that execvp needs. */
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		const char **v;

		if (cap > SIZE_MAX / sizeof(*v))
			vtcc_die(1, "out of memory");
		v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			vtcc_die(1, "out of memory");
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void vtcc_argv_append(struct vtcc_argv *a, const struct vtcc_argv *b)
{
	for (size_t i = 0; i < b->n; i++)
		vtcc_argv_push(a, b->v[i]);
}

/* Reads a whole file into a NUL-terminated heap buffer, or returns NULL. */
static char *vtcc_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len = 0, cap = 4096;
	char *buf;

	if (!f)
		return NULL;
	buf = vtcc_xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len - 1, f);

		len += got;
		if (len + 1 < cap)
			break;
		char *nbuf = realloc(buf, cap * 2);
		if (!nbuf)
			vtcc_die(1, "out of memory");
		buf = nbuf;
		cap *= 2;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static bool vtcc_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool vtcc_rsp_expand(const char *path, struct vtcc_argv *out, int depth)
{
	char *text = vtcc_read_file(path);
	const char *p;

	if (!text)
		return false;
	p = text;
	for (;;) {
		while (vtcc_is_space(*p))
			p++;
		if (!*p)
			break;
		/* A word is never longer than the rest of the file. */
		char *word = vtcc_xmalloc(strlen(p) + 1), *w = word;
		char quote = 0;

		for (; *p; p++) {
			if (*p == '\\' && p[1]) {
				*w++ = *++p;
			} else if (quote) {
				if (*p == quote)
					quote = 0;
				else
					*w++ = *p;
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
			} else if (vtcc_is_space(*p)) {
				break;
			} else {
				*w++ = *p;
			}
		}
		*w = '\0';
		if (word[0] == '@' && depth < VTCC_RSP_MAX_DEPTH &&
		    vtcc_rsp_expand(word + 1, out, depth + 1))
			free(word);
		else
			vtcc_argv_push(out, word);
	}
	free(text);
	return true;
}

/* Characters that never need quoting in a POSIX shell word. */
static bool vtcc_shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+=/.,:@%^",
			    *s))
			return false;
	}
	return true;
}

void vtcc_print_command(FILE *f, const struct vtcc_argv *argv)
{
	for (size_t i = 0; i < argv->n; i++) {
		const char *s = argv->v[i];

		if (i)
			fputc(' ', f);
		if (vtcc_shell_safe(s)) {
			fputs(s, f);
			continue;
		}
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
	fflush(f);
}

static bool vtcc_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *vtcc_which(const char *cmd)
{
	const char *path, *dir;

	if (!*cmd)
		return NULL;
	if (strchr(cmd, '/'))
		return vtcc_is_executable(cmd) ? realpath(cmd, NULL) : NULL;
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (dir = path;; dir = strchr(dir, ':') + 1) {
		size_t dlen = strcspn(dir, ":");
		/* An empty PATH entry means the working directory. */
		char *cand = dlen ? vtcc_xasprintf("%.*s/%s", (int)dlen, dir, cmd)
				  : vtcc_xasprintf("./%s", cmd);
		char *real = vtcc_is_executable(cand) ? realpath(cand, NULL) : NULL;

		free(cand);
		if (real)
			return real;
		if (!dir[dlen])
			return NULL;
	}
}

const char *vtcc_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
