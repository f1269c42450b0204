/* SPDX-License-Identifier: BSD-3-Clause */
/* The process-wide state of vt (recording, off, finalising), written by the lifecycle only. */
#ifndef VT_STATE_H
#define VT_STATE_H

enum vt_state {
	VT_STATE_NEW = 0, /* not initialised yet */
	VT_STATE_INITIALISING,
	VT_STATE_ON,  /* recording */
	VT_STATE_OFF, /* VT_ON=no, bad input, or init failed: the program runs untraced */
	VT_STATE_FINALIZING,
	VT_STATE_DONE, /* trace written */
};

/*
 * The ground every layer may read: written by lifecycle/vt_core.c only, read anywhere
 * (slow paths) with acquire, so a thread that sees ON also sees what initialisation wrote.
 * It lives here, not in the lifecycle, so that reading it is no edge up the layers.
 */
struct vt_state_data {
	int word;     /* enum vt_state */
	int pid;      /* the process that initialised vt (a vfork child shares its memory) */
	int mpi_mode; /* libvt-mpi is loaded: the archive waits for MPI_Init (set at init) */
};
extern struct vt_state_data vt_state_data __attribute__((visibility("hidden")));

static inline int vt_core_state(void)
{
	return __atomic_load_n(&vt_state_data.word, __ATOMIC_ACQUIRE);
}

static inline int vt_core_pid(void)
{
	return vt_state_data.pid;
}

#endif
