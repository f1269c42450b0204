/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging of the runtime: one line per message on stderr, prefixed "vt[PID]: ". */
#ifndef VT_LOG_H
#define VT_LOG_H

enum vt_log_level {
	VT_LOG_ERROR = 0,  /* bad input, vt switches itself or a feature off */
	VT_LOG_NOTICE = 1, /* warnings that lost or changed data; where the trace went */
	VT_LOG_INFO = 2,
	VT_LOG_DEBUG = 3,
	VT_LOG_TRACE = 5,
};

/* Written once by the config module, read everywhere; messages above it are not formatted. */
extern int vt_log_level;

/*
 * Writes one line with a single write(2) so that lines of several threads and processes
 * do not interleave; keeps errno. Safe in signal handlers as far as vsnprintf is (glibc's is
 * for the plain conversions vt uses: no %f, no locale-dependent output).
 */
void vt_log_write(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Notes which file fd 2 is (at libvt's start): from then on lines are written only while
 * fd 2 is still that file, never into one the program put there. */
void vt_log_keep_stderr(void);

/* Lines carry process id pid from now on (0: the writer's own) and go to fd, a copy of fd 2:
 * a child that works for the program (archive/vt_apart.c) speaks as the program, with its
 * own fd 2 elsewhere. */
void vt_log_as(long pid, int fd);

#define vt_log(level, ...)                                                                         \
	do {                                                                                       \
		if ((level) <= vt_log_level)                                                       \
			vt_log_write((level), __VA_ARGS__);                                        \
	} while (0)
#define vt_error(...)  vt_log(VT_LOG_ERROR, "error: " __VA_ARGS__)
#define vt_warn(...)   vt_log(VT_LOG_NOTICE, "warning: " __VA_ARGS__)
#define vt_notice(...) vt_log(VT_LOG_NOTICE, __VA_ARGS__)
#define vt_info(...)   vt_log(VT_LOG_INFO, __VA_ARGS__)
#define vt_debug(...)  vt_log(VT_LOG_DEBUG, __VA_ARGS__)

#endif
