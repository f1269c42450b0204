/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX I/O calls recorded as regions with OTF2 I/O events on a handle per open descriptor. */
#include "io/vt_iotrace.h"
#include "base/vt_state.h"
#include "defs/vt_mpi_defs.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"
#include "vt/vt_inst.h"

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/*
 * fds: each descriptor's handle + 1 (0: none known), written by the thread whose open, dup
 * or close changed it (compare-and-swap: a close does not take the entry of a later open of
 * the same number on another thread). regions: each function's descriptor (vt_inst.h),
 * named at init, registered at its first call.
 */
static struct {
	uint32_t fds[VT_IOTRACE_FDS];
	struct vt_inst_desc regions[VT_IO_FN_MAX];
} io;

/*
 * Per thread: in, inside a recorded call (what it calls is not recorded again: a nested
 * interposed call, a handle's definition); stream_ops, see vt_iotrace_next_op.
 */
static __thread struct {
	bool in;
	uint64_t stream_ops; /* the matching ids of the thread's stream operations (vt_stdio.c) */
} io_tls __attribute__((tls_model("initial-exec")));

void vt_iotrace_init(void)
{
	for (int fn = 0; fn < VT_IO_FN_MAX; fn++) {
		uint32_t role = VT_IO_FN_METADATA(fn) ? OTF2_REGION_ROLE_FILE_IO_METADATA
						      : OTF2_REGION_ROLE_FILE_IO;
		io.regions[fn] = (struct vt_inst_desc){
		    .abi = VT_INST_ABI,
		    .name = vt_io_names[fn],
		    .reserved = (uint32_t)OTF2_PARADIGM_NONE << 8 | role,
		};
	}
}

static inline __attribute__((always_inline)) uint32_t region_of(enum vt_io_fn fn)
{
	return vt_thread_desc_region(&io.regions[fn]);
}

/* Whether the calling thread records this call (then it is inside one from now on). */
static inline __attribute__((always_inline)) struct vt_tls *recording(void)
{
	struct vt_tls *t = &vt_tls;
	/* Inside vt (its slow paths, a plugin, a producer a signal interrupted), inside another
	 * recorded call, or on a thread that does not record (vt's own): the call alone. */
	if (io_tls.in || t->busy || t->nest || vt_core_state() != VT_STATE_ON)
		return NULL;
	if (vt_unlikely(!t->pos)) {
		int saved = errno;
		t = vt_thread_self();
		errno = saved;
		if (!t)
			return NULL;
	}
	io_tls.in = true;
	return t;
}

bool vt_iotrace_enter(struct vt_io_call *c, enum vt_io_fn fn)
{
	struct vt_tls *t = recording();
	if (!t)
		return false;
	int saved = errno;
	*c = (struct vt_io_call){t, fn, UINT32_MAX, 0, NULL, NULL};
	vt_thread_enter(t, region_of(fn));
	errno = saved;
	return true;
}

static void finish(struct vt_io_call *c)
{
	vt_thread_leave(c->thread, region_of(c->fn));
	io_tls.in = false;
}

void vt_iotrace_leave(struct vt_io_call *c)
{
	int saved = errno;
	finish(c);
	errno = saved;
}

static void put(struct vt_io_call *c, uint32_t head, uint32_t kind, uint64_t value, uint32_t handle,
		uint32_t flags, uint64_t received, uint64_t id)
{
	union vt_rec_payload p[2] = {{.io = {value, handle, flags}}, {.nbc = {received, id}}};
	vt_thread_put_event(c->thread, head, kind, p, vt_rec_kinds[kind].payloads);
}

static uint32_t access_mode(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_WRONLY:
		return OTF2_IO_ACCESS_MODE_WRITE_ONLY;
	case O_RDWR:
		return OTF2_IO_ACCESS_MODE_READ_WRITE;
	default:
		return OTF2_IO_ACCESS_MODE_READ_ONLY;
	}
}

