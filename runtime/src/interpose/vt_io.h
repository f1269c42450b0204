/* SPDX-License-Identifier: BSD-3-Clause */
/* What the interposed POSIX I/O calls report, to whom (io/ through the lifecycle). */
#ifndef VT_IO_H
#define VT_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The POSIX I/O functions vt interposes (interpose/vt_io_posix.c), in the order of their
 * regions' names (vt_io_names). A 64 form has a region of its own: the trace says what the
 * program called.
 */
enum vt_io_fn {
	VT_IO_OPEN,
	VT_IO_OPEN64,
	VT_IO_OPENAT,
	VT_IO_OPENAT64,
	VT_IO_CREAT,
	VT_IO_CREAT64,
	VT_IO_CLOSE,
	VT_IO_READ,
	VT_IO_WRITE,
	VT_IO_PREAD,
	VT_IO_PREAD64,
	VT_IO_PWRITE,
	VT_IO_PWRITE64,
	VT_IO_READV,
	VT_IO_WRITEV,
	VT_IO_PREADV,
	VT_IO_PWRITEV,
	VT_IO_LSEEK,
	VT_IO_LSEEK64,
	VT_IO_FSYNC,
	VT_IO_FDATASYNC,
	VT_IO_FTRUNCATE,
	VT_IO_FTRUNCATE64,
	VT_IO_DUP,
	VT_IO_DUP2,
	VT_IO_DUP3,
	/* fcntl: recorded only as a duplication (F_DUPFD, F_DUPFD_CLOEXEC) or a change of the
	 * status flags (F_SETFL, F_SETFD); preadv2 and the like; mmap of a file; renameat2, the
	 * first of the metadata calls. */
	VT_IO_FCNTL,
	VT_IO_FCNTL64,
	VT_IO_PREADV64,
	VT_IO_PWRITEV64,
	VT_IO_PREADV2,
	VT_IO_PWRITEV2,
	VT_IO_PREADV64V2,
	VT_IO_PWRITEV64V2,
	VT_IO_MMAP,
	VT_IO_MMAP64,
	VT_IO_RENAMEAT2,
	VT_IO_UNLINK,
	VT_IO_UNLINKAT,
	VT_IO_RENAME,
	VT_IO_RENAMEAT,
	VT_IO_FN_MAX
};

/* Whether a function opens no handle and moves no data (unlink, rename): its region's role
 * is OTF2's FILE_IO_METADATA. */
#define VT_IO_FN_METADATA(fn) ((fn) >= VT_IO_RENAMEAT2 && (fn) <= VT_IO_RENAMEAT)

extern const char *const vt_io_names[VT_IO_FN_MAX];

/* The kind of a data operation (OTF2_IoOperationMode's values). */
enum vt_io_mode { VT_IO_MODE_READ = 0, VT_IO_MODE_WRITE = 1, VT_IO_MODE_FLUSH = 2 };

/* libc's read or write, pread or pwrite (their offsets are 64 bits: vt_io_posix.c). */
typedef ssize_t (*vt_io_rw_fn)(int, void *, size_t);
typedef ssize_t (*vt_io_prw_fn)(int, void *, size_t, int64_t);

/* One interposed call on its way: filled by enter, read by the hooks after it. */
struct vt_io_call {
	void *thread;	 /* the recording thread's state (io/'s business) */
	uint32_t fn;	 /* enum vt_io_fn */
	uint32_t handle; /* the operation's handle, UINT32_MAX: none */
	uint64_t op;	 /* the operation's matching id */
	void *rec;	 /* the operation's record, to be completed at its end (io/'s) */
	void *end;	 /* the end of the buffer's half it is in (io/'s) */
};

/*
 * Filled by the lifecycle when VT_IOTRACE=yes and vt records; all NULL otherwise (then an
 * interposed call costs one load and a branch). enter says whether this call is recorded:
 * not on vt's own threads, not inside vt, a plugin or another recorded I/O call, not while
 * vt is off. When it said yes, the wrapper calls exactly one of the completing hooks after
 * the real call (each leaves the call's region); every hook keeps errno as it found it.
 */
struct vt_io_hooks {
	bool (*enter)(struct vt_io_call *c, enum vt_io_fn fn);
	/* A data operation on fd, of bytes requested: enter's answer and the operation's
	 * beginning in one call, before the real call; its result (bytes done, or -1 with err)
	 * after. */
	bool (*op_enter)(struct vt_io_call *c, enum vt_io_fn fn, int fd, enum vt_io_mode mode,
			 uint64_t bytes);
	void (*op_end)(struct vt_io_call *c, int64_t result, int err);
	/* An open returned fd (or -1) for path with flags. */
	void (*opened)(struct vt_io_call *c, int fd, const char *path, int flags);
	/* close(fd): before the real call (the handle it ends), and what it returned. */
	void (*closing)(struct vt_io_call *c, int fd);
	void (*closed)(struct vt_io_call *c, int fd, int ret);
	/* lseek(fd, offset, whence) returned result. */
	void (*seeked)(struct vt_io_call *c, int fd, int64_t offset, int whence, int64_t result);
	/* dup*(oldfd) returned newfd (or -1); flags: dup3's O_CLOEXEC. */
	void (*duped)(struct vt_io_call *c, int oldfd, int newfd, int flags);
	/* Any other call returned: its region ends. */
	void (*leave)(struct vt_io_call *c);
	/* fcntl(fd, F_SETFL or F_SETFD) returned ret: the descriptor's status flags changed. */
	void (*status)(struct vt_io_call *c, int fd, int ret);
	/* unlink(path) or unlinkat(dirfd, path, flags) returned ret. */
	void (*unlinked)(struct vt_io_call *c, int dirfd, const char *path, int flags, int ret);
	/*
	 * read and write (rw), pread and pwrite and their 64 forms (prw) whole: the hook makes
	 * the call of libc's function real itself, between the operation's beginning and its
	 * end, and returns what it returned with its errno. The wrapper's one indirect call,
	 * a tail call with its arguments in place: no frame of its own, no call state in
	 * memory. fn says which call (and mode): VT_IO_READ, VT_IO_WRITE, VT_IO_PREAD...
	 */
	ssize_t (*rw)(int fd, void *buf, size_t n, vt_io_rw_fn real, enum vt_io_fn fn);
	ssize_t (*prw)(int fd, void *buf, size_t n, int64_t off, vt_io_prw_fn real,
		       enum vt_io_fn fn);
};

/* Written by the lifecycle (enter, op_enter, rw and prw last, so a wrapper that sees them
 * finds the others in place). */
void vt_io_set_hooks(const struct vt_io_hooks *h);
extern struct vt_io_hooks vt_io_hooks __attribute__((visibility("hidden")));

#endif
