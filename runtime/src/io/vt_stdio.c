/* SPDX-License-Identifier: BSD-3-Clause */
/* ISO C stdio calls recorded as regions with OTF2 I/O events on an ISOC handle per stream. */
#include "io/vt_stdio.h"
#include "base/vt_state.h"
#include "defs/vt_mpi_defs.h"
#include "io/vt_iotrace.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"
#include "vt/vt_inst.h"

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* An entry of streams taken by a thread that changes it. */
#define BUSY UINT32_MAX

/*
 * streams: per descriptor, the stream recorded on it and its handle + 1 (0: none), changed
 * by the thread that holds the entry (h BUSY: taken; others wait for it). A stream is
 * looked up by its descriptor (fileno) and known only if the entry names it: an entry left
 * by a stream that ended unseen is replaced. regions: each function's descriptor.
 */
static struct {
	struct {
		FILE *f;
		uint32_t h;
	} streams[VT_IOTRACE_FDS];
	struct vt_inst_desc regions[VT_STDIO_FN_MAX];
} sio;

void vt_stdio_init(void)
{
	for (int fn = 0; fn < VT_STDIO_FN_MAX; fn++)
		sio.regions[fn] = (struct vt_inst_desc){
		    .abi = VT_INST_ABI,
		    .name = vt_stdio_names[fn],
		    .reserved = (uint32_t)OTF2_PARADIGM_NONE << 8 | OTF2_REGION_ROLE_FILE_IO,
		};
}

static uint32_t region_of(uint32_t fn)
{
	return vt_thread_desc_region(&sio.regions[fn]);
}

static void put(struct vt_io_call *c, uint32_t head, uint32_t kind, uint64_t value, uint32_t handle,
		uint64_t received, uint64_t id)
{
	union vt_rec_payload p[2] = {{.io = {value, handle, 0}}, {.nbc = {received, id}}};
	vt_thread_put_event(c->thread, head, kind, p, vt_rec_kinds[kind].payloads);
}

/* The open flags a mode string of fopen means. */
static int mode_flags(const char *mode)
{
	int flags = 0;
	switch (mode ? mode[0] : 'r') {
	case 'w':
		flags = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	case 'a':
		flags = O_WRONLY | O_CREAT | O_APPEND;
		break;
	default:
		flags = O_RDONLY;
	}
	for (const char *m = mode ? mode + 1 : ""; *m && *m != ','; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
	}
	return flags;
}

/* The stream's descriptor, if vt can keep a handle for it; else -1. */
static int stream_fd(FILE *f)
{
	int fd = f ? fileno(f) : -1;
	return fd >= 0 && fd < VT_IOTRACE_FDS ? fd : -1;
}

/* The handle of f on fd as the entry says, without waiting; UINT32_MAX: not known. */
static uint32_t known(FILE *f, int fd)
{
	uint32_t h = __atomic_load_n(&sio.streams[fd].h, __ATOMIC_ACQUIRE);
	if (h == 0 || h == BUSY || __atomic_load_n(&sio.streams[fd].f, __ATOMIC_RELAXED) != f)
		return UINT32_MAX;
	return h - 1;
}

