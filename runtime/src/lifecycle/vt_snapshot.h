/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring mode's snapshots: each thread's window written to NAME.snap-K while the run goes on. */
#ifndef VT_SNAPSHOT_H
#define VT_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Writes the current window of every thread (VT_MODE=ring) to an archive of its own,
 * NAME.snap-K beside the run's NAME (K = 1, 2, ... in the order of the snapshots), without
 * stopping the program: the rings are copied by a fork under every location's lock (the
 * program's threads wait for that copy only if they fill a half meanwhile), and a process
 * of vt's writes them as the run's end would, then ends. why goes into the snapshot's
 * property VT::SNAPSHOT and the log. 0 when the writing process started; -1 after one line
 * (vt_snapshot_refusal's reasons, or no process). Callable from any thread of the program,
 * never from a signal handler.
 */
int vt_ring_snapshot(const char *why);

/* Why a snapshot cannot be taken now (not ring mode, not recording, an MPI program before
 * MPI_Init, counters or sampling on), one phrase; NULL when it can. */
const char *vt_snapshot_refusal(void);

/* The fork handler's question: is this the process vt_ring_snapshot forked (on the thread
 * that forked it), which must stay traced? */
bool vt_snapshot_forking(void);

/* Ring mode, MPI_Finalize (collective, ops the run's): the run's own trace starts at one time
 * on every rank, as a job's snapshot does (the latest start of the windows that lost
 * records), and the messages and collectives that start cuts are marked. */
struct vt_mpi_ops;
void vt_snapshot_final_cut(const struct vt_mpi_ops *ops);

/* In a snapshot's writing process of an MPI rank (vt_snapshot_job.c): the other ranks'
 * writers met, the job's window agreed and set (*end: its end, local ticks) and what it cuts
 * marked: their group; NULL: this rank writes alone. k: the snapshot's K; asked: when it was
 * asked (local ticks). */
const struct vt_mpi_ops *vt_snapshot_job_meet(unsigned k, uint64_t asked, uint64_t *end);

#endif
