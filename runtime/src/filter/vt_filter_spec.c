/* SPDX-License-Identifier: BSD-3-Clause */
/* The one parser of vt's filter files (see vt_filter_spec.h). */
#include "filter/vt_filter_spec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_PREFIX "file:"
#define EXPECTED_RULE                                                                              \
	"expected 'pattern[;pattern...] -- LIMIT' with LIMIT -1 (all), 0 (none) or the "           \
	"number of calls to record"

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int add_rule(struct vt_filter_spec *spec, const char *pattern, long limit, int line)
{
	struct vt_filter_rule *r = realloc(spec->rules, (spec->n + 1) * sizeof(*r));
	if (!r)
		return -1;
	spec->rules = r;
	r = &spec->rules[spec->n];
	r->on_file = strncmp(pattern, FILE_PREFIX, strlen(FILE_PREFIX)) == 0;
	if (r->on_file)
		pattern += strlen(FILE_PREFIX);
	r->pattern = strdup(pattern);
	if (!r->pattern)
		return -1;
	r->has_dir = strchr(pattern, '/') != NULL;
	r->limit = limit;
	r->line = line;
	spec->n++;
	return 0;
}

/* A filter file larger than this is not a filter file (and reading stops there). */
#define VT_FILTER_MAX_BYTES (1 << 20)
#define UTF8_BOM	    "\xEF\xBB\xBF"

/* text into out as printable ASCII: other bytes as \xNN, so that a binary file's bytes never
 * reach the terminal as they are. */
static void escape(char *out, size_t size, const char *text)
{
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)text; *c && n + 5 < size; c++) {
		if (*c >= 0x20 && *c < 0x7f)
			out[n++] = (char)*c;
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", *c);
	}
	out[n] = '\0';
}

static int refuse(struct vt_filter_error *err, int line, const char *text, const char *why)
{
	err->line = line;
	err->sys_errno = 0;
	escape(err->text, sizeof(err->text), text);
	snprintf(err->why, sizeof(err->why), "%s", why);
	return -1;
}

/* The file as a stream, if it is a regular file of a sane size; else NULL with err (line 0;
 * why set when errno says nothing useful). O_NONBLOCK: a FIFO never blocks the open. */
static FILE *open_regular(const char *path, struct vt_filter_error *err)
{
	*err = (struct vt_filter_error){0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		err->sys_errno = errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	const char *why = NULL;
	if (S_ISDIR(st.st_mode))
		why = "expected a filter file, not a directory";
	else if (!S_ISREG(st.st_mode))
		why = "expected a regular file, not a device, FIFO or socket";
	else if (st.st_size > VT_FILTER_MAX_BYTES)
		why = "expected a filter file of at most 1 MiB";
	FILE *in = why ? NULL : fdopen(fd, "r");
	if (!in) {
		err->sys_errno = why ? 0 : errno;
		snprintf(err->why, sizeof(err->why), "%s", why ? why : "");
		close(fd);
	}
	return in;
}

/* One line, modified in place; orig is its text for messages. */
static int parse_line(struct vt_filter_spec *spec, char *line, const char *orig, int lineno,
		      struct vt_filter_error *err)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *s = trim(line);
	if (!*s)
		return 0;
	char *sep = strstr(s, "--");
	char *end = NULL;
	long limit = 0;
	if (sep) {
		char *l = trim(sep + 2);
		errno = 0;
		limit = strtol(l, &end, 10);
		if (end == l || errno || *trim(end) != '\0')
			end = NULL;
		*sep = '\0';
	}
	char *patterns = trim(s);
	if (!sep || !end || limit < -1 || !*patterns)
		return refuse(err, lineno, orig, EXPECTED_RULE);
	for (char *save = NULL, *p = strtok_r(patterns, ";", &save); p;
	     p = strtok_r(NULL, ";", &save)) {
		p = trim(p);
		if (!*p)
			continue;
		if (!strcmp(p, FILE_PREFIX))
			return refuse(err, lineno, orig, "'" FILE_PREFIX "' needs a file pattern");
		if (add_rule(spec, p, limit, lineno) < 0)
			return refuse(err, lineno, orig, "out of memory");
	}
	return 0;
}

int vt_filter_spec_load(struct vt_filter_spec *spec, const char *path, struct vt_filter_error *err)
{
	char *line = NULL, *orig = NULL;
	size_t cap = 0, total = 0;
	int lineno = 0, rc = 0;
	ssize_t got;

	*spec = (struct vt_filter_spec){0};
	FILE *in = open_regular(path, err);
	if (!in)
		return -1;
	while (rc == 0 && (got = getline(&line, &cap, in)) >= 0) {
		lineno++;
		/* The file may grow while it is read: bounded all the same. */
		total += (size_t)got;
		if (total > VT_FILTER_MAX_BYTES) {
			rc = refuse(err, lineno, "", "expected a filter file of at most 1 MiB");
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		/* Editors on some systems start a UTF-8 file with a byte order mark. */
		if (lineno == 1 && strncmp(line, UTF8_BOM, 3) == 0)
			memmove(line, line + 3, strlen(line + 3) + 1);
		free(orig);
		orig = strdup(line);
		rc = orig ? parse_line(spec, line, trim(orig), lineno, err)
			  : refuse(err, lineno, "", "out of memory");
	}
	if (rc == 0 && ferror(in)) {
		*err = (struct vt_filter_error){.sys_errno = errno ? errno : EIO};
		rc = -1;
	}
	free(orig);
	free(line);
	fclose(in);
	if (rc != 0)
		vt_filter_spec_free(spec);
	return rc;
}

static bool matches(const struct vt_filter_rule *r, const char *name, const char *file)
{
	if (!r->on_file)
		return name && fnmatch(r->pattern, name, 0) == 0;
	if (!file)
		return false;
	if (r->has_dir)
		return fnmatch(r->pattern, file, 0) == 0;
	const char *base = strrchr(file, '/');
	return fnmatch(r->pattern, base ? base + 1 : file, 0) == 0;
}

const struct vt_filter_rule *vt_filter_spec_match(const struct vt_filter_spec *spec,
						  const char *name, const char *file)
{
	for (size_t i = 0; spec && i < spec->n; i++)
		if (matches(&spec->rules[i], name, file))
			return &spec->rules[i];
	return NULL;
}

void vt_filter_spec_free(struct vt_filter_spec *spec)
{
	for (size_t i = 0; i < spec->n; i++)
		free(spec->rules[i].pattern);
	free(spec->rules);
	*spec = (struct vt_filter_spec){0};
}
