/* SPDX-License-Identifier: BSD-3-Clause */
/* The tools' output files: a stdio cookie (writer thread, gzip where asked) under fprintf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "vtr_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	bool discard;	     /* vtr_out_abort: the file is not published */
	bool force;	     /* published over an existing path (--force) */
	char *tmp, *path;    /* written as tmp, published as path at the close; NULL: in place */
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
	free(a->tmp);
	free(a->path);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
}

/*
 * A file is written under a temporary name next to its path and published at the close:
 * never through a symbolic link planted at the path (rename and link replace or refuse the
 * name, they do not follow it), never over an existing file unless the user asked (force),
 * and never half-written. Without force the name is taken only if still free (RENAME_NOREPLACE,
 * or link on a file system without it). An errno value or 0.
 */
static int publish(const char *tmp, const char *path, bool force)
{
	if (force)
		return rename(tmp, path) == 0 ? 0 : errno;
	int e = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0 ? 0 : errno;
	if (e == EINVAL || e == ENOSYS || e == ENOTSUP) {
		e = link(tmp, path) == 0 ? 0 : errno;
		unlink(tmp);
	} else if (e) {
		unlink(tmp);
	}
	return e;
}

/* The open files by their FILE (vtr_out_abort finds its cookie): a tool has one or two. */
static struct {
	pthread_mutex_t lock;
	FILE *file[8];
	struct async *cookie[8];
} open_files = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Interrupted (Ctrl-C, a kill): the temporary files go, then the signal does what it would. */
static void interrupted(int sig)
{
	for (int i = 0; i < 8; i++) {
		struct async *a = open_files.cookie[i];
		if (a && a->tmp)
			unlink(a->tmp);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remember(FILE *f, struct async *a)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	for (size_t i = 0; a->tmp && i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(sigs[i], interrupted);
	}
	pthread_mutex_lock(&open_files.lock);
	for (int i = 0; i < 8; i++)
		if (!open_files.file[i]) {
			open_files.file[i] = f;
			open_files.cookie[i] = a;
			break;
		}
	pthread_mutex_unlock(&open_files.lock);
}

static void forget(struct async *a)
{
	pthread_mutex_lock(&open_files.lock);
	for (int i = 0; i < 8; i++)
		if (open_files.cookie[i] == a)
			open_files.file[i] = NULL, open_files.cookie[i] = NULL;
	pthread_mutex_unlock(&open_files.lock);
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
	if (a->tmp && (e || a->discard))
		unlink(a->tmp);
	else if (a->tmp)
		e = publish(a->tmp, a->path, a->force);
	forget(a);
	async_free(a);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* The FILE of an open file descriptor or gzip stream (exactly one of them), or NULL. */
static FILE *async_open(int fd, void *gz, struct async **cookie)
{
	struct async *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	*cookie = a;
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

/*
 * Where path's bytes go: *fd an existing device, FIFO or socket to write in place (/dev/null,
 * a pipe), or -1 and *tmp a new file next to path to publish at the close. 0, or -1 with err.
 */
static int destination(const char *path, bool force, int *fd, char **tmp, char *err, size_t errlen)
{
	*fd = -1;
	*tmp = NULL;
	/* No O_CREAT and no O_TRUNC: opening an existing file changes nothing in it. */
	int d = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	bool exists = d >= 0;
	if (d >= 0 && fstat(d, &st) == 0 && !S_ISREG(st.st_mode)) {
		*fd = d;
		return 0;
	}
	int open_errno = errno;
	if (d >= 0)
		close(d);
	else if (lstat(path, &st) == 0)
		exists = true; /* a dangling link, a file not writable, a directory */
	else if (open_errno != ENOENT) {
		snprintf(err, errlen, "cannot write: %s", strerror(open_errno));
		return -1;
	}
	if (exists && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write: %s", strerror(EISDIR));
		return -1;
	}
	if (exists && !force) {
		snprintf(err, errlen, "%s; not replaced (--force replaces it)",
			 lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? "exists as a symbolic link"
								      : "exists");
		return -1;
	}
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(path) + 16;
	*tmp = malloc(n);
	if (!*tmp) {
		snprintf(err, errlen, "cannot write: %s", strerror(ENOMEM));
		return -1;
	}
	snprintf(*tmp, n, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	*fd = mkostemp(*tmp, O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	/* mkostemp makes it 0600; an output is a file like any other (0666 less the umask). */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(*fd, 0666 & ~mask);
	return 0;
}

FILE *vtr_out_open(const char *path, bool force, char *err, size_t errlen)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	int fd;
	char *tmp;
	if (destination(path, force, &fd, &tmp, err, errlen) < 0)
		return NULL;
	void *gz = NULL;
	if (ends_with(path, ".gz")) {
#ifdef VTR_HAVE_ZLIB
		/* Level 1: JSON compresses well even so, and the writer keeps pace. */
		gz = gzdopen(fd, "wb1");
		if (!gz) {
			snprintf(err, errlen, "cannot write: %s",
				 errno ? strerror(errno) : "zlib failed");
			goto fail;
		}
		gzbuffer(gz, 1 << 17);
		fd = -1; /* zlib's now */
#else
		snprintf(err, errlen, "cannot write gzip: this vt was built without zlib");
		goto fail;
#endif
	}
	struct async *a = NULL;
	FILE *f = async_open(fd, gz, &a);
	if (!f) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno ? errno : ENOMEM));
#ifdef VTR_HAVE_ZLIB
		if (gz)
			gzclose(gz);
#endif
		goto fail;
	}
	a->tmp = tmp;
	a->force = force;
	a->path = tmp ? strdup(path) : NULL;
	if (tmp && !a->path) {
		a->discard = true;
		fclose(f);
		snprintf(err, errlen, "cannot write: %s", strerror(ENOMEM));
		return NULL;
	}
	remember(f, a);
	return f;
fail:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	return NULL;
}

void vtr_out_abort(FILE *f)
{
	if (!f || f == stdout)
		return;
	pthread_mutex_lock(&open_files.lock);
	for (int i = 0; i < 8; i++)
		if (open_files.file[i] == f)
			open_files.cookie[i]->discard = true;
	pthread_mutex_unlock(&open_files.lock);
	fclose(f);
}

int vtr_out_close(FILE *f, char *err, size_t errlen)
{
	int bad = fflush(f) != 0 || ferror(f);
	int saved = errno;
	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad && saved == EEXIST) /* made while the tool ran (publish) */
		snprintf(err, errlen, "exists; not replaced (--force replaces it)");
	else if (bad)
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
