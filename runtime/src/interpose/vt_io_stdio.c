/* SPDX-License-Identifier: BSD-3-Clause */
/* ISO C stdio: fopen, fclose, fread, fwrite, fgets, fputs, printf, fseek..., reported to io/. */
/* The plain and the 64 forms are defined under their own names, and the fortified ones
 * (__printf_chk...) here, not as the headers' inline wrappers. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#include "interpose/vt_interpose.h"
#include "interpose/vt_stdio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* As in vt_io_posix.c: other libraries' constructors may write before ASan is ready. */
#define VT_NOSAN  __attribute__((no_sanitize("address"), no_instrument_function))
#define VT_EXPORT __attribute__((visibility("default"))) VT_NOSAN

struct vt_stdio_hooks vt_stdio_hooks;

const char *const vt_stdio_names[VT_STDIO_FN_MAX] = {
    [VT_STDIO_FOPEN] = "fopen",		[VT_STDIO_FOPEN64] = "fopen64",
    [VT_STDIO_FDOPEN] = "fdopen",	[VT_STDIO_FREOPEN] = "freopen",
    [VT_STDIO_FREOPEN64] = "freopen64", [VT_STDIO_FCLOSE] = "fclose",
    [VT_STDIO_FREAD] = "fread",		[VT_STDIO_FWRITE] = "fwrite",
    [VT_STDIO_FGETS] = "fgets",		[VT_STDIO_FPUTS] = "fputs",
    [VT_STDIO_PUTS] = "puts",		[VT_STDIO_FGETC] = "fgetc",
    [VT_STDIO_GETC] = "getc",		[VT_STDIO_GETCHAR] = "getchar",
    [VT_STDIO_FPUTC] = "fputc",		[VT_STDIO_PUTC] = "putc",
    [VT_STDIO_PUTCHAR] = "putchar",	[VT_STDIO_PRINTF] = "printf",
    [VT_STDIO_FPRINTF] = "fprintf",	[VT_STDIO_VPRINTF] = "vprintf",
    [VT_STDIO_VFPRINTF] = "vfprintf",	[VT_STDIO_FSEEK] = "fseek",
    [VT_STDIO_FSEEKO] = "fseeko",	[VT_STDIO_FSEEKO64] = "fseeko64",
    [VT_STDIO_FTELL] = "ftell",		[VT_STDIO_FTELLO] = "ftello",
    [VT_STDIO_FTELLO64] = "ftello64",	[VT_STDIO_REWIND] = "rewind",
    [VT_STDIO_FFLUSH] = "fflush",
};

VT_NOSAN void vt_stdio_set_hooks(const struct vt_stdio_hooks *h)
{
	struct vt_stdio_hooks copy = *h;
	copy.enter = NULL;
	copy.op_enter = NULL;
	vt_stdio_hooks = copy;
	__atomic_store_n(&vt_stdio_hooks.op_enter, h->op_enter, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_stdio_hooks.enter, h->enter, __ATOMIC_RELEASE);
}

/* The entry points of _FORTIFY_SOURCE's forms that the wrappers call: the printf family
 * all goes to __vfprintf_chk. */
enum { CHK_VFPRINTF = VT_STDIO_FN_MAX, CHK_FREAD, CHK_FGETS, REAL_MAX };
static const char *const chk_names[REAL_MAX - VT_STDIO_FN_MAX] = {"__vfprintf_chk", "__fread_chk",
								  "__fgets_chk"};

/* libc's functions, looked up when libvt is loaded or at a first call before (as in
 * vt_io_posix.c: every thread gets the same answer, a race only repeats the look-up). */
static void *real_fns[REAL_MAX];

VT_NOSAN static void *real(int fn)
{
	void *f = __atomic_load_n(&real_fns[fn], __ATOMIC_RELAXED);
	if (__builtin_expect(!f, 0)) {
		int saved = errno;
		f = vt_interpose_next(fn < VT_STDIO_FN_MAX ? vt_stdio_names[fn]
							   : chk_names[fn - VT_STDIO_FN_MAX]);
		__atomic_store_n(&real_fns[fn], f, __ATOMIC_RELAXED);
		errno = saved;
	}
	return f;
}

