/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's lifecycle: init at load (or first event), finalize at exit, and the global state. */
#ifndef VT_CORE_H
#define VT_CORE_H

#include "base/vt_state.h"

#include <stdint.h>

/* Initialises vt once; safe to call from any thread and from early constructors. */
void vt_init(void);

/* Writes the trace; runs once (atexit, exec, or MPI_Finalize in MPI mode). */
void vt_finalize(void);

/* MPI mode, a rank that ends without the others (MPI_Abort, a terminating signal; why says
 * which): writes its own locations into an archive of its own, without MPI; runs once, as
 * vt_finalize. */
void vt_finalize_alone(const char *why);

/* In the process a ring's snapshot forked (vt_snapshot.c, after vt_otf2_open_snapshot):
 * writes every location's window as vt_finalize would, an MPI rank's alone (job NULL; why
 * is said in its line) or together with the other ranks' writers, the group job; end: the
 * trace's end (0: now). */
struct vt_mpi_ops;
void vt_finalize_snapshot(const char *why, const struct vt_mpi_ops *job, uint64_t end);

/* Init failed later (MPI mode: the archive could not be opened): stop recording. */
void vt_core_switch_off(void);

struct vt_mpi_ops;
/* The MPI adapter's operations inside MPI_Finalize, else NULL. */
const struct vt_mpi_ops *vt_mpi_ops(void);
/* Whether MPI_Init has opened the archive. */
int vt_mpi_attached(void);

#endif