static uint64_t creation_flags(int flags)
{
	uint64_t f = 0;
	if (flags & O_CREAT)
		f |= OTF2_IO_CREATION_FLAG_CREATE;
	if (flags & O_TRUNC)
		f |= OTF2_IO_CREATION_FLAG_TRUNCATE;
	if ((flags & O_TMPFILE) == O_TMPFILE)
		f |= OTF2_IO_CREATION_FLAG_TEMPORARY_FILE;
	else if (flags & O_DIRECTORY)
		f |= OTF2_IO_CREATION_FLAG_DIRECTORY;
	if (flags & O_EXCL)
		f |= OTF2_IO_CREATION_FLAG_EXCLUSIVE;
	if (flags & O_NOCTTY)
		f |= OTF2_IO_CREATION_FLAG_NO_CONTROLLING_TERMINAL;
	if (flags & O_NOFOLLOW)
		f |= OTF2_IO_CREATION_FLAG_NO_FOLLOW;
	if (flags & O_PATH)
		f |= OTF2_IO_CREATION_FLAG_PATH;
	return f;
}

static uint32_t status_flags(int flags)
{
	uint32_t f = 0;
	if (flags & O_CLOEXEC)
		f |= OTF2_IO_STATUS_FLAG_CLOSE_ON_EXEC;
	if (flags & O_APPEND)
		f |= OTF2_IO_STATUS_FLAG_APPEND;
	if (flags & O_NONBLOCK)
		f |= OTF2_IO_STATUS_FLAG_NON_BLOCKING;
	if (flags & O_ASYNC)
		f |= OTF2_IO_STATUS_FLAG_ASYNC;
	if ((flags & O_SYNC) == O_SYNC)
		f |= OTF2_IO_STATUS_FLAG_SYNC;
	else if (flags & O_DSYNC)
		f |= OTF2_IO_STATUS_FLAG_DATA_SYNC;
	if (flags & O_DIRECT)
		f |= OTF2_IO_STATUS_FLAG_AVOID_CACHING;
	if (flags & O_NOATIME)
		f |= OTF2_IO_STATUS_FLAG_NO_ACCESS_TIME;
	return f;
}

static bool tracked(int fd)
{
	return fd >= 0 && fd < VT_IOTRACE_FDS;
}

/* The end of handle h: its IoDestroyHandle, then it may be taken again by an open of its
 * file (whose IoCreateHandle comes after this one in time). */
static void destroy(struct vt_io_call *c, uint32_t h)
{
	put(c, 0, VT_REC_IO_DESTROY, 0, h, 0, 0, 0);
	VT_OWN_WORK((vt_mpi_defs_io_free(h), 0));
}

/* fd's handle now is handle (replacing whatever it had; a handle it had is destroyed). */
static void bind_fd(struct vt_io_call *c, int fd, uint32_t handle)
{
	uint32_t old = __atomic_exchange_n(&io.fds[fd], handle + 1, __ATOMIC_ACQ_REL);
	if (old)
		destroy(c, old - 1);
}

/* fd's status flags as OTF2 has them: the open file's (F_GETFL) and its close-on-exec. */
static uint32_t status_of(int fd, int flags)
{
	int fdflags = fcntl(fd, F_GETFD);
	return status_flags(flags) |
	       (fdflags > 0 && (fdflags & FD_CLOEXEC) ? OTF2_IO_STATUS_FLAG_CLOSE_ON_EXEC : 0);
}

/* The handle of fd; a valid descriptor seen for the first time (stdin, a pipe, one opened
 * before vt started) gets one named as /proc/self/fd says, created now. */
