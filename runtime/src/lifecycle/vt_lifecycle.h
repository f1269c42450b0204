/* SPDX-License-Identifier: BSD-3-Clause */
/* The subsystem interface: the hooks the core runs over one table, phase by phase. */
/*
 * The subsystems around the data path, registered with the core in one table (vt_core.c):
 * the core runs each phase over the table, so no module calls another module's hooks by
 * name. The data path itself (clock, threads and their buffers, the OTF2 writer) is the
 * core's own sequence in vt_init/vt_finalize. A hook may be NULL; every hook runs with the
 * program's errno saved around it.
 */
#ifndef VT_LIFECYCLE_H
#define VT_LIFECYCLE_H

#include "base/vt_subsystem.h"

/* The phases, run over the table (vt_core.c). */
bool vt_core_thread_is_own(void);
void vt_core_thread_begin(struct vt_tls *t, struct vt_loc *loc);
void vt_core_thread_flush(struct vt_loc *loc);
void vt_core_thread_end(struct vt_tls *t, struct vt_loc *loc);
void vt_core_mpi_attach(const struct vt_topo *topo, struct vt_tls *t);

#endif
