/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX I/O (open, read, write, seek, sync, dup, fcntl, mmap, unlink...), reported to io/. */
/* Both the plain and the 64 forms are defined here under their own names: the headers must
 * not rename the plain ones to their 64 forms. */
#undef _FILE_OFFSET_BITS
#include "interpose/vt_interpose.h"
#include "interpose/vt_io.h"
#include "interpose/vt_mem.h"
#include "interpose/vt_own_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Other libraries' constructors may do I/O before AddressSanitizer's runtime has set up its
 * shadow memory (libucs, loaded with MPICH, reads a file in its constructor; ASan's own open
 * then calls this one): nothing here is instrumented by it, or those calls would fault. */
#define VT_NOSAN  __attribute__((no_sanitize("address"), no_instrument_function))
#define VT_EXPORT __attribute__((visibility("default"))) VT_NOSAN

struct vt_io_hooks vt_io_hooks;

const char *const vt_io_names[VT_IO_FN_MAX] = {
    [VT_IO_OPEN] = "open",
    [VT_IO_OPEN64] = "open64",
    [VT_IO_OPENAT] = "openat",
    [VT_IO_OPENAT64] = "openat64",
    [VT_IO_CREAT] = "creat",
    [VT_IO_CREAT64] = "creat64",
    [VT_IO_CLOSE] = "close",
    [VT_IO_READ] = "read",
    [VT_IO_WRITE] = "write",
    [VT_IO_PREAD] = "pread",
    [VT_IO_PREAD64] = "pread64",
    [VT_IO_PWRITE] = "pwrite",
    [VT_IO_PWRITE64] = "pwrite64",
    [VT_IO_READV] = "readv",
    [VT_IO_WRITEV] = "writev",
    [VT_IO_PREADV] = "preadv",
    [VT_IO_PWRITEV] = "pwritev",
    [VT_IO_LSEEK] = "lseek",
    [VT_IO_LSEEK64] = "lseek64",
    [VT_IO_FSYNC] = "fsync",
    [VT_IO_FDATASYNC] = "fdatasync",
    [VT_IO_FTRUNCATE] = "ftruncate",
    [VT_IO_FTRUNCATE64] = "ftruncate64",
    [VT_IO_DUP] = "dup",
    [VT_IO_DUP2] = "dup2",
    [VT_IO_DUP3] = "dup3",
    [VT_IO_FCNTL] = "fcntl",
    [VT_IO_FCNTL64] = "fcntl64",
    [VT_IO_PREADV64] = "preadv64",
    [VT_IO_PWRITEV64] = "pwritev64",
    [VT_IO_PREADV2] = "preadv2",
    [VT_IO_PWRITEV2] = "pwritev2",
    [VT_IO_PREADV64V2] = "preadv64v2",
    [VT_IO_PWRITEV64V2] = "pwritev64v2",
    [VT_IO_MMAP] = "mmap",
    [VT_IO_MMAP64] = "mmap64",
    [VT_IO_RENAMEAT2] = "renameat2",
    [VT_IO_UNLINK] = "unlink",
    [VT_IO_UNLINKAT] = "unlinkat",
    [VT_IO_RENAME] = "rename",
    [VT_IO_RENAMEAT] = "renameat",
};

VT_NOSAN void vt_io_set_hooks(const struct vt_io_hooks *h)
{
	struct vt_io_hooks copy = *h;
	copy.enter = NULL;
	copy.op_enter = NULL;
	copy.rw = NULL;
	copy.prw = NULL;
	vt_io_hooks = copy;
	__atomic_store_n(&vt_io_hooks.rw, h->rw, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_io_hooks.prw, h->prw, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_io_hooks.op_enter, h->op_enter, __ATOMIC_RELEASE);
	__atomic_store_n(&vt_io_hooks.enter, h->enter, __ATOMIC_RELEASE);
}

/* libc's functions, found when libvt is loaded (dlsym is no function for a signal handler,
 * which may write), or at a first call that comes before (another library's constructor:
 * dlsym RTLD_NEXT gives every thread the same answer, so a race only repeats the look-up). */

/*
 * The forms _FORTIFY_SOURCE makes of some calls (when the buffer's size is known, or an open's
 * flags are not): their own entry points in libc, looked up after the plain ones, and
 * recorded as the call the program wrote (their region is read, pread64, open...).
 */
