/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX I/O in OTF2's I/O model: the hooks interpose/vt_io_posix.c reports to (VT_IOTRACE). */
#ifndef VT_IOTRACE_H
#define VT_IOTRACE_H

#include "interpose/vt_io.h"

/*
 * A handle (paradigm POSIX, named by the path the program opened) per successful open, dup
 * or descriptor first seen in an operation (stdin, a pipe, a socket: named as
 * /proc/self/fd says); each call a region (paradigm NONE, role FILE_IO, unlink and rename
 * FILE_IO_METADATA) around its IoCreateHandle, IoOperationBegin/Complete (a failed one:
 * IoOperationCancelled, as MPI-IO's), IoSeek, IoDuplicateHandle, IoDestroyHandle. A handle
 * destroyed is taken again by the next open of its file: a file has as many handles as it
 * had descriptors open at once.
 * Descriptors at or above VT_IOTRACE_FDS have no handle: their calls are regions only.
 */
#define VT_IOTRACE_FDS 65536

/* Names the regions (once, before the hooks are set). */
void vt_iotrace_init(void);

/* The hooks of struct vt_io_hooks (see interpose/vt_io.h). */
bool vt_iotrace_enter(struct vt_io_call *c, enum vt_io_fn fn);
bool vt_iotrace_op_enter(struct vt_io_call *c, enum vt_io_fn fn, int fd, enum vt_io_mode mode,
			 uint64_t bytes);
void vt_iotrace_op_end(struct vt_io_call *c, int64_t result, int err);
void vt_iotrace_opened(struct vt_io_call *c, int fd, const char *path, int flags);
void vt_iotrace_closing(struct vt_io_call *c, int fd);
void vt_iotrace_closed(struct vt_io_call *c, int fd, int ret);
void vt_iotrace_seeked(struct vt_io_call *c, int fd, int64_t offset, int whence, int64_t result);
void vt_iotrace_duped(struct vt_io_call *c, int oldfd, int newfd, int flags);
void vt_iotrace_leave(struct vt_io_call *c);
void vt_iotrace_status(struct vt_io_call *c, int fd, int ret);
void vt_iotrace_unlinked(struct vt_io_call *c, int dirfd, const char *path, int flags, int ret);
ssize_t vt_iotrace_rw(int fd, void *buf, size_t n, vt_io_rw_fn real, enum vt_io_fn fn);
ssize_t vt_iotrace_prw(int fd, void *buf, size_t n, int64_t off, vt_io_prw_fn real,
		       enum vt_io_fn fn);

/*
 * For the streams (io/vt_stdio.c), whose calls are recorded in the same way and state:
 * begin is enter's test (NULL: not recorded; else the thread, inside a recorded call until
 * end); next_op a matching id of the thread. fd_handle is fd's handle (created when first
 * seen), fd_open gives fd a new one on path (opened by libc inside fopen: no POSIX call of
 * it is seen), fd_gone ends fd's (closed inside fclose). put_create records handle id's
 * IoCreateHandle with the access and status of open flags (and their creation flags).
 */
struct vt_tls;
struct vt_tls *vt_iotrace_begin(void);
void vt_iotrace_end(void);
uint64_t vt_iotrace_next_op(void);
uint32_t vt_iotrace_fd_handle(struct vt_io_call *c, int fd);
uint32_t vt_iotrace_fd_open(struct vt_io_call *c, int fd, const char *path, int flags);
void vt_iotrace_fd_gone(struct vt_io_call *c, int fd);
void vt_iotrace_put_create(struct vt_io_call *c, uint32_t id, int flags, bool created);

#endif
