/* SPDX-License-Identifier: BSD-3-Clause */
/* What the interposed ISO C stdio calls report, to whom (io/ through the lifecycle). */
#ifndef VT_STDIO_H
#define VT_STDIO_H

#include "interpose/vt_io.h"

#include <stdio.h>

/*
 * The stdio functions vt interposes (interpose/vt_io_stdio.c), in the order of their
 * regions' names (vt_stdio_names). A fortified form (__printf_chk, __fread_chk...) is
 * recorded as the function the program wrote (printf, fread...).
 */
enum vt_stdio_fn {
	VT_STDIO_FOPEN,
	VT_STDIO_FOPEN64,
	VT_STDIO_FDOPEN,
	VT_STDIO_FREOPEN,
	VT_STDIO_FREOPEN64,
	VT_STDIO_FCLOSE,
	VT_STDIO_FREAD,
	VT_STDIO_FWRITE,
	VT_STDIO_FGETS,
	VT_STDIO_FPUTS,
	VT_STDIO_PUTS,
	VT_STDIO_FGETC,
	VT_STDIO_GETC,
	VT_STDIO_GETCHAR,
	VT_STDIO_FPUTC,
	VT_STDIO_PUTC,
	VT_STDIO_PUTCHAR,
	VT_STDIO_PRINTF,
	VT_STDIO_FPRINTF,
	VT_STDIO_VPRINTF,
	VT_STDIO_VFPRINTF,
	VT_STDIO_FSEEK,
	VT_STDIO_FSEEKO,
	VT_STDIO_FSEEKO64,
	VT_STDIO_FTELL,
	VT_STDIO_FTELLO,
	VT_STDIO_FTELLO64,
	VT_STDIO_REWIND,
	VT_STDIO_FFLUSH,
	VT_STDIO_FN_MAX
};

extern const char *const vt_stdio_names[VT_STDIO_FN_MAX];

/* The bytes a formatted output asks for: not known before it is formatted. */
#define VT_STDIO_BYTES_UNKNOWN UINT64_MAX

/*
 * Filled by the lifecycle when VT_IOTRACE=yes and vt records; all NULL otherwise. The same
 * contract as struct vt_io_hooks: enter (or op_enter) says whether the call is recorded,
 * and then the wrapper calls exactly one completing hook after the real call; every hook
 * keeps errno as it found it. A stream is a FILE of the program; f NULL: none.
 */
struct vt_stdio_hooks {
	bool (*enter)(struct vt_io_call *c, enum vt_stdio_fn fn);
	/* A data operation on f of bytes requested (VT_STDIO_BYTES_UNKNOWN: formatted), and
	 * its result: bytes done, or -1 (failed, err). */
	bool (*op_enter)(struct vt_io_call *c, enum vt_stdio_fn fn, FILE *f, enum vt_io_mode mode,
			 uint64_t bytes);
	void (*op_end)(struct vt_io_call *c, int64_t result, int err);
	/* fopen/fdopen/freopen returned f (NULL: failed) for path (NULL: fdopen's descriptor)
	 * with the mode string mode. freopen calls closing first. */
	void (*opened)(struct vt_io_call *c, FILE *f, const char *path, const char *mode);
	/* fclose(f) (and freopen's end of f): before the real call, then fclose's result. */
	void (*closing)(struct vt_io_call *c, FILE *f);
	void (*closed)(struct vt_io_call *c, int ret);
	/* fseek/fseeko/rewind on f: offset, whence, the offset reached (-1: failed). */
	void (*seeked)(struct vt_io_call *c, FILE *f, int64_t offset, int whence, int64_t result);
	/* Any other call returned: its region ends. */
	void (*leave)(struct vt_io_call *c);
};

/* Written by the lifecycle (enter and op_enter last). */
void vt_stdio_set_hooks(const struct vt_stdio_hooks *h);
extern struct vt_stdio_hooks vt_stdio_hooks __attribute__((visibility("hidden")));

#endif