/* Takes fd's entry: its handle + 1 before. */
static uint32_t take(int fd)
{
	for (;;) {
		uint32_t h = __atomic_load_n(&sio.streams[fd].h, __ATOMIC_ACQUIRE);
		if (h != BUSY && __atomic_compare_exchange_n(&sio.streams[fd].h, &h, BUSY, false,
							     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return h;
		sched_yield();
	}
}

static void give(int fd, FILE *f, uint32_t h)
{
	__atomic_store_n(&sio.streams[fd].f, f, __ATOMIC_RELAXED);
	__atomic_store_n(&sio.streams[fd].h, h, __ATOMIC_RELEASE);
}

static void destroy(struct vt_io_call *c, uint32_t h)
{
	put(c, 0, VT_REC_IO_DESTROY, 0, h, 0, 0);
	VT_OWN_WORK((vt_mpi_defs_io_free(h), 0));
}

/*
 * Gives stream f on fd a new handle named name, over the POSIX handle parent, and records
 * its creation (with open flags; created: they are fopen's, with their creation flags); a
 * handle the entry had (a stream that ended unseen) ends first. The handle, or UINT32_MAX.
 */
static uint32_t define(struct vt_io_call *c, FILE *f, int fd, const char *name, uint32_t parent,
		       int flags, bool created)
{
	uint32_t old = take(fd);
	if (old && __atomic_load_n(&sio.streams[fd].f, __ATOMIC_RELAXED) == f && !created) {
		give(fd, f, old); /* another thread was first */
		return old - 1;
	}
	if (old)
		destroy(c, old - 1);
	uint32_t id = VT_OWN_WORK(vt_mpi_defs_io_child(VT_IO_PARADIGM_ISOC, name, parent));
	if (id != UINT32_MAX)
		vt_iotrace_put_create(c, id, flags, created);
	give(fd, id != UINT32_MAX ? f : NULL, id + 1);
	return id;
}

/* The name of what fd is, as /proc/self/fd says. */
static const char *fd_name(int fd, char *buf, size_t len)
{
	char link[32];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, len - 1);
	if (n < 0)
		snprintf(buf, len, "fd %d", fd);
	else
		buf[n] = 0;
	return buf;
}

/* The handle of f, created at its first recorded use (stdin, stdout, stderr, a stream opened
 * before vt started); UINT32_MAX: none. */
static uint32_t handle_of(struct vt_io_call *c, FILE *f)
{
	int fd = stream_fd(f);
	if (fd < 0)
		return UINT32_MAX;
	uint32_t h = known(f, fd);
	if (h != UINT32_MAX)
		return h;
	char buf[4096];
	const char *name = f == stdin	 ? "stdin"
			   : f == stdout ? "stdout"
			   : f == stderr ? "stderr"
					 : fd_name(fd, buf, sizeof(buf));
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return UINT32_MAX;
	return define(c, f, fd, name, vt_iotrace_fd_handle(c, fd), flags, false);
}

bool vt_stdio_enter(struct vt_io_call *c, enum vt_stdio_fn fn)
{
	struct vt_tls *t = vt_iotrace_begin();
	if (!t)
		return false;
	int saved = errno;
	*c = (struct vt_io_call){t, fn, UINT32_MAX, UINT64_MAX, NULL, NULL};
	vt_thread_enter(t, region_of(fn));
	errno = saved;
	return true;
}

static void finish(struct vt_io_call *c)
{
	vt_thread_leave(c->thread, region_of(c->fn));
	vt_iotrace_end();
}

void vt_stdio_leave(struct vt_io_call *c)
{
	int saved = errno;
	finish(c);
	errno = saved;
}

/*
 * As for POSIX operations (io/vt_iotrace.c): on a stream whose handle is known, the region's
 * Enter with the operation's Begin, and its Complete with the Leave, each pair in one
 * reservation at one time (the region registered and not filtered, within
 * VT_MAX_STACK_DEPTH, no synchronous counters on the thread); otherwise one event after the
 * other.
 */
static bool fast_case(const struct vt_tls *t, uint32_t region, long depth_ok)
{
	return !(region & VT_REGION_FILTERED) && !t->sync && depth_ok;
}

bool vt_stdio_op_enter(struct vt_io_call *c, enum vt_stdio_fn fn, FILE *f, enum vt_io_mode mode,
		       uint64_t bytes)
{
	struct vt_tls *t = vt_iotrace_begin();
	if (!t)
		return false;
	int saved = errno;
	*c = (struct vt_io_call){t, fn, UINT32_MAX, 0, NULL, NULL};
	uint32_t region = region_of(fn);
	uint32_t head = (uint32_t)mode | (uint32_t)OTF2_IO_OPERATION_FLAG_NONE << 8;
	int fd = stream_fd(f);
	uint32_t h = fd >= 0 ? known(f, fd) : UINT32_MAX;
	if (h != UINT32_MAX && fast_case(t, region, t->depth < vt_max_depth)) {
		c->handle = h;
		c->op = vt_iotrace_next_op();
		t->depth++;
		struct vt_rec *p = vt_buf_reserve(t, 4);
		if (p) {
			uint64_t now = vt_clock_now();
			p[0] = (struct vt_rec){now, region, VT_REC_ENTER};
			p[1] = (struct vt_rec){now, head, VT_REC_IO_BEGIN};
			union vt_rec_payload *pl = (union vt_rec_payload *)(p + 2);
			pl[0].io = (struct vt_rec_io){bytes, c->handle, 0};
			pl[1].nbc = (struct vt_rec_nbc){0, c->op};
			vt_buf_commit(t, p, 4);
		}
		errno = saved;
		return true;
	}
	vt_thread_enter(t, region);
	c->handle = handle_of(c, f);
	if (c->handle != UINT32_MAX) {
		c->op = vt_iotrace_next_op();
		put(c, head, VT_REC_IO_BEGIN, bytes, c->handle, 0, c->op);
	}
	errno = saved;
	return true;
}

void vt_stdio_op_end(struct vt_io_call *c, int64_t result, int err)
{
	(void)err;
	struct vt_tls *t = c->thread;
	uint32_t region = region_of(c->fn);
	if (c->handle != UINT32_MAX && fast_case(t, region, t->depth <= vt_max_depth)) {
		bool done = result >= 0;
		unsigned n = done ? 4 : 3;
		t->depth--;
		struct vt_rec *p = vt_buf_reserve(t, n);
		if (p) {
			uint64_t now = vt_clock_now();
			union vt_rec_payload *pl = (union vt_rec_payload *)(p + 1);
			if (done) {
				p[0] = (struct vt_rec){now, 0, VT_REC_IO_COMPLETE};
				pl[0].io = (struct vt_rec_io){(uint64_t)result, c->handle, 0};
				pl[1].nbc = (struct vt_rec_nbc){0, c->op};
			} else {
				p[0] = (struct vt_rec){now, 0, VT_REC_IO_CANCELLED};
				pl[0].io = (struct vt_rec_io){c->op, c->handle, 0};
			}
			p[n - 1] = (struct vt_rec){now, region, VT_REC_LEAVE};
			vt_buf_commit(t, p, n);
		}
		vt_iotrace_end();
		return;
	}
	if (c->handle != UINT32_MAX) {
		if (result >= 0)
			put(c, 0, VT_REC_IO_COMPLETE, (uint64_t)result, c->handle, 0, c->op);
		else
			put(c, 0, VT_REC_IO_CANCELLED, c->op, c->handle, 0, 0);
	}
	finish(c);
}

void vt_stdio_closing(struct vt_io_call *c, FILE *f)
{
	int fd = stream_fd(f);
	c->op = fd < 0 ? UINT64_MAX : (uint64_t)fd;
	c->handle = fd < 0 ? UINT32_MAX : known(f, fd);
}

/* The stream closing said ends (whatever fclose returned: the stream is gone), and with it
 * its descriptor's POSIX handle. */
static void end_stream(struct vt_io_call *c)
{
	if (c->op == UINT64_MAX)
		return;
	int fd = (int)c->op;
	if (c->handle != UINT32_MAX) {
		uint32_t old = take(fd);
		if (old == c->handle + 1) {
			destroy(c, c->handle);
			give(fd, NULL, 0);
		} else {
			give(fd, __atomic_load_n(&sio.streams[fd].f, __ATOMIC_RELAXED), old);
		}
	}
	vt_iotrace_fd_gone(c, fd);
	c->op = UINT64_MAX;
	c->handle = UINT32_MAX;
}

void vt_stdio_closed(struct vt_io_call *c, int ret)
{
	(void)ret;
	int saved = errno;
	end_stream(c);
	finish(c);
	errno = saved;
}

void vt_stdio_opened(struct vt_io_call *c, FILE *f, const char *path, const char *mode)
{
	int saved = errno;
	end_stream(c); /* freopen's stream as it was */
	int fd = stream_fd(f);
	if (fd >= 0) {
		char buf[4096];
		int flags = path ? mode_flags(mode) : fcntl(fd, F_GETFL);
		uint32_t parent =
		    path ? vt_iotrace_fd_open(c, fd, path, flags) : vt_iotrace_fd_handle(c, fd);
		if (flags >= 0)
			define(c, f, fd, path ? path : fd_name(fd, buf, sizeof(buf)), parent, flags,
			       true);
	}
	finish(c);
	errno = saved;
}

void vt_stdio_seeked(struct vt_io_call *c, FILE *f, int64_t offset, int whence, int64_t result)
{
	int saved = errno;
	uint32_t h = result >= 0 ? handle_of(c, f) : UINT32_MAX;
	uint32_t option = whence == SEEK_SET   ? OTF2_IO_SEEK_FROM_START
			  : whence == SEEK_CUR ? OTF2_IO_SEEK_FROM_CURRENT
					       : OTF2_IO_SEEK_FROM_END;
	if (h != UINT32_MAX)
		put(c, option, VT_REC_IO_SEEK, (uint64_t)offset, h, (uint64_t)result, 0);
	finish(c);
	errno = saved;
}
