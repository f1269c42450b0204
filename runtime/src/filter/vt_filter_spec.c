/* SPDX-License-Identifier: BSD-3-Clause */
/* The one parser of vt's filter files (see vt_filter_spec.h). */
#include "vt_filter_spec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int refuse(struct vt_filter_error *err, int line, const char *text, const char *why)
{
	err->line = line;
	err->sys_errno = 0;
	snprintf(err->text, sizeof(err->text), "%s", text);
	snprintf(err->why, sizeof(err->why), "%s", why);
	return -1;
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
	FILE *in = fopen(path, "r");
	char *line = NULL, *orig = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	*spec = (struct vt_filter_spec){0};
	if (!in) {
		*err = (struct vt_filter_error){.sys_errno = errno};
		return -1;
	}
	while (rc == 0 && getline(&line, &cap, in) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
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
