/* SPDX-License-Identifier: BSD-3-Clause */
/* A group of processes that talk through files of one directory: the ranks' snapshot writers. */
#ifndef VT_GROUP_H
#define VT_GROUP_H

#include "defs/vt_mpi_ops.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The processes that write an MPI job's snapshot were forked from its ranks and cannot call
 * MPI, yet their archive is written as a run's is: opened and closed collectively through
 * libotf2's collective callbacks, its definitions unified at rank 0 (archive/vt_otf2_close.c).
 * A group gives them the collectives vt writes archives with (struct vt_mpi_ops), and
 * libotf2's, over files in a directory of the trace's file system, which the ranks share as
 * they share the trace: a message is a file written under a temporary name and renamed to
 * FROM-TO.SEQ (SEQ counting that pair's messages), which its reader polls for, reads and
 * removes. Every collective is point to point through rank 0, as the ranks run the same code
 * in the same order: the pairs' sequence numbers match.
 */

/* Joins the group of size processes as rank, through dir (made mode 0700; refused unless a
 * directory of this user's, not a link, mode 0700). wait_s: how long a message is waited for.
 * NULL when dir cannot be used (one line said why). */
const struct vt_mpi_ops *vt_group_join(const char *dir, int rank, int size, double wait_s);

/* The next message from rank from within the group's wait, without the lost callback:
 * NULL when none came (or memory ran out), its size in *n. */
void *vt_group_try_recv(int from, size_t *n);

/* Called when a message does not come within the wait during a collective (the group cannot
 * go on): it must not return (a snapshot's writer ends). */
void vt_group_on_lost(void (*lost)(int peer, double waited_s));

/* Leaves the group: the directory goes with the last process (its messages all read).
 * abandon: the others are not waited for, the messages this process sent are removed. */
void vt_group_leave(bool abandon);

#endif