enum {
	CHK_READ = VT_IO_FN_MAX,
	CHK_PREAD,
	CHK_PREAD64,
	CHK_OPEN,
	CHK_OPEN64,
	CHK_OPENAT,
	CHK_OPENAT64,
	REAL_MAX
};
static const char *const chk_names[REAL_MAX - VT_IO_FN_MAX] = {
    "__read_chk", "__pread_chk", "__pread64_chk", "__open_2",
    "__open64_2", "__openat_2",	 "__openat64_2",
};

static void *real_fns[REAL_MAX];

/* The look-up of slot fn, the first time it is needed (errno kept). */
VT_NOSAN __attribute__((noinline)) static void *look_up(int fn)
{
	int saved = errno;
	void *f =
	    vt_interpose_next(fn < VT_IO_FN_MAX ? vt_io_names[fn] : chk_names[fn - VT_IO_FN_MAX]);
	__atomic_store_n(&real_fns[fn], f, __ATOMIC_RELAXED);
	errno = saved;
	return f;
}

VT_NOSAN static inline __attribute__((always_inline)) void *real(int fn)
{
	void *f = __atomic_load_n(&real_fns[fn], __ATOMIC_RELAXED);
	return __builtin_expect(f != NULL, 1) ? f : look_up(fn);
}

VT_NOSAN __attribute__((constructor(101))) static void resolve_all(void)
{
	for (int fn = 0; fn < REAL_MAX; fn++)
		(void)real(fn);
}

/* The real function as type T, or a failure with ENOSYS when libc has none. */
#define REAL(fn, T, fail)                                                                          \
	T fp_ = (T)real(fn);                                                                       \
	if (__builtin_expect(!fp_, 0)) {                                                           \
		errno = ENOSYS;                                                                    \
		return fail;                                                                       \
	}

/* Whether this call is recorded (io/ answers; nothing to ask when I/O is not traced). */
VT_NOSAN static inline __attribute__((always_inline)) bool recorded(struct vt_io_call *c,
								    enum vt_io_fn fn)
{
	bool (*enter)(struct vt_io_call *, enum vt_io_fn) =
	    __atomic_load_n(&vt_io_hooks.enter, __ATOMIC_ACQUIRE);
	return __builtin_expect(enter != NULL, 0) && enter(c, fn);
}

/* The same for a data operation, whose beginning is recorded with the answer. */
VT_NOSAN static inline __attribute__((always_inline)) bool
op_recorded(struct vt_io_call *c, enum vt_io_fn fn, int fd, enum vt_io_mode mode, uint64_t bytes)
{
	bool (*op_enter)(struct vt_io_call *, enum vt_io_fn, int, enum vt_io_mode, uint64_t) =
	    __atomic_load_n(&vt_io_hooks.op_enter, __ATOMIC_ACQUIRE);
	return __builtin_expect(op_enter != NULL, 0) && op_enter(c, fn, fd, mode, bytes);
}

/* A data operation: Begin before the call, Complete (or its failure) after it. */
#define DATA_OP(fn, fd, mode, bytes, call)                                                         \
	do {                                                                                       \
		struct vt_io_call c_;                                                              \
		if (!op_recorded(&c_, fn, fd, mode, bytes))                                        \
			return call;                                                               \
		ssize_t r_ = call;                                                                 \
		vt_io_hooks.op_end(&c_, r_, r_ < 0 ? errno : 0);                                   \
		return r_;                                                                         \
	} while (0)

VT_NOSAN static uint64_t iov_bytes(const struct iovec *iov, int n)
{
	uint64_t sum = 0;
	for (int i = 0; iov && i < n; i++)
		sum += iov[i].iov_len;
	return sum;
}

typedef ssize_t (*rw_fn)(int, void *, size_t);
typedef ssize_t (*prw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*prw64_fn)(int, void *, size_t, off64_t);
typedef ssize_t (*rwv_fn)(int, const struct iovec *, int);
typedef ssize_t (*prwv_fn)(int, const struct iovec *, int, off_t);

/*
 * A data operation's wrapper: while I/O is not traced (no op_enter hook) and libc's function
 * is known, a tail call to it, without a frame or errno's address; else its traced form, out
 * of line.
 */
