/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's own async-signal-safe stack unwinder (DWARF CFI) for the sampling handler. */
/*
 * vt's own stack unwinder for signal handlers: DWARF call-frame information (.eh_frame, found
 * through .eh_frame_hdr), objects found with glibc's _dl_find_object, which takes no lock and
 * is async-signal-safe. Nothing here allocates, locks or calls into libc.
 *
 * Why not libunwind in the handler: its local unwinding takes its own mutex and the loader's
 * lock (dl_iterate_phdr) on every cache miss, and a thread holding the loader's lock (in
 * dlopen, as Open MPI's MPI_Init does dozens of times) interrupted by a sample then waits for
 * a thread that waits for it. That deadlock was seen under mpirun -np 4. libunwind stays
 * available (VT_SAMPLING_UNWIND=libunwind) for code whose unwind data only it finds.
 */
#ifndef VT_UNWIND_H
#define VT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

/* Per thread: where stack reads are allowed, and a cache of simple frame rules. */
struct vt_unwind_cache;
struct vt_unwind_thread {
	uintptr_t stack_lo, stack_hi;
	struct vt_unwind_cache *cache; /* NULL: none (then every frame is decoded) */
};

/* Sets up the calling thread's state (outside any handler): stack bounds and cache. */
void vt_unwind_thread_init(struct vt_unwind_thread *u);
void vt_unwind_thread_fini(struct vt_unwind_thread *u);

/*
 * The stack of the interrupted context uc, innermost first, into f (room for max): the
 * interrupted instruction, then each caller's call instruction (return address - 1), or an
 * interrupted instruction again above a signal frame. *cut: the stack went on past max.
 * Returns the frames found; the walk ends quietly where unwind data is missing or reads
 * would leave the thread's stack.
 */
unsigned vt_unwind_cfi(const ucontext_t *uc, const struct vt_unwind_thread *u, uint64_t *f,
		       unsigned max, bool *cut);

#endif
