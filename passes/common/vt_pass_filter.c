/* SPDX-License-Identifier: BSD-3-Clause */
/* Parser and matcher of compile-time filter files (runtime syntax plus "file:" patterns). */
#include "vt_pass_filter.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_PREFIX "file:"

struct rule {
	char *pattern; /* without the "file:" prefix */
	long limit;
	int line;
	bool on_file;  /* matched against the source file, not the name */
	bool has_dir;  /* on_file: the pattern holds a '/': match the whole path */
};

struct vt_pass_filter {
	struct rule *rules;
	size_t n;
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int add_rule(struct vt_pass_filter *f, const char *pattern, long limit, int line)
{
	struct rule *r = realloc(f->rules, (f->n + 1) * sizeof(*r));
	if (!r)
		return -1;
	f->rules = r;
	r = &f->rules[f->n];
	r->on_file = strncmp(pattern, FILE_PREFIX, strlen(FILE_PREFIX)) == 0;
	if (r->on_file)
		pattern += strlen(FILE_PREFIX);
	r->pattern = strdup(pattern);
	if (!r->pattern)
		return -1;
	r->has_dir = strchr(pattern, '/') != NULL;
	r->limit = limit;
	r->line = line;
	f->n++;
	return 0;
}

/* Parses one line (modified in place). Returns 0, or -1 with the message in err. */
static int parse_line(struct vt_pass_filter *f, char *line, const char *path, int lineno,
		      char *err, size_t errlen)
{
	char *orig = strdup(line);
	char *hash = strchr(line, '#');
	int rc = -1;

	if (!orig) {
		snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
		return -1;
	}
	if (hash)
		*hash = '\0';
	char *s = trim(line);
	if (!*s) {
		rc = 0;
		goto out;
	}
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
	if (!sep || !end || limit < -1 || !*patterns) {
		snprintf(err, errlen,
			 "%s:%d: '%s': expected 'pattern[;pattern...] -- LIMIT' with LIMIT -1 "
			 "(all), 0 (none) or the number of calls to record",
			 path, lineno, trim(orig));
		goto out;
	}
	for (char *save = NULL, *p = strtok_r(patterns, ";", &save); p;
	     p = strtok_r(NULL, ";", &save)) {
		p = trim(p);
		if (!*p)
			continue;
		if (!strcmp(p, FILE_PREFIX)) {
			snprintf(err, errlen, "%s:%d: '%s': '" FILE_PREFIX "' needs a file pattern",
				 path, lineno, trim(orig));
			goto out;
		}
		if (add_rule(f, p, limit, lineno) < 0) {
			snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
			goto out;
		}
	}
	rc = 0;
out:
	free(orig);
	return rc;
}

struct vt_pass_filter *vt_pass_filter_load(const char *path, char *err, size_t errlen)
{
	struct vt_pass_filter *f = calloc(1, sizeof(*f));
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f || !in) {
		snprintf(err, errlen, "%s: cannot read the filter file (%s)", path,
			 strerror(f ? errno : ENOMEM));
		free(f);
		if (in)
			fclose(in);
		return NULL;
	}
	while (rc == 0 && getline(&line, &cap, in) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		rc = parse_line(f, line, path, lineno, err, errlen);
	}
	if (rc == 0 && ferror(in)) {
		snprintf(err, errlen, "%s: cannot read the filter file (%s)", path,
			 strerror(errno));
		rc = -1;
	}
	free(line);
	fclose(in);
	if (rc != 0) {
		vt_pass_filter_free(f);
		return NULL;
	}
	return f;
}

static bool matches(const struct rule *r, const char *name, const char *file)
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

long vt_pass_filter_limit(const struct vt_pass_filter *f, const char *name, const char *file,
			  int *line)
{
	for (size_t i = 0; f && i < f->n; i++) {
		if (matches(&f->rules[i], name, file)) {
			if (line)
				*line = f->rules[i].line;
			return f->rules[i].limit;
		}
	}
	if (line)
		*line = 0;
	return -1;
}

size_t vt_pass_filter_size(const struct vt_pass_filter *f)
{
	return f ? f->n : 0;
}

void vt_pass_filter_free(struct vt_pass_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->rules[i].pattern);
	free(f->rules);
	free(f);
}
