/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's long-lived descriptors, which the program's closefrom and close_range leave open. */
#ifndef VT_OWN_FDS_H
#define VT_OWN_FDS_H

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

#endif
