/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-ctl's parsing of its command line and of registration files, kept apart for the unit test. */
#include "vtctl_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    [VTCTL_LIST] = "list", [VTCTL_STATUS] = "status",	  [VTCTL_OFF] = "off",
    [VTCTL_ON] = "on",	   [VTCTL_SNAPSHOT] = "snapshot",
};

const char *vtctl_cmd_word(enum vtctl_cmd cmd)
{
	return words[cmd];
}

/* A positive decimal integer that fits an int, nothing else: 0 or -1. */
static int parse_pid(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > 0x3fffffff || s[0] == '+' || s[0] == ' ')
		return -1;
	*out = (int)v;
	return 0;
}

static void copy(char *dst, size_t len, const char *src, size_t n)
{
	n = n < len - 1 ? n : len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

int vtctl_parse_reg(const char *text, struct vtctl_reg *out)
{
	memset(out, 0, sizeof(*out));
	strcpy(out->rank, "-");
	strcpy(out->jobid, "-");
	bool have_pid = false, have_start = false, have_sig = false;
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *eq = memchr(line, '=', n);
		if (n && !eq)
			return -1;
		if (n) {
			size_t k = (size_t)(eq - line);
			const char *v = eq + 1;
			size_t vn = n - k - 1;
			char val[512];
			copy(val, sizeof(val), v, vn);
			char *end;
			if (k == 3 && !strncmp(line, "pid", 3)) {
				if (parse_pid(val, &out->pid) != 0)
					return -1;
				have_pid = true;
			} else if (k == 5 && !strncmp(line, "start", 5)) {
				errno = 0;
				out->start = strtoull(val, &end, 10);
				if (!*val || *end || errno)
					return -1;
				have_start = true;
			} else if (k == 6 && !strncmp(line, "signal", 6)) {
				if (parse_pid(val, &out->signal) != 0 || out->signal > 64)
					return -1;
				have_sig = true;
			} else if (k == 3 && !strncmp(line, "job", 3)) {
				long j = strtol(val, &end, 10);
				if (!*val || *end || j < 0 || j > 0x3fffffff)
					return -1;
				out->job = (int)j;
			} else if (k == 4 && !strncmp(line, "rank", 4)) {
				copy(out->rank, sizeof(out->rank), v, vn);
			} else if (k == 5 && !strncmp(line, "jobid", 5)) {
				copy(out->jobid, sizeof(out->jobid), v, vn);
			} else if (k == 7 && !strncmp(line, "program", 7)) {
				copy(out->program, sizeof(out->program), v, vn);
			} else if (k == 7 && !strncmp(line, "archive", 7)) {
				copy(out->archive, sizeof(out->archive), v, vn);
			}
		}
		line += n + (nl ? 1 : 0);
	}
	return have_pid && have_start && have_sig ? 0 : -1;
}

bool vtctl_in_job(const struct vtctl_reg *r, const char *job)
{
	int pid;
	if (parse_pid(job, &pid) == 0 && r->job == pid)
		return true;
	return strcmp(r->jobid, "-") != 0 && strcmp(r->jobid, job) == 0;
}

int vtctl_parse_args(int argc, char **argv, struct vtctl_args *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	out->timeout = 30;
	int i = 0;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--help")) {
			out->help = true;
			return 0;
		}
		if (!strcmp(argv[i], "--timeout")) {
			char *end;
			if (i + 1 >= argc) {
				snprintf(err, len, "--timeout needs a number of seconds");
				return -1;
			}
			errno = 0;
			out->timeout = strtod(argv[++i], &end);
			if (!*argv[i] || *end || errno || !(out->timeout > 0) ||
			    out->timeout > 86400) {
				snprintf(
				    err, len,
				    "--timeout '%s': expected seconds, more than 0 and at most "
				    "86400",
				    argv[i]);
				return -1;
			}
			continue;
		}
		snprintf(err, len, "unknown option '%s'; expected --help or --timeout SECONDS",
			 argv[i]);
		return -1;
	}
	if (i >= argc) {
		snprintf(err, len, "no command; expected list, status, off, on or snapshot");
		return -1;
	}
	const char *word = argv[i++];
	int c = -1;
	for (int k = 0; k < (int)(sizeof(words) / sizeof(words[0])); k++)
		if (!strcmp(word, words[k]))
			c = k;
	if (c < 0) {
		snprintf(err, len,
			 "unknown command '%s'; expected list, status, off, on or snapshot", word);
		return -1;
	}
	out->cmd = (enum vtctl_cmd)c;
	if (out->cmd == VTCTL_LIST) {
		if (i < argc) {
			snprintf(err, len, "list takes no argument, got '%s'", argv[i]);
			return -1;
		}
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--job")) {
		if (i + 1 >= argc || !argv[i + 1][0]) {
			snprintf(err, len, "--job needs a job id or the pid of mpirun");
			return -1;
		}
		out->job = argv[i + 1];
		i += 2;
	} else if (i < argc) {
		if (parse_pid(argv[i], &out->pid) != 0) {
			snprintf(err, len, "%s: '%s' is not a process id (a positive integer)",
				 word, argv[i]);
			return -1;
		}
		i++;
	} else {
		snprintf(err, len, "%s needs a process id or --job JOBID", word);
		return -1;
	}
	if (i < argc) {
		snprintf(err, len, "unexpected argument '%s' after the target", argv[i]);
		return -1;
	}
	return 0;
}