#define DATA_WRAPPER(ret, name, slot, fn, mode, bytes, T, params, args)                            \
	VT_NOSAN __attribute__((noinline)) static ret traced_##name params                         \
	{                                                                                          \
		REAL(slot, T, -1);                                                                 \
		DATA_OP(fn, fd, mode, bytes, fp_ args);                                            \
	}                                                                                          \
	VT_EXPORT ret name params                                                                  \
	{                                                                                          \
		T f_ = (T)__atomic_load_n(&real_fns[slot], __ATOMIC_RELAXED);                      \
		if (__builtin_expect(                                                              \
			f_ && !__atomic_load_n(&vt_io_hooks.op_enter, __ATOMIC_ACQUIRE), 1))       \
			return f_ args;                                                            \
		return traced_##name args;                                                         \
	}

/*
 * read and write, pread and pwrite: while I/O is not traced, the same tail call to libc; when
 * it is, a tail call to the hook (rw, prw), which does the whole call (its frame is the only
 * one: see struct vt_io_hooks). Before libc's function is known (another library's
 * constructor), it is looked up first.
 */
_Static_assert(sizeof(off_t) == sizeof(int64_t) && sizeof(off64_t) == sizeof(int64_t),
	       "pread's offset is passed on as 64 bits");

VT_NOSAN __attribute__((noinline)) static ssize_t rw_first(int slot, int fd, void *buf, size_t n)
{
	REAL(slot, vt_io_rw_fn, -1);
	ssize_t (*h_)(int, void *, size_t, vt_io_rw_fn, enum vt_io_fn) =
	    __atomic_load_n(&vt_io_hooks.rw, __ATOMIC_ACQUIRE);
	return h_ ? h_(fd, buf, n, fp_, (enum vt_io_fn)slot) : fp_(fd, buf, n);
}

VT_NOSAN __attribute__((noinline)) static ssize_t prw_first(int slot, int fd, void *buf, size_t n,
							    int64_t off)
{
	REAL(slot, vt_io_prw_fn, -1);
	ssize_t (*h_)(int, void *, size_t, int64_t, vt_io_prw_fn, enum vt_io_fn) =
	    __atomic_load_n(&vt_io_hooks.prw, __ATOMIC_ACQUIRE);
	return h_ ? h_(fd, buf, n, off, fp_, (enum vt_io_fn)slot) : fp_(fd, buf, n, off);
}

#define RW_WRAPPER(name, fn, C)                                                                    \
	VT_EXPORT ssize_t name(int fd, C void *buf, size_t n)                                      \
	{                                                                                          \
		vt_io_rw_fn f_ = (vt_io_rw_fn)__atomic_load_n(&real_fns[fn], __ATOMIC_RELAXED);    \
		ssize_t (*h_)(int, void *, size_t, vt_io_rw_fn, enum vt_io_fn) =                   \
		    __atomic_load_n(&vt_io_hooks.rw, __ATOMIC_ACQUIRE);                            \
		if (__builtin_expect(f_ && !h_, 1))                                                \
			return f_(fd, (void *)buf, n);                                             \
		if (f_)                                                                            \
			return h_(fd, (void *)buf, n, f_, fn);                                     \
		return rw_first(fn, fd, (void *)buf, n);                                           \
	}

#define PRW_WRAPPER(name, fn, C, O)                                                                \
	VT_EXPORT ssize_t name(int fd, C void *buf, size_t n, O off)                               \
	{                                                                                          \
		vt_io_prw_fn f_ = (vt_io_prw_fn)__atomic_load_n(&real_fns[fn], __ATOMIC_RELAXED);  \
		ssize_t (*h_)(int, void *, size_t, int64_t, vt_io_prw_fn, enum vt_io_fn) =         \
		    __atomic_load_n(&vt_io_hooks.prw, __ATOMIC_ACQUIRE);                           \
		if (__builtin_expect(f_ && !h_, 1))                                                \
			return f_(fd, (void *)buf, n, off);                                        \
		if (f_)                                                                            \
			return h_(fd, (void *)buf, n, off, f_, fn);                                \
		return prw_first(fn, fd, (void *)buf, n, off);                                     \
	}

RW_WRAPPER(read, VT_IO_READ, )
RW_WRAPPER(write, VT_IO_WRITE, const)
PRW_WRAPPER(pread, VT_IO_PREAD, , off_t)
PRW_WRAPPER(pread64, VT_IO_PREAD64, , off64_t)
PRW_WRAPPER(pwrite, VT_IO_PWRITE, const, off_t)
PRW_WRAPPER(pwrite64, VT_IO_PWRITE64, const, off64_t)
DATA_WRAPPER(ssize_t, readv, VT_IO_READV, VT_IO_READV, VT_IO_MODE_READ, iov_bytes(iov, cnt), rwv_fn,
	     (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt))
