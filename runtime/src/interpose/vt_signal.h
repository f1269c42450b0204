/* SPDX-License-Identifier: BSD-3-Clause */
/* Terminating signals write the trace before the process ends (vt_signal.c). */
#ifndef VT_SIGNAL_H
#define VT_SIGNAL_H

/* Installs vt's handler for the terminating signals whose disposition is the default one;
 * from then on libvt's sigaction() and signal() keep the program's view (vt_init). */
void vt_signal_init(void);

#include <signal.h>

/* A terminating signal that arrived while vt was busy on the thread, else 0. */
extern volatile sig_atomic_t vt_signal_pending __attribute__((visibility("hidden")));

/* Called where vt leaves its own code on a thread: writes the trace of a signal that
 * arrived meanwhile and ends the process with it. */
void vt_signal_deferred(void);

#endif
