/* SPDX-License-Identifier: BSD-3-Clause */
/* Call-path sampling: a timer signal per thread, its stack unwound and recorded. */
/*
 * Call-path sampling (VT_SAMPLING): a timer per thread sends it a signal every period; the
 * handler unwinds the interrupted stack (VT_SAMPLING_UNWIND: vt's own CFI unwinder,
 * vt_unwind.h; libunwind; or frame pointers) and records the frames
 * as one VT_REC_SAMPLE event through the signal-safe reservation. The encoder turns frames
 * into calling contexts (vt_callctx.h).
 */
#ifndef VT_SAMPLE_H
#define VT_SAMPLE_H

#include "base/vt_subsystem.h"

extern const struct vt_subsystem vt_sample_subsystem;

/* Whether a thread the program starts gets its location at once (interpose/vt_pthread.c). */
bool vt_sample_wants_threads(void);

#endif