static uint32_t handle_of(struct vt_io_call *c, int fd)
{
	if (!tracked(fd))
		return UINT32_MAX;
	uint32_t h = __atomic_load_n(&io.fds[fd], __ATOMIC_ACQUIRE);
	if (h)
		return h - 1;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return UINT32_MAX;
	char link[32], name[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, name, sizeof(name) - 1);
	if (n < 0)
		snprintf(name, sizeof(name), "fd %d", fd);
	else
		name[n] = 0;
	uint32_t id = VT_OWN_WORK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, name));
	if (id == UINT32_MAX)
		return id;
	uint32_t expected = 0;
	if (!__atomic_compare_exchange_n(&io.fds[fd], &expected, id + 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return expected - 1; /* another thread was first: its handle (ours stays unused) */
	put(c, access_mode(flags), VT_REC_IO_CREATE, 0, id, status_of(fd, flags), 0, 0);
	return id;
}

/*
 * The common case of an operation's records: the region's Enter with the operation's Begin
 * in one event, its Complete with the Leave in another (VT_REC_IO_OP_BEGIN, _END: two records
 * each, one reservation and one clock read), when the region is registered and not
 * filtered, within VT_MAX_STACK_DEPTH, and the thread has no synchronous counters.
 * Otherwise, and for a descriptor seen for the first time (its IoCreateHandle goes between),
 * the Enter and Leave through the common path and the operation's events alone.
 */
static bool fast_case(const struct vt_tls *t, uint32_t region, long depth_ok)
{
	return !(region & VT_REGION_FILTERED) && !t->sync && depth_ok;
}
static_assert(UINT32_MAX & VT_REGION_FILTERED, "an unregistered region takes the slow path");

/*
 * The other cases of an operation's beginning: the region's Enter, the descriptor's handle
 * (created when first seen), the Begin if it has one; errno kept (a handle's look-up makes
 * system calls).
 */
static __attribute__((noinline)) bool op_enter_slow(struct vt_io_call *c, enum vt_io_fn fn, int fd,
						    enum vt_io_mode mode, uint64_t bytes)
{
	struct vt_tls *t = recording();
	if (!t)
		return false;
	int saved = errno;
	uint32_t region = region_of(fn);
	*c = (struct vt_io_call){t, fn, UINT32_MAX, 0, NULL, NULL};
	vt_thread_enter(t, region);
	c->handle = handle_of(c, fd);
	if (c->handle != UINT32_MAX)
		put(c, region, VT_REC_IO_OP_BEGIN, bytes, c->handle,
		    (uint32_t)mode | VT_REC_IO_OP_ALONE, 0, 0);
	errno = saved;
	return true;
}

/*
 * The fast paths below check everything before they write and make no call of their own
 * (every other case goes to the slow ones whole; only the record layer's drain of a signal
 * handler's records may follow), and touch no errno: they make no system call, and the
 * record layer's flush keeps errno itself. An operation is one event of three records
 * (VT_REC_IO_OP_BEGIN: the encoder writes the Enter, Begin, Complete and Leave of it),
 * reserved and stamped at the beginning and completed in place at the end: its end's time
 * and result, when the thread recorded nothing since (a signal handler's events, a flush:
 * then the end is an event of its own, as in the slow path).
 */
/*
 * The fast beginning: the operation's event reserved, stamped and committed, or NULL (nothing
 * written: the slow path's case). *h is the descriptor's handle + 1, *end the end of the
 * half the event is in.
 */
static inline __attribute__((always_inline)) struct vt_rec *
begin_fast(struct vt_tls *t, enum vt_io_fn fn, int fd, enum vt_io_mode mode, uint64_t bytes,
	   uint32_t *h, struct vt_rec **end)
{
	uint32_t region = __atomic_load_n(&io.regions[fn].handle, __ATOMIC_ACQUIRE) - 1;
	*h = tracked(fd) ? __atomic_load_n(&io.fds[fd], __ATOMIC_ACQUIRE) : 0;
	/* As recording() says, a registered region (an unregistered one, UINT32_MAX, has the
	 * filtered bit) and a descriptor with a handle, stamped by the TSC (the other clock's
	 * call would need a frame here); a thread that does not record yet has no room. */
	if (vt_unlikely(io_tls.in || t->busy || vt_core_state() != VT_STATE_ON || !*h ||
			!fast_case(t, region, t->depth < vt_max_depth) || !vt_clock_tsc))
		return NULL;
	struct vt_rec *p = vt_buf_reserve_fast(t, 3);
	if (vt_unlikely(p == NULL))
		return NULL;
	io_tls.in = true;
	*end = t->end;
	t->depth++;
	union vt_rec_payload *pl = (union vt_rec_payload *)p;
	p[0] = (struct vt_rec){__rdtsc(), region, VT_REC_IO_OP_BEGIN};
	pl[1].io = (struct vt_rec_io){bytes, *h - 1, (uint32_t)mode};
	pl[2].io_end = (struct vt_rec_io_end){0, 0};
	vt_buf_commit(t, p, 3);
	return p;
}

/*
 * The fast end: the operation's end written into its event p (in the half that ends at end),
 * when the thread recorded nothing since; false otherwise (nothing written: the slow path's
 * case).
 */
static inline __attribute__((always_inline)) bool end_fast(struct vt_tls *t, struct vt_rec *p,
							   const struct vt_rec *end, int64_t result)
{
	/* The operation's event is the thread's last one still, in the half being filled (a
	 * flush, even one that left the position right after the event, changed the half):
	 * its end goes into it, as a producer's records do (a signal handler's events now wait
	 * in the side area). */
	if (vt_unlikely(t->nest))
		return false;
	t->nest = 1;
	vt_signal_fence();
	if (vt_unlikely(t->pos != p + 3 || t->end != end)) {
		vt_signal_fence();
		t->nest = 0;
		return false;
	}
	struct vt_rec_io_end *e = &((union vt_rec_payload *)p)[2].io_end;
	t->depth--;
	e->result = result;
	/* Release: a finalising thread that sees the time sees the result. */
	__atomic_store_n(&e->ts, __rdtsc(), __ATOMIC_RELEASE);
	vt_signal_fence();
	t->nest = 0;
	vt_signal_fence();
	io_tls.in = false;
	if (vt_unlikely(__atomic_load_n(&t->side_n, __ATOMIC_RELAXED)))
		vt_buf_drain(t);
	return true;
}

bool vt_iotrace_op_enter(struct vt_io_call *c, enum vt_io_fn fn, int fd, enum vt_io_mode mode,
			 uint64_t bytes)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	struct vt_rec *end;
	struct vt_rec *p = begin_fast(t, fn, fd, mode, bytes, &h, &end);
	if (vt_likely(p != NULL)) {
		/* (c->thread and c->op stay unset: the end sets the thread where it needs it, a
		 * POSIX operation has no id of its own.) */
		c->fn = fn;
		c->handle = h - 1;
		c->rec = p;
		c->end = end;
		return true;
	}
	return op_enter_slow(c, fn, fd, mode, bytes);
}

