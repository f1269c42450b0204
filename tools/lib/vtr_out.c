/* SPDX-License-Identifier: BSD-3-Clause */
/* The tools' output files: gzip through a stdio cookie, so that writers need only fprintf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "vtr_out.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
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

#ifdef VTR_HAVE_ZLIB
static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0;
	/* gzwrite takes an unsigned: large writes in pieces. */
	while (done < size) {
		unsigned n = size - done > (1u << 30) ? 1u << 30 : (unsigned)(size - done);
		int w = gzwrite((gzFile)cookie, buf + done, n);
		if (w <= 0) {
			errno = EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int gz_close(void *cookie)
{
	if (gzclose((gzFile)cookie) != Z_OK) {
		errno = EIO;
		return -1;
	}
	return 0;
}
#endif

FILE *vtr_out_open(const char *path, char *err, size_t errlen)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	if (!ends_with(path, ".gz")) {
		FILE *f = fopen(path, "w");
		if (!f)
			snprintf(err, errlen, "cannot write: %s", strerror(errno));
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
	cookie_io_functions_t io = {.write = gz_write, .close = gz_close};
	FILE *f = fopencookie(gz, "w", io);
	if (!f) {
		gzclose(gz);
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
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
