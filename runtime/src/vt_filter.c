/* SPDX-License-Identifier: BSD-3-Clause */
/* Parser and matcher of filter files. */
#include "vt_filter.h"
#include "vt_config.h"
#include "vt_lifecycle.h"
#include "vt_log.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rule {
	char *pattern;
	long limit;
};

static struct rule *rules;
static size_t n_rules;

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int add_rule(const char *pattern, long limit)
{
	struct rule *r = realloc(rules, (n_rules + 1) * sizeof(*r));
	if (!r)
		return -1;
	rules = r;
	rules[n_rules].pattern = strdup(pattern);
	rules[n_rules].limit = limit;
	n_rules++;
	return 0;
}

static int parse_line(char *line, const char *orig, const char *path, int lineno)
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
		if (end == l || errno)
			end = NULL;
		else if (*trim(end) != '\0')
			end = NULL;
		*sep = '\0';
	}
	char *patterns = trim(s);
	if (!sep || !end || limit < -1 || !*patterns) {
		vt_error("%s:%d (VT_FILTER_SPEC): '%s': expected 'pattern[;pattern...] -- LIMIT' "
			 "with LIMIT -1 (all), 0 (none) or the number of calls to record; "
			 "tracing is off",
			 path, lineno, orig);
		return -1;
	}
	for (char *save = NULL, *p = strtok_r(patterns, ";", &save); p;
	     p = strtok_r(NULL, ";", &save)) {
		p = trim(p);
		if (*p && add_rule(p, limit) < 0)
			return -1;
	}
	return 0;
}

int vt_filter_load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		vt_error("VT_FILTER_SPEC='%s': cannot read the filter file (%s); tracing is off",
			 path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		char *orig = strdup(line);
		rc = orig ? parse_line(line, orig, path, lineno) : -1;
		free(orig);
	}
	free(line);
	fclose(f);
	if (rc == 0)
		vt_info("filter %s: %zu patterns", path, n_rules);
	else
		vt_filter_free();
	return rc;
}

bool vt_filter_active(void)
{
	return n_rules > 0;
}

long vt_filter_limit(const char *name)
{
	for (size_t i = 0; i < n_rules; i++)
		if (fnmatch(rules[i].pattern, name, 0) == 0)
			return rules[i].limit;
	return -1;
}

void vt_filter_free(void)
{
	for (size_t i = 0; i < n_rules; i++)
		free(rules[i].pattern);
	free(rules);
	rules = NULL;
	n_rules = 0;
}

static int filter_init(void)
{
	return vt_cfg.filter_spec ? vt_filter_load(vt_cfg.filter_spec) : 0;
}

const struct vt_subsystem vt_filter_subsystem = {
	.name = "filter",
	.init = filter_init,
	.release = vt_filter_free,
};