/* The other cases of an operation's end: each event through the common path. vt-ctl off
 * while the thread waited in the call (armed, its next event would pause it): the end and
 * the Leave are written first, the pause follows them. */
static __attribute__((noinline)) void op_end_slow(struct vt_io_call *c, int64_t result)
{
	int saved = errno;
	c->thread = &vt_tls; /* the fast beginning left it unset: the same thread */
	bool lifted = vt_thread_ctl_lift(c->thread);
	/* Registered at the operation's beginning. */
	uint32_t region = io.regions[c->fn].handle - 1;
	if (c->handle != UINT32_MAX)
		put(c, region, VT_REC_IO_OP_END, result >= 0 ? (uint64_t)result : 0, c->handle,
		    VT_REC_IO_OP_ALONE | (result >= 0 ? 0 : VT_REC_IO_OP_FAILED), 0, 0);
	finish(c);
	if (lifted)
		vt_thread_ctl_land(c->thread);
	errno = saved;
}

void vt_iotrace_op_end(struct vt_io_call *c, int64_t result, int err)
{
	(void)err;
	if (vt_likely(c->rec != NULL && end_fast(&vt_tls, c->rec, c->end, result)))
		return;
	op_end_slow(c, result);
}

/* The mode of rw's functions (read, write) or prw's (pread, pwrite and their 64 forms). */
static inline __attribute__((always_inline)) enum vt_io_mode mode_of(enum vt_io_fn fn, bool has_off)
{
	bool w = has_off ? fn == VT_IO_PWRITE || fn == VT_IO_PWRITE64 : fn == VT_IO_WRITE;
	return w ? VT_IO_MODE_WRITE : VT_IO_MODE_READ;
}