DATA_WRAPPER(ssize_t, writev, VT_IO_WRITEV, VT_IO_WRITEV, VT_IO_MODE_WRITE, iov_bytes(iov, cnt),
	     rwv_fn, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt))
DATA_WRAPPER(ssize_t, preadv, VT_IO_PREADV, VT_IO_PREADV, VT_IO_MODE_READ, iov_bytes(iov, cnt),
	     prwv_fn, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))
DATA_WRAPPER(ssize_t, pwritev, VT_IO_PWRITEV, VT_IO_PWRITEV, VT_IO_MODE_WRITE, iov_bytes(iov, cnt),
	     prwv_fn, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))

typedef ssize_t (*prwv64_fn)(int, const struct iovec *, int, off64_t);
typedef ssize_t (*prwv2_fn)(int, const struct iovec *, int, off_t, int);
typedef ssize_t (*prwv64v2_fn)(int, const struct iovec *, int, off64_t, int);

DATA_WRAPPER(ssize_t, preadv64, VT_IO_PREADV64, VT_IO_PREADV64, VT_IO_MODE_READ,
	     iov_bytes(iov, cnt), prwv64_fn,
	     (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off))
DATA_WRAPPER(ssize_t, pwritev64, VT_IO_PWRITEV64, VT_IO_PWRITEV64, VT_IO_MODE_WRITE,
	     iov_bytes(iov, cnt), prwv64_fn,
	     (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off))
DATA_WRAPPER(ssize_t, preadv2, VT_IO_PREADV2, VT_IO_PREADV2, VT_IO_MODE_READ, iov_bytes(iov, cnt),
	     prwv2_fn, (int fd, const struct iovec *iov, int cnt, off_t off, int flags),
	     (fd, iov, cnt, off, flags))
DATA_WRAPPER(ssize_t, pwritev2, VT_IO_PWRITEV2, VT_IO_PWRITEV2, VT_IO_MODE_WRITE,
	     iov_bytes(iov, cnt), prwv2_fn,
	     (int fd, const struct iovec *iov, int cnt, off_t off, int flags),
	     (fd, iov, cnt, off, flags))
DATA_WRAPPER(ssize_t, preadv64v2, VT_IO_PREADV64V2, VT_IO_PREADV64V2, VT_IO_MODE_READ,
	     iov_bytes(iov, cnt), prwv64v2_fn,
	     (int fd, const struct iovec *iov, int cnt, off64_t off, int flags),
	     (fd, iov, cnt, off, flags))
DATA_WRAPPER(ssize_t, pwritev64v2, VT_IO_PWRITEV64V2, VT_IO_PWRITEV64V2, VT_IO_MODE_WRITE,
	     iov_bytes(iov, cnt), prwv64v2_fn,
	     (int fd, const struct iovec *iov, int cnt, off64_t off, int flags),
	     (fd, iov, cnt, off, flags))

typedef int (*fd_fn)(int);

VT_NOSAN static int sync_op(enum vt_io_fn fn, int fd)
{
	REAL(fn, fd_fn, -1);
	DATA_OP(fn, fd, VT_IO_MODE_FLUSH, 0, fp_(fd));
}

VT_EXPORT int fsync(int fd)
{
	return sync_op(VT_IO_FSYNC, fd);
}

VT_EXPORT int fdatasync(int fd)
{
	return sync_op(VT_IO_FDATASYNC, fd);
}

/* Calls whose region is all: the call, then leave. */
#define PLAIN(fn, T, call)                                                                         \
	do {                                                                                       \
		struct vt_io_call c_;                                                              \
		if (!recorded(&c_, fn))                                                            \
			return call;                                                               \
		T r_ = call;                                                                       \
		vt_io_hooks.leave(&c_);                                                            \
		return r_;                                                                         \
	} while (0)

typedef int (*trunc_fn)(int, off_t);
typedef int (*trunc64_fn)(int, off64_t);

VT_EXPORT int ftruncate(int fd, off_t len)
{
	REAL(VT_IO_FTRUNCATE, trunc_fn, -1);
	PLAIN(VT_IO_FTRUNCATE, int, fp_(fd, len));
}

