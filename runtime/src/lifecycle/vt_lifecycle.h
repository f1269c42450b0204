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

#include <stdbool.h>
#include <stdint.h>

struct vt_tls;
struct vt_loc;
struct vt_topo;

struct vt_subsystem {
	const char *name;
	/* At start, after the configuration, the clock and the archive (outside MPI); < 0:
	 * vt cannot trace (the subsystem said why). */
	int (*init)(void);
	/* A new thread, before vt records it: true if it belongs to the subsystem (a plugin's
	 * sampler, say), and is never recorded. */
	bool (*thread_is_own)(void);
	/* On a new location's thread, before its first event. */
	void (*thread_begin)(struct vt_tls *t, struct vt_loc *loc);
	/* The owner's buffer was flushed, on its thread. */
	void (*thread_flush)(struct vt_loc *loc);
	/* The location's thread ends, on that thread. */
	void (*thread_end)(struct vt_tls *t, struct vt_loc *loc);
	/* MPI_Init: the archive is open and the hosts of every rank are known. */
	void (*mpi_attach)(const struct vt_topo *topo, struct vt_tls *t);
	/* At finalize, before the locations are closed: no more reads on the hot path. */
	void (*stop)(void);
	/* At finalize, after the locations are closed and before the definitions are written
	 * (end: the run's last timestamp). */
	void (*finalize)(uint64_t end);
	/* After the archive is closed. */
	void (*release)(void);
};

/* The phases, run over the table (vt_core.c). */
bool vt_core_thread_is_own(void);
void vt_core_thread_begin(struct vt_tls *t, struct vt_loc *loc);
void vt_core_thread_flush(struct vt_loc *loc);
void vt_core_thread_end(struct vt_tls *t, struct vt_loc *loc);
void vt_core_mpi_attach(const struct vt_topo *topo, struct vt_tls *t);

/* The subsystems (each module defines its own). */
extern const struct vt_subsystem vt_filter_subsystem;
extern const struct vt_subsystem vt_metric_subsystem;

#endif
