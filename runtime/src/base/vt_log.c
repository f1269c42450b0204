/* SPDX-License-Identifier: BSD-3-Clause */
/* Signal-safe, line-atomic logging to stderr. */
#include "base/vt_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int vt_log_level = VT_LOG_NOTICE;

void vt_log_write(int level, const char *fmt, ...)
{
	int saved = errno;
	char line[1024];
	int n = snprintf(line, sizeof(line), "vt[%ld]: ", (long)getpid());
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
	for (const char *p = line; n > 0;) {
		ssize_t w = write(STDERR_FILENO, p, (size_t)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (int)w;
	}
	errno = saved;
}
