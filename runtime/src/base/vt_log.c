/* SPDX-License-Identifier: BSD-3-Clause */
/* Signal-safe, line-atomic logging to stderr. */
#include "base/vt_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int vt_log_level = VT_LOG_NOTICE;

/*
 * The standard error vt found at its start (device and inode), once vt_log_keep_stderr ran:
 * a program that closes fd 2 and opens a file there, or puts its own file on fd 2, would
 * otherwise get vt's lines in that file. vt writes only while fd 2 is still that one;
 * else its lines go nowhere. Not a copy of the descriptor: holding one would keep a pipe
 * open that the program closed to say it is done (a daemon's parent waits for that).
 */
static struct {
	bool kept, closed;
	dev_t dev;
	ino_t ino;
	long as_pid; /* the process id lines carry; 0: the caller's */
	int fd;	     /* where lines go: fd 2, or a copy of it (vt_log_as) */
} err_out = {.fd = STDERR_FILENO};

void vt_log_as(long pid, int fd)
{
	err_out.as_pid = pid;
	err_out.fd = fd;
}

void vt_log_keep_stderr(void)
{
	struct stat st;
	err_out.closed = fstat(STDERR_FILENO, &st) != 0;
	err_out.dev = err_out.closed ? 0 : st.st_dev;
	err_out.ino = err_out.closed ? 0 : st.st_ino;
	err_out.kept = true;
}

/* Whether fd 2 is the standard error vt started with (or nothing was kept). */
static bool same_stderr(void)
{
	if (!err_out.kept)
		return true;
	struct stat st;
	return !err_out.closed && fstat(err_out.fd, &st) == 0 && st.st_dev == err_out.dev &&
	       st.st_ino == err_out.ino;
}

void vt_log_write(int level, const char *fmt, ...)
{
	int saved = errno;
	char line[1024];
	int n = snprintf(line, sizeof(line),
			 "vt[%ld]: ", err_out.as_pid ? err_out.as_pid : (long)getpid());
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	for (const char *p = line; n > 0 && same_stderr();) {
		ssize_t w = write(err_out.fd, p, (size_t)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (int)w;
	}
	errno = saved;
}
