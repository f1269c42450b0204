/* SPDX-License-Identifier: BSD-3-Clause */
/* The control channel of a running program (vt-ctl): registration, commands, replies. */
#ifndef VT_CTL_H
#define VT_CTL_H

/* Registers the process in the user's control directory and installs the handler of
 * VT_CTL_SIGNAL (vt_init, once tracing is on); the channel stays off, with one line, when the
 * directory is unsafe or the program handles the signal itself. */
void vt_ctl_start(void);

#include <signal.h>

/* The program sets its own disposition of sig (interposed sigaction): when sig is the
 * channel's, the channel ends (registration removed, one line at VT_VERBOSE=2), so that
 * vt-ctl says the process has none rather than signal the program's handler. */
void vt_ctl_signal_set(int sig, const struct sigaction *act);

/* MPI mode: the archive is named now (MPI_Init); the registration says where. */
void vt_ctl_archive_named(void);

/* Removes the registration and stops the control thread (every path that writes a trace,
 * partial ones included). Safe to call twice and in a process that never registered. */
void vt_ctl_stop(void);

/*
 * A snapshot of the running program, asked for by why ("signal" for a bare signal): ring
 * mode's (lifecycle/vt_snapshot.h), taken on the control thread; 0 when its writing process
 * started, -1 with one log line saying why not (in file mode: refused).
 */
int vt_snapshot_request(const char *why);

#endif
