/* SPDX-License-Identifier: BSD-3-Clause */
/* ISO C streams in OTF2's I/O model: the hooks interpose/vt_io_stdio.c reports to (VT_IOTRACE). */
#ifndef VT_STDIO_REC_H
#define VT_STDIO_REC_H

#include "interpose/vt_stdio.h"

/*
 * A handle of paradigm ISOC per stream, whose parent is the POSIX handle of the stream's
 * descriptor (io/vt_iotrace.c): fopen's is named by its path, fdopen's as its descriptor's,
 * stdin, stdout and stderr by those names, created at their first recorded use (as is a
 * stream opened before vt started, named as /proc/self/fd says). The stream's descriptor,
 * opened and closed by libc inside fopen and fclose where no POSIX call of it is seen, gets
 * and loses its POSIX handle with the stream. Each call is a region (paradigm NONE, role
 * FILE_IO) around its IoOperationBegin/Complete (Cancelled: failed) on the stream's handle,
 * IoSeek (fseek, rewind), IoCreateHandle/IoDestroyHandle. A stream without a descriptor
 * (fmemopen, open_memstream) has no handle: its calls are regions only. What libc does
 * below a recorded call is not recorded again.
 */

/* Names the regions (once, before the hooks are set). */
void vt_stdio_init(void);

/* The hooks of struct vt_stdio_hooks (see interpose/vt_stdio.h). */
bool vt_stdio_enter(struct vt_io_call *c, enum vt_stdio_fn fn);
bool vt_stdio_op_enter(struct vt_io_call *c, enum vt_stdio_fn fn, FILE *f, enum vt_io_mode mode,
		       uint64_t bytes);
void vt_stdio_op_end(struct vt_io_call *c, int64_t result, int err);
void vt_stdio_opened(struct vt_io_call *c, FILE *f, const char *path, const char *mode);
void vt_stdio_closing(struct vt_io_call *c, FILE *f);
void vt_stdio_closed(struct vt_io_call *c, int ret);
void vt_stdio_seeked(struct vt_io_call *c, FILE *f, int64_t offset, int whence, int64_t result);
void vt_stdio_leave(struct vt_io_call *c);

#endif