VT_EXPORT int ftruncate64(int fd, off64_t len)
{
	REAL(VT_IO_FTRUNCATE64, trunc64_fn, -1);
	PLAIN(VT_IO_FTRUNCATE64, int, fp_(fd, len));
}

typedef int (*path_fn)(const char *);
typedef int (*pathat_fn)(int, const char *, int);
typedef int (*rename_fn)(const char *, const char *);
typedef int (*renameat_fn)(int, const char *, int, const char *);

VT_NOSAN static int unlinked(struct vt_io_call *c, int dirfd, const char *path, int flags, int r)
{
	int e = errno;
	vt_io_hooks.unlinked(c, dirfd, path, flags, r);
	errno = e;
	return r;
}

VT_EXPORT int unlink(const char *path)
{
	REAL(VT_IO_UNLINK, path_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_UNLINK))
		return fp_(path);
	return unlinked(&c, AT_FDCWD, path, 0, fp_(path));
}

VT_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	REAL(VT_IO_UNLINKAT, pathat_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_UNLINKAT))
		return fp_(dirfd, path, flags);
	return unlinked(&c, dirfd, path, flags, fp_(dirfd, path, flags));
}

VT_EXPORT int rename(const char *from, const char *to)
{
	REAL(VT_IO_RENAME, rename_fn, -1);
	PLAIN(VT_IO_RENAME, int, fp_(from, to));
}

VT_EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	REAL(VT_IO_RENAMEAT, renameat_fn, -1);
	PLAIN(VT_IO_RENAMEAT, int, fp_(fromfd, from, tofd, to));
}

typedef int (*renameat2_fn)(int, const char *, int, const char *, unsigned);

VT_EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	REAL(VT_IO_RENAMEAT2, renameat2_fn, -1);
	PLAIN(VT_IO_RENAMEAT2, int, fp_(fromfd, from, tofd, to, flags));
}

/* The opens: mode is read only when the flags ask for it (O_CREAT, O_TMPFILE). */
#define OPEN_MODE(flags, mode)                                                                     \
	do {                                                                                       \
		if ((flags)&O_CREAT || ((flags)&O_TMPFILE) == O_TMPFILE) {                         \
			va_list ap_;                                                               \
			va_start(ap_, flags);                                                      \
			mode = va_arg(ap_, mode_t);                                                \
			va_end(ap_);                                                               \
		}                                                                                  \
	} while (0)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*creat_fn)(const char *, mode_t);

VT_NOSAN static int opened(struct vt_io_call *c, int fd, const char *path, int flags)
{
	int e = errno;
	vt_io_hooks.opened(c, fd, path, flags);
	errno = e;
	return fd;
}

VT_NOSAN static int do_open(enum vt_io_fn fn, const char *path, int flags, mode_t mode)
{
	REAL(fn, open_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(path, flags, mode);
	return opened(&c, fp_(path, flags, mode), path, flags);
}

VT_NOSAN static int do_openat(enum vt_io_fn fn, int dirfd, const char *path, int flags, mode_t mode)
{
	REAL(fn, openat_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(dirfd, path, flags, mode);
	return opened(&c, fp_(dirfd, path, flags, mode), path, flags);
}

VT_NOSAN static int do_creat(enum vt_io_fn fn, const char *path, mode_t mode)
{
	REAL(fn, creat_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(path, mode);
	return opened(&c, fp_(path, mode), path, O_CREAT | O_WRONLY | O_TRUNC);
}

VT_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return do_open(VT_IO_OPEN, path, flags, mode);
}

VT_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return do_open(VT_IO_OPEN64, path, flags, mode);
}

VT_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return do_openat(VT_IO_OPENAT, dirfd, path, flags, mode);
}

VT_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return do_openat(VT_IO_OPENAT64, dirfd, path, flags, mode);
}

VT_EXPORT int creat(const char *path, mode_t mode)
{
	return do_creat(VT_IO_CREAT, path, mode);
}

VT_EXPORT int creat64(const char *path, mode_t mode)
{
	return do_creat(VT_IO_CREAT64, path, mode);
}

VT_NOSAN static int close_of(int fd)
{
	REAL(VT_IO_CLOSE, fd_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_CLOSE))
		return fp_(fd);
	vt_io_hooks.closing(&c, fd);
	int r = fp_(fd);
	int e = errno;
	vt_io_hooks.closed(&c, fd, r);
	errno = e;
	return r;
}

