/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the test plugins (tp_vt.c for the VampirTrace interface, ../plugins_scorep/tp_scorep.c
 * for Score-P's) share: the call log and the values they produce.
 *
 * The log: every call vt makes into a plugin, and everything a plugin does on its own
 * (its threads, its samples, the callbacks it makes), is one line appended to the file
 * $TP_LOG with a single write() on an O_APPEND descriptor, so that lines of threads and
 * processes never mix and the file order is the order the calls happened in:
 *
 *     LIB CALL PID TID key=value ...
 *
 * CALL is the function vt called; lines of what the plugin does by itself have a CALL
 * that starts with '@'. The test scripts (test/lib/vtplugins.py) read it back.
 *
 * The pending values of asynchronous instances and their get_all_values log line are
 * shared as macros (TP_PENDING_*, TP_LOG_ALL_VALUES): each interface has its own pair type.
 *
 * The values: counter NAME's instance ID gives its N-th value (N = 1, 2, ...) as
 * tp_value(); the test computes the same from the log, so every value is checkable.
 */
#ifndef TP_COMMON_H
#define TP_COMMON_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef TP_NAME
#error "build with -DTP_NAME=\"library name\""
#endif

/* A growing line, written out at once. */
struct tp_line {
	char *p;
	size_t n, cap;
};

static void tp_add(struct tp_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tp_add(struct tp_line *l, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = l->cap - l->n;
		va_start(ap, fmt);
		int k = vsnprintf(l->p ? l->p + l->n : NULL, l->p ? room : 0, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if (l->p && (size_t)k < room) {
			l->n += (size_t)k;
			return;
		}
		size_t cap = l->cap ? l->cap : 256;
		while (cap < l->n + (size_t)k + 2)
			cap *= 2;
		char *q = realloc(l->p, cap);
		if (!q)
			return;
		l->p = q;
		l->cap = cap;
	}
}

/* Starts a line "LIB CALL PID TID". */
static void tp_begin(struct tp_line *l, const char *call)
{
	l->p = NULL;
	l->n = l->cap = 0;
	tp_add(l, "%s %s %d %ld", TP_NAME, call, (int)getpid(), (long)syscall(SYS_gettid));
}

/* Ends the line and appends it to $TP_LOG in one write(). */
static void tp_end(struct tp_line *l)
{
	const char *path = getenv("TP_LOG");
	tp_add(l, "\n");
	if (path && *path && l->p) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			ssize_t w = write(fd, l->p, l->n);
			(void)w;
			close(fd);
		}
	}
	free(l->p);
	l->p = NULL;
}

/* One line with a formatted tail. */
static void tp_log(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tp_log(const char *call, const char *fmt, ...)
{
	struct tp_line l;
	char tail[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tail, sizeof(tail), fmt, ap);
	va_end(ap);
	tp_begin(&l, call);
	if (tail[0])
		tp_add(&l, " %s", tail);
	tp_end(&l);
}

/* An integer from the environment, or def. */
static long tp_env(const char *name, long def)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : def;
}

/* The kinds of values, by counter name (the test knows the same table). */
enum tp_kind { TP_UINT, TP_INT, TP_DOUBLE, TP_FLOAT };

/* The N-th value of instance id of a counter of that kind, as the 64 bits vt gets:
 * UINT id*1000+N; INT -(id*1000+N); DOUBLE id+N/2; FLOAT id+N/4 (a float in the low 32
 * bits). Every value is exact in its type and differs between instances. */
static uint64_t tp_value(enum tp_kind kind, int32_t id, uint64_t n)
{
	uint64_t bits = 0;
	switch (kind) {
	case TP_UINT:
		return (uint64_t)id * 1000 + n;
	case TP_INT:
		return (uint64_t)(-((int64_t)id * 1000 + (int64_t)n));
	case TP_DOUBLE: {
		double d = (double)id + (double)n * 0.5;
		memcpy(&bits, &d, sizeof(d));
		return bits;
	}
	case TP_FLOAT: {
		float f = (float)id + (float)n * 0.25f;
		uint32_t b32;
		memcpy(&b32, &f, sizeof(f));
		return b32;
	}
	}
	return 0;
}


static const char *tp_kind_name(enum tp_kind k)
{
	static const char *const names[] = { "uint", "int", "double", "float" };
	return names[k];
}

/* The values an asynchronous instance took and not yet returned: both plugins keep them in
 * fields pending, npending and cap of their instance *in, as their own interface's pair type
 * (fields timestamp and value), guarded by in->mu. Macros, so that one text serves both. */

/* Appends pair tv to in's pending values (dropped when out of memory); in->mu held. */
#define TP_PENDING_PUSH(in, tv)                                                               \
	do {                                                                                  \
		if ((in)->npending == (in)->cap) {                                            \
			size_t tp_cap_ = (in)->cap ? 2 * (in)->cap : 16;                      \
			void *tp_p_ = realloc((in)->pending, tp_cap_ * sizeof(*(in)->pending)); \
			if (tp_p_) {                                                          \
				(in)->pending = tp_p_;                                        \
				(in)->cap = tp_cap_;                                          \
			}                                                                     \
		}                                                                             \
		if ((in)->npending < (in)->cap)                                               \
			(in)->pending[(in)->npending++] = (tv);                               \
	} while (0)

/* Moves in's pending values to out (n of them), under in->mu; in starts empty. */
#define TP_PENDING_TAKE(in, out, n)                                                           \
	do {                                                                                  \
		pthread_mutex_lock(&(in)->mu);                                                \
		(out) = (in)->pending;                                                        \
		(n) = (in)->npending;                                                         \
		(in)->pending = NULL;                                                         \
		(in)->npending = (in)->cap = 0;                                               \
		pthread_mutex_unlock(&(in)->mu);                                              \
	} while (0)

/* Logs what get_all_values returns: "get_all_values id=ID ret=N vals=TS:V,...". */
#define TP_LOG_ALL_VALUES(id, out, n)                                                         \
	do {                                                                                  \
		struct tp_line tp_l_;                                                         \
		tp_begin(&tp_l_, "get_all_values");                                           \
		tp_add(&tp_l_, " id=%d ret=%zu vals=", (id), (size_t)(n));                    \
		for (size_t tp_i_ = 0; tp_i_ < (size_t)(n); tp_i_++)                          \
			tp_add(&tp_l_, "%s%llu:%llu", tp_i_ ? "," : "",                       \
			       (unsigned long long)(out)[tp_i_].timestamp,                    \
			       (unsigned long long)(out)[tp_i_].value);                       \
		tp_end(&tp_l_);                                                               \
	} while (0)

#endif
