/* SPDX-License-Identifier: BSD-3-Clause */
/* VT_REPORT=yes: vt-report runs on the trace once it is written. */
/*
 * VT_REPORT=yes: once the trace is written, vt-report makes PREFIX.html next to it. The tool is
 * looked for where this libvt came from: the build tree's for a libvt of the build tree (tests,
 * uninstalled use), else the installed one in the bindir vt was configured with, else on PATH.
 * It runs without vt (VT_ON=no, no LD_PRELOAD), and the program waits for it. An existing
 * PREFIX.html (a file, or a link someone planted) is never replaced: vt-report writes under a
 * temporary name and publishes only to a free name (tools/lib/vtr_out.c); vt says why first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive/vt_otf2_priv.h"
#include "base/vt_log.h"

extern char **environ;

#ifndef VT_BUILD_ROOT
#define VT_BUILD_ROOT ""
#endif
#ifndef VT_INSTALL_BINDIR
#define VT_INSTALL_BINDIR ""
#endif

static void tool_path(char *buf, size_t len)
{
	Dl_info where;
	size_t n = strlen(VT_BUILD_ROOT);
	if (n && dladdr((void *)tool_path, &where) && where.dli_fname &&
	    strncmp(where.dli_fname, VT_BUILD_ROOT "/", n + 1) == 0) {
		snprintf(buf, len, "%s/tools/vt-report/vt-report", VT_BUILD_ROOT);
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, len, "%s/vt-report", VT_INSTALL_BINDIR);
	if (VT_INSTALL_BINDIR[0] && access(buf, X_OK) == 0)
		return;
	snprintf(buf, len, "vt-report"); /* on PATH */
}

/* The environment minus LD_PRELOAD and VT_ON, plus VT_ON=no: the tool is not traced. */
static char **child_env(void)
{
	size_t n = 0;
	while (environ && environ[n])
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], "VT_ON=", 6) != 0)
			env[k++] = environ[i];
	env[k++] = "VT_ON=no";
	env[k] = NULL;
	return env;
}

void vt_report_run(const char *anchor)
{
	char tool[4096], html[4096];
	size_t n = strlen(anchor);
	if (n > 5 && strcmp(anchor + n - 5, ".otf2") == 0)
		n -= 5;
	if (n + 6 > sizeof(html)) {
		vt_warn("VT_REPORT: the trace's name is too long for a report next to it");
		return;
	}
	memcpy(html, anchor, n);
	strcpy(html + n, ".html");
	struct stat st;
	if (lstat(html, &st) == 0) {
		vt_warn("VT_REPORT: %s exists%s; not replaced, no report", html,
			S_ISLNK(st.st_mode) ? " as a symbolic link" : "");
		return;
	}
	tool_path(tool, sizeof(tool));
	char *argv[] = {tool, (char *)anchor, "-o", html, NULL};
	char **env = child_env();
	pid_t pid;
	int rc = env ? posix_spawnp(&pid, tool, NULL, NULL, argv, env) : ENOMEM;
	free(env);
	if (rc != 0) {
		vt_warn("VT_REPORT: cannot run %s: %s", tool, strerror(rc));
		return;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			vt_warn("VT_REPORT: lost %s: %s", tool, strerror(errno));
			return;
		}
	/* Exit 1: written, and the trace has problems the tool has said. */
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		vt_notice("report written to %s", html);
	else
		vt_warn("VT_REPORT: %s failed on %s; no report", tool, anchor);
}