VT_NOSAN __attribute__((constructor(101))) static void resolve_all(void)
{
	for (int fn = 0; fn < REAL_MAX; fn++)
		(void)real(fn);
}

#define REAL(fn, T, fail)                                                                          \
	T fp_ = (T)real(fn);                                                                       \
	if (__builtin_expect(!fp_, 0)) {                                                           \
		errno = ENOSYS;                                                                    \
		return fail;                                                                       \
	}

/*
 * When nothing records (the hooks NULL: VT_IOTRACE=no, or before vt started) and libc's
 * function is known, an exported wrapper jumps straight to it: two loads and a branch, no
 * frame of vt's (a frame is the recording path's, in a function of its own, rec_NAME).
 * enter is set last, so with it set op_enter is too.
 */
#define PASS(slot, T, args)                                                                        \
	do {                                                                                       \
		T fq_ = (T)__atomic_load_n(&real_fns[slot], __ATOMIC_RELAXED);                     \
		if (__builtin_expect(                                                              \
			fq_ != NULL && !__atomic_load_n(&vt_stdio_hooks.enter, __ATOMIC_ACQUIRE),  \
			1))                                                                        \
			return fq_ args;                                                           \
	} while (0)
#define VT_REC VT_NOSAN __attribute__((noinline)) static

VT_NOSAN static inline __attribute__((always_inline)) bool recorded(struct vt_io_call *c,
								    enum vt_stdio_fn fn)
{
	bool (*enter)(struct vt_io_call *, enum vt_stdio_fn) =
	    __atomic_load_n(&vt_stdio_hooks.enter, __ATOMIC_ACQUIRE);
	return __builtin_expect(enter != NULL, 0) && enter(c, fn);
}

VT_NOSAN static inline __attribute__((always_inline)) bool op_recorded(struct vt_io_call *c,
								       enum vt_stdio_fn fn, FILE *f,
								       enum vt_io_mode mode,
								       uint64_t bytes)
{
	bool (*op_enter)(struct vt_io_call *, enum vt_stdio_fn, FILE *, enum vt_io_mode, uint64_t) =
	    __atomic_load_n(&vt_stdio_hooks.op_enter, __ATOMIC_ACQUIRE);
	return __builtin_expect(op_enter != NULL, 0) && op_enter(c, fn, f, mode, bytes);
}

/* Ends a recorded operation with its bytes (or -1) and gives the call's result back. */
VT_NOSAN static void op_done(struct vt_io_call *c, int64_t bytes)
{
	int e = errno;
	vt_stdio_hooks.op_end(c, bytes, e);
	errno = e;
}

/* A data operation whose result r is T and whose bytes done are done (an expression of
 * r_, evaluated before anything else could change the stream's state). */
#define DATA_OP(fn, f, mode, bytes, T, call, done)                                                 \
	do {                                                                                       \
		struct vt_io_call c_;                                                              \
		if (!op_recorded(&c_, fn, f, mode, bytes))                                         \
			return call;                                                               \
		T r_ = call;                                                                       \
		op_done(&c_, (done));                                                              \
		return r_;                                                                         \
	} while (0)

/* The bytes an element-wise transfer moved: a failure that moved nothing is -1. */
VT_NOSAN static int64_t elems_done(size_t got, size_t size, size_t n, FILE *f)
{
	if (got == 0 && size && n && ferror(f))
		return -1;
	return (int64_t)(got * size);
}

typedef size_t (*rw_fn)(void *, size_t, size_t, FILE *);

VT_REC size_t rec_fread(void *p, size_t size, size_t n, FILE *f)
{
	REAL(VT_STDIO_FREAD, rw_fn, 0);
	DATA_OP(VT_STDIO_FREAD, f, VT_IO_MODE_READ, (uint64_t)size * n, size_t, fp_(p, size, n, f),
		elems_done(r_, size, n, f));
}

