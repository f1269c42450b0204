/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Init and MPI_Finalize as phases of the run: the archive opened and closed collectively. */
#include "archive/vt_otf2.h"
#include "base/vt_clock.h"
#include "base/vt_log.h"
#include "defs/vt_annot.h"
#include "defs/vt_topo.h"
#include "lifecycle/vt_core.h"
#include "lifecycle/vt_ctl.h"
#include "lifecycle/vt_lifecycle.h"
#include "mpi/vt_mpi_iface.h"
#include "record/vt_thread.h"

#include <stdio.h>

/*
 * What libvt-mpi calls at MPI_Init, MPI_Finalize and MPI_Abort (mpi/vt_mpi_iface.h) runs
 * phases that know every module (the archive, the subsystems, finalisation), so it is the
 * lifecycle's, not the MPI core's: mpi/ keeps the events and definitions of MPI.
 */
/* MPI mode's phase state: the collectives libvt-mpi gave at MPI_Init, and whether MPI_Finalize
 * is under way (the only place the archive closes collectively). */
static struct {
	const struct vt_mpi_ops *ops;
	int detaching;
} mpi;

VT_MPI_EXPORT void vt_mpi_attach(const struct vt_mpi_ops *o)
{
	if (vt_core_state() != VT_STATE_ON || mpi.ops)
		return;
	/* The thread gets its location first (a busy thread gets none); then vt's own work:
	 * the archive's files, written here with the program's thread, are no I/O of the
	 * program's (VT_IOTRACE), nor are its allocations (VT_MEMTRACE). */
	struct vt_tls *t = vt_thread_self();
	int busy = vt_tls.busy;
	vt_tls.busy = VT_BUSY_OWN;
	if (vt_otf2_open_mpi(o) < 0) {
		/* Rank 0 said why; every rank goes on untraced. */
		vt_core_switch_off();
		vt_tls.busy = busy;
		return;
	}
	mpi.ops = o;
	vt_mpi_comm_define(VT_MPI_KEY_WORLD, (uint32_t)o->rank, (uint32_t)o->size);
	vt_mpi_comm_define(VT_MPI_KEY_SELF, 0, 1);
	/* Halves that filled up before MPI_Init waited for the archive. */
	vt_thread_archive_ready();
	vt_ctl_archive_named();
	/* Every rank takes part, with counters or not: one whose plugin failed to load must
	 * not leave the others waiting. */
	const struct vt_topo *topo = vt_topo_gather(o);
	/* Per-host and once counters: where they belong is known now (plugins' code runs). */
	vt_tls.busy = VT_BUSY_FOREIGN;
	vt_core_mpi_attach(topo, t);
	vt_tls.busy = VT_BUSY_OWN;
	vt_info("MPI rank %d of %d: tracing into %s", o->rank, o->size, vt_otf2_path());
	vt_tls.busy = busy;
}

VT_MPI_EXPORT void vt_mpi_detach(void)
{
	if (!mpi.ops)
		return;
	mpi.detaching = 1;
	vt_finalize();
}

VT_MPI_EXPORT void vt_mpi_abort(int errorcode)
{
	if (!mpi.ops || vt_core_state() != VT_STATE_ON)
		return;
	struct vt_tls *t = &vt_tls;
	char what[64];
	snprintf(what, sizeof(what), "MPI_Abort, errorcode %d", errorcode);
	/* The trace says how the run ended, as for a signal (vt_signal.c): a marker where the
	 * rank aborted, a property. */
	vt_annot_marker(vt_clock_now(), t && t->loc ? t->loc->index : 0, "vt", 3 /* HIGH */, what);
	vt_annot_property("VT::END", what);
	vt_finalize_alone("MPI_Abort");
}

const struct vt_mpi_ops *vt_mpi_ops(void)
{
	return mpi.detaching ? mpi.ops : NULL;
}

int vt_mpi_attached(void)
{
	return mpi.ops != NULL;
}
