/* SPDX-License-Identifier: BSD-3-Clause */
/* The tools' output files: a stdio cookie (writer thread, gzip where asked) under fprintf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "vtr_out.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef VTR_HAVE_ZLIB
#include <zlib.h>
#endif

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool vtr_out_have_gzip(void)
{
#ifdef VTR_HAVE_ZLIB
	return true;
#else
	return false;
#endif
}

/*
 * Files are written by a thread of their own, so that the tool makes the next part of its
 * output while the kernel (or zlib) takes the last: a 100M-event Chrome export is 5.7 GB,
 * which this VM's kernel needs about as long to absorb as vt-export needs to make it. What the
 * FILE's stdio hands over is copied into blocks; at most BLOCKS of them are on their way, then
 * the tool waits. The first failed write is kept: later writes and the close report it.
 */
#define BLOCK  (1u << 20)
#define BLOCKS 4

struct async {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char *buf[BLOCKS];
	size_t len[BLOCKS];
	unsigned head, tail; /* blocks handed over, blocks written: [tail, head) on their way */
	bool done;	     /* no more blocks will come */
	int err;	     /* errno of the first failed write, or 0 */
	int failed;	     /* err as the tool last saw it (the tool's alone) */
	int fd;		     /* plain file, or -1 */
#ifdef VTR_HAVE_ZLIB
	gzFile gz;
#endif
};

/* Writes one block to the file; an errno value or 0. */
static int put_block(struct async *a, const char *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
#ifdef VTR_HAVE_ZLIB
		if (a->gz) {
			int w = gzwrite(a->gz, buf + done, (unsigned)(len - done));
			if (w <= 0)
				return errno ? errno : EIO;
			done += (size_t)w;
			continue;
		}
#endif
		ssize_t w = write(a->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		done += (size_t)w;
	}
	return 0;
}

static void *writer(void *arg)
{
	struct async *a = arg;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (a->tail == a->head && !a->done)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->tail == a->head)
			break;
		unsigned k = a->tail % BLOCKS;
		bool failed = a->err != 0;
		pthread_mutex_unlock(&a->lock);
		/* After a failure the rest is dropped: the close says the file is incomplete. */
		int e = failed ? 0 : put_block(a, a->buf[k], a->len[k]);
		pthread_mutex_lock(&a->lock);
		if (e && !a->err)
			a->err = e;
		a->len[k] = 0;
		a->tail++;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

static ssize_t async_write(void *cookie, const char *buf, size_t size)
{
	struct async *a = cookie;
	/* A failure seen: nothing more is taken (stdio then marks the FILE). */
	if (a->failed) {
		errno = a->failed;
		return -1;
	}
	size_t done = 0;
	while (done < size) {
		unsigned k = a->head % BLOCKS; /* the block being filled: the tool's alone */
		size_t n = BLOCK - a->len[k] < size - done ? BLOCK - a->len[k] : size - done;
		memcpy(a->buf[k] + a->len[k], buf + done, n);
		a->len[k] += n;
		done += n;
		if (a->len[k] < BLOCK)
			break;
		pthread_mutex_lock(&a->lock);
		a->head++;
		pthread_cond_broadcast(&a->cond);
		while (a->head - a->tail >= BLOCKS && !a->err)
			pthread_cond_wait(&a->cond, &a->lock);
		a->failed = a->err;
		pthread_mutex_unlock(&a->lock);
		if (a->failed)
			break; /* what was taken is counted, the next write fails */
	}
	return (ssize_t)done;
}

static void async_free(struct async *a)
{
	for (int i = 0; i < BLOCKS; i++)
		free(a->buf[i]);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
}

static int async_close(void *cookie)
{
	struct async *a = cookie;
	pthread_mutex_lock(&a->lock);
	if (a->len[a->head % BLOCKS])
		a->head++;
	a->done = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	int e = a->err;
#ifdef VTR_HAVE_ZLIB
	if (a->gz && gzclose(a->gz) != Z_OK && !e)
		e = EIO;
#endif
	if (a->fd >= 0 && close(a->fd) != 0 && !e)
		e = errno;
	async_free(a);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* The FILE of an open file descriptor or gzip stream (exactly one of them), or NULL. */
static FILE *async_open(int fd, void *gz)
{
	struct async *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->fd = fd;
#ifdef VTR_HAVE_ZLIB
	a->gz = gz;
#else
	(void)gz;
#endif
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	bool ok = true;
	for (int i = 0; i < BLOCKS; i++)
		ok = ok && (a->buf[i] = malloc(BLOCK)) != NULL;
	if (!ok || pthread_create(&a->thread, NULL, writer, a) != 0) {
		async_free(a);
		return NULL;
	}
	cookie_io_functions_t io = {.write = async_write, .close = async_close};
	FILE *f = fopencookie(a, "w", io);
	if (!f) {
		pthread_mutex_lock(&a->lock);
		a->done = true;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
		async_free(a);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

FILE *vtr_out_open(const char *path, char *err, size_t errlen)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	if (!ends_with(path, ".gz")) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			snprintf(err, errlen, "cannot write: %s", strerror(errno));
			return NULL;
		}
		FILE *f = async_open(fd, NULL);
		if (!f) {
			close(fd);
			snprintf(err, errlen, "cannot write: %s", strerror(errno ? errno : ENOMEM));
		}
		return f;
	}
#ifdef VTR_HAVE_ZLIB
	/* Level 1: JSON compresses well even so, and the writer keeps pace with the reader. */
	gzFile gz = gzopen(path, "wb1");
	if (!gz) {
		snprintf(err, errlen, "cannot write: %s", errno ? strerror(errno) : "zlib failed");
		return NULL;
	}
	gzbuffer(gz, 1 << 17);
	FILE *f = async_open(-1, gz);
	if (!f) {
		gzclose(gz);
		snprintf(err, errlen, "cannot write: %s", strerror(errno ? errno : ENOMEM));
	}
	return f;
#else
	snprintf(err, errlen, "cannot write gzip: this vt was built without zlib");
	return NULL;
#endif
}

int vtr_out_close(FILE *f, char *err, size_t errlen)
{
	int bad = fflush(f) != 0 || ferror(f);
	int saved = errno;
	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad)
		snprintf(err, errlen, "cannot write: %s", strerror(saved ? saved : EIO));
	return bad ? -1 : 0;
}

/* Length of the valid UTF-8 sequence at s, or 0 if the bytes there are not one. */
static size_t utf8_length(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

void vtr_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	putc('"', out);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			putc('\\', out);
			putc(*s++, out);
		} else if (*s < 0x20 || *s == 0x7F) {
			fprintf(out, "\\u%04x", *s++);
		} else if (*s == '<') {
			/* Never "</script>" when the string lands inside an HTML page. */
			fputs("\\u003c", out);
			s++;
		} else if (*s < 0x80) {
			putc(*s++, out);
		} else {
			size_t len = utf8_length(s);
			if (len) {
				fwrite(s, 1, len, out);
				s += len;
			} else {
				fputs("\\ufffd", out);
				s++;
			}
		}
	}
	putc('"', out);
}