VT_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	PASS(VT_STDIO_FREAD, rw_fn, (p, size, n, f));
	return rec_fread(p, size, n, f);
}

VT_REC size_t rec_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	REAL(VT_STDIO_FWRITE, rw_fn, 0);
	DATA_OP(VT_STDIO_FWRITE, f, VT_IO_MODE_WRITE, (uint64_t)size * n, size_t,
		fp_((void *)p, size, n, f), elems_done(r_, size, n, f));
}

VT_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	PASS(VT_STDIO_FWRITE, rw_fn, ((void *)p, size, n, f));
	return rec_fwrite(p, size, n, f);
}

/* fgets: NULL at the end of the file moved nothing; with an error it failed. */
VT_NOSAN static int64_t line_done(const char *r, FILE *f)
{
	return r ? (int64_t)strlen(r) : ferror(f) ? -1 : 0;
}

typedef char *(*gets_fn)(char *, int, FILE *);

VT_REC char *rec_fgets(char *s, int n, FILE *f)
{
	REAL(VT_STDIO_FGETS, gets_fn, NULL);
	DATA_OP(VT_STDIO_FGETS, f, VT_IO_MODE_READ, n > 0 ? (uint64_t)n - 1 : 0, char *,
		fp_(s, n, f), line_done(r_, f));
}

VT_EXPORT char *fgets(char *s, int n, FILE *f)
{
	PASS(VT_STDIO_FGETS, gets_fn, (s, n, f));
	return rec_fgets(s, n, f);
}

typedef int (*puts_fn)(const char *, FILE *);
typedef int (*puts1_fn)(const char *);

VT_REC int rec_fputs(const char *s, FILE *f)
{
	REAL(VT_STDIO_FPUTS, puts_fn, EOF);
	uint64_t len = strlen(s);
	DATA_OP(VT_STDIO_FPUTS, f, VT_IO_MODE_WRITE, len, int, fp_(s, f),
		r_ == EOF ? -1 : (int64_t)len);
}

VT_EXPORT int fputs(const char *s, FILE *f)
{
	PASS(VT_STDIO_FPUTS, puts_fn, (s, f));
	return rec_fputs(s, f);
}

VT_REC int rec_puts(const char *s)
{
	REAL(VT_STDIO_PUTS, puts1_fn, EOF);
	uint64_t len = strlen(s) + 1;
	DATA_OP(VT_STDIO_PUTS, stdout, VT_IO_MODE_WRITE, len, int, fp_(s),
		r_ == EOF ? -1 : (int64_t)len);
}

VT_EXPORT int puts(const char *s)
{
	PASS(VT_STDIO_PUTS, puts1_fn, (s));
	return rec_puts(s);
}

/* One character: EOF is the end of the input (0 bytes) or a failure. */
typedef int (*getc_fn)(FILE *);
typedef int (*getc0_fn)(void);
typedef int (*putc_fn)(int, FILE *);
typedef int (*putc1_fn)(int);

VT_NOSAN static int64_t char_done(int r, FILE *f)
{
	return r != EOF ? 1 : ferror(f) ? -1 : 0;
}

VT_NOSAN static int get_char(enum vt_stdio_fn fn, FILE *f)
{
	REAL(fn, getc_fn, EOF);
	DATA_OP(fn, f, VT_IO_MODE_READ, 1, int, fp_(f), char_done(r_, f));
}

VT_REC int rec_fgetc(FILE *f)
{
	return get_char(VT_STDIO_FGETC, f);
}

VT_EXPORT int fgetc(FILE *f)
{
	PASS(VT_STDIO_FGETC, getc_fn, (f));
	return rec_fgetc(f);
}

VT_REC int rec_getc(FILE *f)
{
	return get_char(VT_STDIO_GETC, f);
}

VT_EXPORT int getc(FILE *f)
{
	PASS(VT_STDIO_GETC, getc_fn, (f));
	return rec_getc(f);
}

VT_REC int rec_getchar(void)
{
	REAL(VT_STDIO_GETCHAR, getc0_fn, EOF);
	DATA_OP(VT_STDIO_GETCHAR, stdin, VT_IO_MODE_READ, 1, int, fp_(), char_done(r_, stdin));
}