/* A descriptor of vt's (interpose/vt_own_fds.h) is taken only while vt writes nothing. */
#define TAKING(fd, call)                                                                           \
	do {                                                                                       \
		if (__builtin_expect(vt_own_fd_take_begin(fd), 0)) {                               \
			int r_ = (call);                                                           \
			int e_ = errno;                                                            \
			vt_own_fd_take_end();                                                      \
			errno = e_;                                                                \
			return r_;                                                                 \
		}                                                                                  \
		return (call);                                                                     \
	} while (0)

VT_EXPORT int close(int fd)
{
	TAKING(fd, close_of(fd));
}

typedef off_t (*lseek_fn)(int, off_t, int);
typedef off64_t (*lseek64_fn)(int, off64_t, int);

VT_EXPORT off_t lseek(int fd, off_t off, int whence)
{
	REAL(VT_IO_LSEEK, lseek_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_LSEEK))
		return fp_(fd, off, whence);
	off_t r = fp_(fd, off, whence);
	int e = errno;
	vt_io_hooks.seeked(&c, fd, off, whence, r);
	errno = e;
	return r;
}

VT_EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
	REAL(VT_IO_LSEEK64, lseek64_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_LSEEK64))
		return fp_(fd, off, whence);
	off64_t r = fp_(fd, off, whence);
	int e = errno;
	vt_io_hooks.seeked(&c, fd, off, whence, r);
	errno = e;
	return r;
}

typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);

VT_NOSAN static int duped(struct vt_io_call *c, int oldfd, int newfd, int flags)
{
	int e = errno;
	vt_io_hooks.duped(c, oldfd, newfd, flags);
	errno = e;
	return newfd;
}

VT_EXPORT int dup(int fd)
{
	REAL(VT_IO_DUP, fd_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_DUP))
		return fp_(fd);
	return duped(&c, fd, fp_(fd), 0);
}

VT_NOSAN static int dup2_of(int fd, int to)
{
	REAL(VT_IO_DUP2, dup2_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_DUP2))
		return fp_(fd, to);
	return duped(&c, fd, fp_(fd, to), 0);
}

VT_EXPORT int dup2(int fd, int to)
{
	TAKING(to, dup2_of(fd, to));
}

VT_NOSAN static int dup3_of(int fd, int to, int flags)
{
	REAL(VT_IO_DUP3, dup3_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, VT_IO_DUP3))
		return fp_(fd, to, flags);
	return duped(&c, fd, fp_(fd, to, flags), flags);
}

VT_EXPORT int dup3(int fd, int to, int flags)
{
	TAKING(to, dup3_of(fd, to, flags));
}

/*
 * fcntl: a duplication (F_DUPFD, F_DUPFD_CLOEXEC) is recorded as dup's, a change of the
 * status flags (F_SETFL, F_SETFD) as such; every other command is libc's alone. Its third
 * argument is an int or a pointer: passed on as a pointer, as libc reads it.
 */
typedef int (*fcntl_fn)(int, int, ...);

VT_NOSAN static int do_fcntl(enum vt_io_fn fn, int fd, int cmd, void *arg)
{
	REAL(fn, fcntl_fn, -1);
	struct vt_io_call c;
	bool dup = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
	if ((!dup && cmd != F_SETFL && cmd != F_SETFD) || !recorded(&c, fn))
		return fp_(fd, cmd, arg);
	int r = fp_(fd, cmd, arg);
	if (dup)
		return duped(&c, fd, r, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
	int e = errno;
	vt_io_hooks.status(&c, fd, r);
	errno = e;
	return r;
}

VT_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl(VT_IO_FCNTL, fd, cmd, arg);
}

VT_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl(VT_IO_FCNTL64, fd, cmd, arg);
}

/*
 * mmap of a file: an operation on its handle that moves no byte (the pages come and go
 * later, by page faults no call shows): a write when the mapping is shared and writable, a
 * read otherwise, 0 bytes requested and done (failed: cancelled). Anonymous mappings are
 * memory, not I/O: libc's alone.
 */
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

