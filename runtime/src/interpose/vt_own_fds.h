/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's long-lived descriptors, which the program's closefrom and close_range leave open. */
#ifndef VT_OWN_FDS_H
#define VT_OWN_FDS_H

#include <stdbool.h>

/*
 * A descriptor vt keeps open for the run (the archive's event files, its spare /dev/null)
 * is noted here with the device and inode it refers to. closefrom and close_range
 * (vt_own_fds.c) close everything else in their range: the plain program never had these
 * descriptors, so sparing them changes nothing it can see. A noted descriptor that no longer
 * refers to its file (the program closed it by other means and got the number back) is the
 * program's and closed like any other.
 */
void vt_own_fd_add(int fd);
void vt_own_fd_remove(int fd);

/*
 * vt writes through its descriptors only between write_begin and write_end (archive/:
 * encoding a buffer, closing a writer; they may nest on a thread). The program's close,
 * dup2 or dup3 onto one of them waits until no such write is under way (take_begin says
 * whether fd is vt's; take_end after the real call), so the check before each write
 * (archive/vt_fds.c) sees the descriptor as the write will find it.
 */
void vt_own_fds_write_begin(void);
void vt_own_fds_write_end(void);
bool vt_own_fd_take_begin(int fd);
void vt_own_fd_take_end(void);
/*
 * vt's writer thread leaves the process's descriptor table (unshare(CLONE_FILES)) and keeps
 * of its copy only fd 2 and vt's descriptors: while the program has one thread of its own,
 * Linux then looks its descriptors up without a reference count again, and no pipe, socket
 * or file of the program stays open in the writer. False (nothing changed) where the kernel
 * has no close_range or unshare fails.
 */
bool vt_own_fds_leave_table(void);
/* Whether the calling thread did so: its descriptors are in no other task's table. */
bool vt_own_fds_in_own_table(void);
/* In a forked child, which records nothing: no descriptor is vt's any more. */
void vt_own_fds_forked(void);

#endif