VT_EXPORT int getchar(void)
{
	PASS(VT_STDIO_GETCHAR, getc0_fn, ());
	return rec_getchar();
}

VT_NOSAN static int put_char(enum vt_stdio_fn fn, int ch, FILE *f)
{
	REAL(fn, putc_fn, EOF);
	DATA_OP(fn, f, VT_IO_MODE_WRITE, 1, int, fp_(ch, f), r_ == EOF ? -1 : 1);
}

VT_REC int rec_fputc(int ch, FILE *f)
{
	return put_char(VT_STDIO_FPUTC, ch, f);
}

VT_EXPORT int fputc(int ch, FILE *f)
{
	PASS(VT_STDIO_FPUTC, putc_fn, (ch, f));
	return rec_fputc(ch, f);
}

VT_REC int rec_putc(int ch, FILE *f)
{
	return put_char(VT_STDIO_PUTC, ch, f);
}

VT_EXPORT int putc(int ch, FILE *f)
{
	PASS(VT_STDIO_PUTC, putc_fn, (ch, f));
	return rec_putc(ch, f);
}

VT_REC int rec_putchar(int ch)
{
	REAL(VT_STDIO_PUTCHAR, putc1_fn, EOF);
	DATA_OP(VT_STDIO_PUTCHAR, stdout, VT_IO_MODE_WRITE, 1, int, fp_(ch), r_ == EOF ? -1 : 1);
}

VT_EXPORT int putchar(int ch)
{
	PASS(VT_STDIO_PUTCHAR, putc1_fn, (ch));
	return rec_putchar(ch);
}

/* The printf family: formatted by libc's vfprintf (or its fortified form); the bytes it
 * asks for are known only once written (VT_STDIO_BYTES_UNKNOWN), those done are its
 * result. */
typedef int (*vfprintf_fn)(FILE *, const char *, va_list);
typedef int (*vfprintf_chk_fn)(FILE *, int, const char *, va_list);

VT_REC int rec_vfprintf_as(enum vt_stdio_fn fn, FILE *f, const char *fmt, va_list ap)
{
	REAL(VT_STDIO_VFPRINTF, vfprintf_fn, -1);
	DATA_OP(fn, f, VT_IO_MODE_WRITE, VT_STDIO_BYTES_UNKNOWN, int, fp_(f, fmt, ap),
		r_ < 0 ? -1 : (int64_t)r_);
}

VT_REC int rec_vfprintf_chk_as(enum vt_stdio_fn fn, FILE *f, int flag, const char *fmt, va_list ap)
{
	REAL(CHK_VFPRINTF, vfprintf_chk_fn, -1);
	DATA_OP(fn, f, VT_IO_MODE_WRITE, VT_STDIO_BYTES_UNKNOWN, int, fp_(f, flag, fmt, ap),
		r_ < 0 ? -1 : (int64_t)r_);
}

VT_NOSAN static inline __attribute__((always_inline)) int do_vfprintf(enum vt_stdio_fn fn, FILE *f,
								      const char *fmt, va_list ap)
{
	PASS(VT_STDIO_VFPRINTF, vfprintf_fn, (f, fmt, ap));
	return rec_vfprintf_as(fn, f, fmt, ap);
}

VT_NOSAN static inline __attribute__((always_inline)) int
do_vfprintf_chk(enum vt_stdio_fn fn, FILE *f, int flag, const char *fmt, va_list ap)
{
	PASS(CHK_VFPRINTF, vfprintf_chk_fn, (f, flag, fmt, ap));
	return rec_vfprintf_chk_as(fn, f, flag, fmt, ap);
}

VT_EXPORT int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = do_vfprintf(VT_STDIO_PRINTF, stdout, fmt, ap);
	va_end(ap);
	return r;
}

VT_EXPORT int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = do_vfprintf(VT_STDIO_FPRINTF, f, fmt, ap);
	va_end(ap);
	return r;
}