/* The cases of rw and prw the fast beginning does not take: the beginning, the call and the
 * end, each through the common path (or the call alone, when it is not recorded). */
static __attribute__((noinline)) ssize_t rw_slow(int fd, void *buf, size_t n, int64_t off,
						 void *real, enum vt_io_fn fn, bool has_off)
{
	struct vt_io_call c;
	bool rec = op_enter_slow(&c, fn, fd, mode_of(fn, has_off), n);
	ssize_t r =
	    has_off ? ((vt_io_prw_fn)real)(fd, buf, n, off) : ((vt_io_rw_fn)real)(fd, buf, n);
	if (rec)
		vt_iotrace_op_end(&c, r, 0);
	return r;
}

/*
 * read, write (rw) and their positioned forms (prw) whole: one frame for the beginning, the
 * call and the end, the call's state in registers. The end's slow path needs the handle and
 * the function: they are in the call's state too.
 */
static inline __attribute__((always_inline)) ssize_t
rw_call(int fd, void *buf, size_t n, int64_t off, void *real, enum vt_io_fn fn, bool has_off)
{
	struct vt_tls *t = &vt_tls;
	uint32_t h;
	struct vt_rec *end;
	struct vt_rec *p = begin_fast(t, fn, fd, mode_of(fn, has_off), n, &h, &end);
	if (vt_unlikely(p == NULL))
		return rw_slow(fd, buf, n, off, real, fn, has_off);
	ssize_t r =
	    has_off ? ((vt_io_prw_fn)real)(fd, buf, n, off) : ((vt_io_rw_fn)real)(fd, buf, n);
	if (vt_likely(end_fast(t, p, end, r)))
		return r;
	struct vt_io_call c = {t, fn, h - 1, 0, p, end};
	op_end_slow(&c, r);
	return r;
}

ssize_t vt_iotrace_rw(int fd, void *buf, size_t n, vt_io_rw_fn real, enum vt_io_fn fn)
{
	return rw_call(fd, buf, n, 0, (void *)real, fn, false);
}

ssize_t vt_iotrace_prw(int fd, void *buf, size_t n, int64_t off, vt_io_prw_fn real,
		       enum vt_io_fn fn)
{
	return rw_call(fd, buf, n, off, (void *)real, fn, true);
}

void vt_iotrace_opened(struct vt_io_call *c, int fd, const char *path, int flags)
{
	if (tracked(fd)) {
		uint32_t id =
		    VT_OWN_WORK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, path ? path : ""));
		if (id != UINT32_MAX) {
			bind_fd(c, fd, id);
			put(c, access_mode(flags), VT_REC_IO_CREATE, creation_flags(flags), id,
			    status_flags(flags), 0, 0);
		}
	}
	finish(c);
}

void vt_iotrace_closing(struct vt_io_call *c, int fd)
{
	uint32_t h = tracked(fd) ? __atomic_load_n(&io.fds[fd], __ATOMIC_ACQUIRE) : 0;
	c->handle = h ? h - 1 : UINT32_MAX;
}

