/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's lifecycle: init at load (or first event), finalize at exit, and the global state. */
#ifndef VT_CORE_H
#define VT_CORE_H

enum vt_state {
	VT_STATE_NEW = 0, /* not initialised yet */
	VT_STATE_INITIALISING,
	VT_STATE_ON,  /* recording */
	VT_STATE_OFF, /* VT_ON=no, bad input, or init failed: the program runs untraced */
	VT_STATE_FINALIZING,
	VT_STATE_DONE, /* trace written */
};

/* The state word: written by vt_core.c only, read anywhere (slow paths) with acquire, so a
 * thread that sees ON also sees what initialisation wrote. */
extern int vt_state_word __attribute__((visibility("hidden")));

static inline int vt_core_state(void)
{
	return __atomic_load_n(&vt_state_word, __ATOMIC_ACQUIRE);
}

/* The process that initialised vt (a vfork child shares its memory, not its pid). */
int vt_core_pid(void);

/* Initialises vt once; safe to call from any thread and from early constructors. */
void vt_init(void);

/* Writes the trace; runs once (atexit, exec, or MPI_Finalize in MPI mode). */
void vt_finalize(void);

/* MPI mode, a rank that ends without the others (MPI_Abort, a terminating signal; why says
 * which): writes its own locations into an archive of its own, without MPI; runs once, as
 * vt_finalize. */
void vt_finalize_alone(const char *why);

/* Init failed later (MPI mode: the archive could not be opened): stop recording. */
void vt_core_switch_off(void);

/* Whether libvt-mpi is loaded: the archive then waits for MPI_Init. */
extern int vt_mpi_mode;

struct vt_mpi_ops;
/* The MPI adapter's operations inside MPI_Finalize, else NULL. */
const struct vt_mpi_ops *vt_mpi_ops(void);
/* Whether MPI_Init has opened the archive. */
int vt_mpi_attached(void);

#endif