VT_REC int rec_vprintf(const char *fmt, va_list ap)
{
	return do_vfprintf(VT_STDIO_VPRINTF, stdout, fmt, ap);
}

VT_EXPORT int vprintf(const char *fmt, va_list ap)
{
	PASS(VT_STDIO_VFPRINTF, vfprintf_fn, (stdout, fmt, ap));
	return rec_vprintf(fmt, ap);
}

VT_REC int rec_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	return do_vfprintf(VT_STDIO_VFPRINTF, f, fmt, ap);
}

VT_EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	PASS(VT_STDIO_VFPRINTF, vfprintf_fn, (f, fmt, ap));
	return rec_vfprintf(f, fmt, ap);
}

/* The seeks: the offset reached is asked of libc's ftello after a recorded one. */
typedef int (*fseek_fn)(FILE *, long, int);
typedef int (*fseeko_fn)(FILE *, off_t, int);
typedef int (*fseeko64_fn)(FILE *, off64_t, int);
typedef long (*ftell_fn)(FILE *);
typedef off_t (*ftello_fn)(FILE *);
typedef off64_t (*ftello64_fn)(FILE *);
typedef void (*rewind_fn)(FILE *);

VT_NOSAN static int seeked(struct vt_io_call *c, FILE *f, int64_t off, int whence, int r)
{
	int e = errno;
	int64_t at = -1;
	ftello64_fn tell = (ftello64_fn)real(VT_STDIO_FTELLO64);
	if (r == 0 && tell)
		at = tell(f);
	vt_stdio_hooks.seeked(c, f, off, whence, at);
	errno = e;
	return r;
}

VT_REC int rec_fseek(FILE *f, long off, int whence)
{
	REAL(VT_STDIO_FSEEK, fseek_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_FSEEK))
		return fp_(f, off, whence);
	return seeked(&c, f, off, whence, fp_(f, off, whence));
}

VT_EXPORT int fseek(FILE *f, long off, int whence)
{
	PASS(VT_STDIO_FSEEK, fseek_fn, (f, off, whence));
	return rec_fseek(f, off, whence);
}

VT_REC int rec_fseeko(FILE *f, off_t off, int whence)
{
	REAL(VT_STDIO_FSEEKO, fseeko_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_FSEEKO))
		return fp_(f, off, whence);
	return seeked(&c, f, off, whence, fp_(f, off, whence));
}

VT_EXPORT int fseeko(FILE *f, off_t off, int whence)
{
	PASS(VT_STDIO_FSEEKO, fseeko_fn, (f, off, whence));
	return rec_fseeko(f, off, whence);
}

VT_REC int rec_fseeko64(FILE *f, off64_t off, int whence)
{
	REAL(VT_STDIO_FSEEKO64, fseeko64_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_FSEEKO64))
		return fp_(f, off, whence);
	return seeked(&c, f, off, whence, fp_(f, off, whence));
}

VT_EXPORT int fseeko64(FILE *f, off64_t off, int whence)
{
	PASS(VT_STDIO_FSEEKO64, fseeko64_fn, (f, off, whence));
	return rec_fseeko64(f, off, whence);
}

VT_REC void rec_rewind(FILE *f)
{
	REAL(VT_STDIO_REWIND, rewind_fn, );
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_REWIND)) {
		fp_(f);
		return;
	}
	fp_(f);
	(void)seeked(&c, f, 0, SEEK_SET, 0);
}

VT_EXPORT void rewind(FILE *f)
{
	rewind_fn fq = (rewind_fn)__atomic_load_n(&real_fns[VT_STDIO_REWIND], __ATOMIC_RELAXED);
	if (__builtin_expect(fq && !__atomic_load_n(&vt_stdio_hooks.enter, __ATOMIC_ACQUIRE), 1))
		fq(f);
	else
		rec_rewind(f);
}