void vt_iotrace_closed(struct vt_io_call *c, int fd, int ret)
{
	uint32_t expected = c->handle + 1;
	/* The entry is cleared only if it still holds the handle closed: an open of the same
	 * number on another thread right after the close keeps its own. */
	if (ret == 0 && c->handle != UINT32_MAX &&
	    __atomic_compare_exchange_n(&io.fds[fd], &expected, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		destroy(c, c->handle);
	finish(c);
}

void vt_iotrace_seeked(struct vt_io_call *c, int fd, int64_t offset, int whence, int64_t result)
{
	uint32_t h = handle_of(c, fd);
	uint32_t option = whence == SEEK_SET	? OTF2_IO_SEEK_FROM_START
			  : whence == SEEK_CUR	? OTF2_IO_SEEK_FROM_CURRENT
			  : whence == SEEK_END	? OTF2_IO_SEEK_FROM_END
			  : whence == SEEK_DATA ? OTF2_IO_SEEK_DATA
						: OTF2_IO_SEEK_HOLE;
	if (h != UINT32_MAX && result >= 0)
		put(c, option, VT_REC_IO_SEEK, (uint64_t)offset, h, 0, (uint64_t)result, 0);
	finish(c);
}

void vt_iotrace_duped(struct vt_io_call *c, int oldfd, int newfd, int flags)
{
	uint32_t old = newfd >= 0 && newfd != oldfd ? handle_of(c, oldfd) : UINT32_MAX;
	uint32_t id =
	    old != UINT32_MAX && tracked(newfd) ? VT_OWN_WORK(vt_mpi_defs_io_dup(old)) : UINT32_MAX;
	if (id != UINT32_MAX) {
		bind_fd(c, newfd, id);
		put(c, 0, VT_REC_IO_DUP, id, old, status_flags(flags), 0, 0);
	} else if (newfd >= 0 && newfd != oldfd && tracked(newfd)) {
		/* A descriptor dup2 replaced with one vt has no handle for: its handle ends. */
		uint32_t gone = __atomic_exchange_n(&io.fds[newfd], 0, __ATOMIC_ACQ_REL);
		if (gone)
			destroy(c, gone - 1);
	}
	finish(c);
}

/* For io/vt_stdio.c: a stream's calls are recorded the same way, inside the same "in a
 * recorded call" state, on the handle of its descriptor. */
struct vt_tls *vt_iotrace_begin(void)
{
	return recording();
}

void vt_iotrace_end(void)
{
	io_tls.in = false;
}

uint64_t vt_iotrace_next_op(void)
{
	/* Apart from the POSIX operations' ids, which the encoder counts per location from 1
	 * (VT_REC_IO_OP_BEGIN): a stream's are in the upper half. */
	return (1ull << 63) | ++io_tls.stream_ops;
}

uint32_t vt_iotrace_fd_handle(struct vt_io_call *c, int fd)
{
	return handle_of(c, fd);
}

uint32_t vt_iotrace_fd_open(struct vt_io_call *c, int fd, const char *path, int flags)
{
	if (!tracked(fd))
		return UINT32_MAX;
	uint32_t id = VT_OWN_WORK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, path ? path : ""));
	if (id != UINT32_MAX) {
		bind_fd(c, fd, id);
		vt_iotrace_put_create(c, id, flags, true);
	}
	return id;
}

void vt_iotrace_fd_gone(struct vt_io_call *c, int fd)
{
	uint32_t gone = tracked(fd) ? __atomic_exchange_n(&io.fds[fd], 0, __ATOMIC_ACQ_REL) : 0;
	if (gone)
		destroy(c, gone - 1);
}

void vt_iotrace_put_create(struct vt_io_call *c, uint32_t id, int flags, bool created)
{
	put(c, access_mode(flags), VT_REC_IO_CREATE, created ? creation_flags(flags) : 0, id,
	    status_flags(flags), 0, 0);
}

void vt_iotrace_status(struct vt_io_call *c, int fd, int ret)
{
	int saved = errno;
	int flags = ret != -1 ? fcntl(fd, F_GETFL) : -1;
	uint32_t h = flags >= 0 ? handle_of(c, fd) : UINT32_MAX;
	if (h != UINT32_MAX)
		put(c, 0, VT_REC_IO_STATUS, 0, h, status_of(fd, flags), 0, 0);
	finish(c);
	errno = saved;
}

/* A file deleted by the path a handle of it was opened with (relative to the working
 * directory or absolute, as the open had it): its IoDeleteFile. Other paths, and
 * directories, are not known as files: the call's region alone. */
void vt_iotrace_unlinked(struct vt_io_call *c, int dirfd, const char *path, int flags, int ret)
{
	if (ret == 0 && path && (dirfd == AT_FDCWD || path[0] == '/') && !(flags & AT_REMOVEDIR)) {
		uint32_t id = VT_OWN_WORK(vt_mpi_defs_io_file(VT_IO_PARADIGM_POSIX, path));
		if (id != UINT32_MAX)
			put(c, 0, VT_REC_IO_DELETE, 0, id, 0, 0, 0);
	}
	finish(c);
}