VT_NOSAN __attribute__((noinline)) static void *
traced_mmap(enum vt_io_fn fn, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(fn, mmap_fn, MAP_FAILED);
	struct vt_io_call c;
	enum vt_io_mode mode =
	    (prot & PROT_WRITE) && (flags & MAP_SHARED) ? VT_IO_MODE_WRITE : VT_IO_MODE_READ;
	if (!op_recorded(&c, fn, fd, mode, 0))
		return fp_(addr, len, prot, flags, fd, off);
	void *r = fp_(addr, len, prot, flags, fd, off);
	vt_io_hooks.op_end(&c, r == MAP_FAILED ? -1 : 0, r == MAP_FAILED ? errno : 0);
	return r;
}

#define MMAP_WRAPPER(name, fn)                                                                     \
	VT_EXPORT void *name(void *addr, size_t len, int prot, int flags, int fd, off_t off)       \
	{                                                                                          \
		mmap_fn f_ = (mmap_fn)__atomic_load_n(&real_fns[fn], __ATOMIC_RELAXED);            \
		bool anon_ = (flags & MAP_ANONYMOUS) || fd < 0;                                    \
		if (__builtin_expect(                                                              \
			f_ && (anon_ ? !__atomic_load_n(&vt_mem_hooks.count, __ATOMIC_RELAXED)     \
				     : !__atomic_load_n(&vt_io_hooks.op_enter, __ATOMIC_ACQUIRE)), \
			1))                                                                        \
			return f_(addr, len, prot, flags, fd, off);                                \
		if (f_ && anon_) /* memory, counted (VT_MEMTRACE) */                               \
			return vt_mem_mmap((vt_mmap_fn)f_, addr, len, prot, flags, fd, (long)off); \
		return traced_mmap(fn, addr, len, prot, flags, fd, off);                           \
	}

MMAP_WRAPPER(mmap, VT_IO_MMAP)
MMAP_WRAPPER(mmap64, VT_IO_MMAP64)

/* libc declares them only under _FORTIFY_SOURCE, inside its headers' inline wrappers. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t size);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t size);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t size);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

typedef ssize_t (*rw_chk_fn)(int, void *, size_t, size_t);
typedef ssize_t (*prw_chk_fn)(int, void *, size_t, off_t, size_t);
typedef ssize_t (*prw64_chk_fn)(int, void *, size_t, off64_t, size_t);
typedef int (*open_chk_fn)(const char *, int);
typedef int (*openat_chk_fn)(int, const char *, int);

DATA_WRAPPER(ssize_t, __read_chk, CHK_READ, VT_IO_READ, VT_IO_MODE_READ, n, rw_chk_fn,
	     (int fd, void *buf, size_t n, size_t size), (fd, buf, n, size))
DATA_WRAPPER(ssize_t, __pread_chk, CHK_PREAD, VT_IO_PREAD, VT_IO_MODE_READ, n, prw_chk_fn,
	     (int fd, void *buf, size_t n, off_t off, size_t size), (fd, buf, n, off, size))
DATA_WRAPPER(ssize_t, __pread64_chk, CHK_PREAD64, VT_IO_PREAD64, VT_IO_MODE_READ, n, prw64_chk_fn,
	     (int fd, void *buf, size_t n, off64_t off, size_t size), (fd, buf, n, off, size))

/* The fortified opens: flags without O_CREAT or O_TMPFILE (else libc stops the program). */
VT_NOSAN static int open_chk(int slot, enum vt_io_fn fn, const char *path, int flags)
{
	REAL(slot, open_chk_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(path, flags);
	return opened(&c, fp_(path, flags), path, flags);
}

VT_NOSAN static int openat_chk(int slot, enum vt_io_fn fn, int dirfd, const char *path, int flags)
{
	REAL(slot, openat_chk_fn, -1);
	struct vt_io_call c;
	if (!recorded(&c, fn))
		return fp_(dirfd, path, flags);
	return opened(&c, fp_(dirfd, path, flags), path, flags);
}

VT_EXPORT int __open_2(const char *path, int flags)
{
	return open_chk(CHK_OPEN, VT_IO_OPEN, path, flags);
}

VT_EXPORT int __open64_2(const char *path, int flags)
{
	return open_chk(CHK_OPEN64, VT_IO_OPEN64, path, flags);
}

VT_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return openat_chk(CHK_OPENAT, VT_IO_OPENAT, dirfd, path, flags);
}

VT_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat_chk(CHK_OPENAT64, VT_IO_OPENAT64, dirfd, path, flags);
}