/* Calls whose region is all: the call, then leave. */
#define PLAIN(fn, T, call)                                                                         \
	do {                                                                                       \
		struct vt_io_call c_;                                                              \
		if (!recorded(&c_, fn))                                                            \
			return call;                                                               \
		T r_ = call;                                                                       \
		int e_ = errno;                                                                    \
		vt_stdio_hooks.leave(&c_);                                                         \
		errno = e_;                                                                        \
		return r_;                                                                         \
	} while (0)

VT_REC long rec_ftell(FILE *f)
{
	REAL(VT_STDIO_FTELL, ftell_fn, -1);
	PLAIN(VT_STDIO_FTELL, long, fp_(f));
}

VT_EXPORT long ftell(FILE *f)
{
	PASS(VT_STDIO_FTELL, ftell_fn, (f));
	return rec_ftell(f);
}

VT_REC off_t rec_ftello(FILE *f)
{
	REAL(VT_STDIO_FTELLO, ftello_fn, -1);
	PLAIN(VT_STDIO_FTELLO, off_t, fp_(f));
}

VT_EXPORT off_t ftello(FILE *f)
{
	PASS(VT_STDIO_FTELLO, ftello_fn, (f));
	return rec_ftello(f);
}

VT_REC off64_t rec_ftello64(FILE *f)
{
	REAL(VT_STDIO_FTELLO64, ftello64_fn, -1);
	PLAIN(VT_STDIO_FTELLO64, off64_t, fp_(f));
}

VT_EXPORT off64_t ftello64(FILE *f)
{
	PASS(VT_STDIO_FTELLO64, ftello64_fn, (f));
	return rec_ftello64(f);
}

/* fflush(NULL) flushes every stream: a region without a handle. */
typedef int (*fflush_fn)(FILE *);

VT_REC int rec_fflush(FILE *f)
{
	REAL(VT_STDIO_FFLUSH, fflush_fn, EOF);
	DATA_OP(VT_STDIO_FFLUSH, f, VT_IO_MODE_FLUSH, 0, int, fp_(f), r_ == EOF ? -1 : 0);
}

VT_EXPORT int fflush(FILE *f)
{
	PASS(VT_STDIO_FFLUSH, fflush_fn, (f));
	return rec_fflush(f);
}

/* The opens and the close. */
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*fdopen_fn)(int, const char *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);
typedef int (*fclose_fn)(FILE *);

VT_NOSAN static FILE *opened(struct vt_io_call *c, FILE *f, const char *path, const char *mode)
{
	int e = errno;
	vt_stdio_hooks.opened(c, f, path, mode);
	errno = e;
	return f;
}

VT_NOSAN static FILE *do_fopen(enum vt_stdio_fn fn, const char *path, const char *mode)
{
	REAL(fn, fopen_fn, NULL);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(path, mode);
	return opened(&c, fp_(path, mode), path, mode);
}

VT_REC FILE *rec_fopen(const char *path, const char *mode)
{
	return do_fopen(VT_STDIO_FOPEN, path, mode);
}

VT_EXPORT FILE *fopen(const char *path, const char *mode)
{
	PASS(VT_STDIO_FOPEN, fopen_fn, (path, mode));
	return rec_fopen(path, mode);
}

VT_REC FILE *rec_fopen64(const char *path, const char *mode)
{
	return do_fopen(VT_STDIO_FOPEN64, path, mode);
}

VT_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	PASS(VT_STDIO_FOPEN64, fopen_fn, (path, mode));
	return rec_fopen64(path, mode);
}

VT_REC FILE *rec_fdopen(int fd, const char *mode)
{
	REAL(VT_STDIO_FDOPEN, fdopen_fn, NULL);
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_FDOPEN))
		return fp_(fd, mode);
	return opened(&c, fp_(fd, mode), NULL, mode);
}

VT_EXPORT FILE *fdopen(int fd, const char *mode)
{
	PASS(VT_STDIO_FDOPEN, fdopen_fn, (fd, mode));
	return rec_fdopen(fd, mode);
}

VT_NOSAN static FILE *do_freopen(enum vt_stdio_fn fn, const char *path, const char *mode, FILE *f)
{
	REAL(fn, freopen_fn, NULL);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(path, mode, f);
	int e = errno;
	vt_stdio_hooks.closing(&c, f);
	errno = e;
	return opened(&c, fp_(path, mode, f), path, mode);
}

