/* SPDX-License-Identifier: BSD-3-Clause */
/* The calling-context tree of samples: code addresses per process, resolved at the end. */
/*
 * The calling contexts of samples: one tree per process of code addresses, built by the
 * encoder from each sample's frames (off the signal handler), resolved to functions and
 * source lines once, when the definitions are written.
 */
#ifndef VT_CALLCTX_H
#define VT_CALLCTX_H

#include "defs/vt_defs.h"

#include <stdint.h>

/* Root of a tree; a node's address 0 is the mark of a cut stack (vt_callctx_path). */
#define VT_CALLCTX_NONE UINT32_MAX

/*
 * The contexts of a stack of n addresses, innermost first (as unwound); out gets their ids
 * outermost first, and the innermost is returned (VT_CALLCTX_NONE when n is 0 or memory ran
 * out). cut: the stack was deeper than what was kept; its outermost kept frame then hangs
 * below a node that says so. out has room for n + 1 ids; *depth gets how many it holds.
 */
uint32_t vt_callctx_path(const uint64_t *frames, uint32_t n, bool cut, uint32_t *out,
			 uint32_t *depth);

/* Contexts so far. */
uint32_t vt_callctx_count(void);

/* What interrupts the program (vt_sample.c): written with the contexts when there are any. */
void vt_callctx_set_generator(const char *name, uint32_t mode, uint64_t period);

/* The process's contexts and its interrupt generator, resolved, as definitions. */
void vt_callctx_put_defs(struct vt_defs_buf *b);

/* Forgets every context (tests; a new archive). */
void vt_callctx_reset(void);

#endif