VT_REC FILE *rec_freopen(const char *path, const char *mode, FILE *f)
{
	return do_freopen(VT_STDIO_FREOPEN, path, mode, f);
}

VT_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	PASS(VT_STDIO_FREOPEN, freopen_fn, (path, mode, f));
	return rec_freopen(path, mode, f);
}

VT_REC FILE *rec_freopen64(const char *path, const char *mode, FILE *f)
{
	return do_freopen(VT_STDIO_FREOPEN64, path, mode, f);
}

VT_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	PASS(VT_STDIO_FREOPEN64, freopen_fn, (path, mode, f));
	return rec_freopen64(path, mode, f);
}

VT_REC int rec_fclose(FILE *f)
{
	REAL(VT_STDIO_FCLOSE, fclose_fn, EOF);
	struct vt_io_call c;
	if (!recorded(&c, VT_STDIO_FCLOSE))
		return fp_(f);
	int e = errno;
	vt_stdio_hooks.closing(&c, f);
	errno = e;
	int r = fp_(f);
	e = errno;
	vt_stdio_hooks.closed(&c, r);
	errno = e;
	return r;
}

VT_EXPORT int fclose(FILE *f)
{
	PASS(VT_STDIO_FCLOSE, fclose_fn, (f));
	return rec_fclose(f);
}

/* The fortified forms gcc emits with _FORTIFY_SOURCE when it knows a buffer's size, or
 * for every printf: recorded as the call the program wrote. libc declares them only inside
 * its headers' inline wrappers. */
int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *s, size_t room, int n, FILE *f);

VT_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = do_vfprintf_chk(VT_STDIO_PRINTF, stdout, flag, fmt, ap);
	va_end(ap);
	return r;
}

VT_EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = do_vfprintf_chk(VT_STDIO_FPRINTF, f, flag, fmt, ap);
	va_end(ap);
	return r;
}

VT_REC int rec___vprintf_chk(int flag, const char *fmt, va_list ap)
{
	return do_vfprintf_chk(VT_STDIO_VPRINTF, stdout, flag, fmt, ap);
}

VT_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	PASS(CHK_VFPRINTF, vfprintf_chk_fn, (stdout, flag, fmt, ap));
	return rec___vprintf_chk(flag, fmt, ap);
}

VT_REC int rec___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	return do_vfprintf_chk(VT_STDIO_VFPRINTF, f, flag, fmt, ap);
}

VT_EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	PASS(CHK_VFPRINTF, vfprintf_chk_fn, (f, flag, fmt, ap));
	return rec___vfprintf_chk(f, flag, fmt, ap);
}

typedef size_t (*fread_chk_fn)(void *, size_t, size_t, size_t, FILE *);
typedef char *(*fgets_chk_fn)(char *, size_t, int, FILE *);

VT_REC size_t rec___fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f)
{
	REAL(CHK_FREAD, fread_chk_fn, 0);
	DATA_OP(VT_STDIO_FREAD, f, VT_IO_MODE_READ, (uint64_t)size * n, size_t,
		fp_(p, room, size, n, f), elems_done(r_, size, n, f));
}

VT_EXPORT size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f)
{
	PASS(CHK_FREAD, fread_chk_fn, (p, room, size, n, f));
	return rec___fread_chk(p, room, size, n, f);
}

VT_REC char *rec___fgets_chk(char *s, size_t room, int n, FILE *f)
{
	REAL(CHK_FGETS, fgets_chk_fn, NULL);
	DATA_OP(VT_STDIO_FGETS, f, VT_IO_MODE_READ, n > 0 ? (uint64_t)n - 1 : 0, char *,
		fp_(s, room, n, f), line_done(r_, f));
}

VT_EXPORT char *__fgets_chk(char *s, size_t room, int n, FILE *f)
{
	PASS(CHK_FGETS, fgets_chk_fn, (s, room, n, f));
	return rec___fgets_chk(s, room, n, f);
}
