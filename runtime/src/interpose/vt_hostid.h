/* SPDX-License-Identifier: BSD-3-Clause */
/* vt answers libotf2's gethostid() itself while it writes the anchor (no name service). */
#ifndef VT_HOSTID_H
#define VT_HOSTID_H

/* Around OTF2_Archive_Close on the calling thread. */
void vt_hostid_begin(void);
void vt_hostid_end(void);

/* Interposes libc's: vt's answer between begin and end on this thread, libc's elsewhere. */
long gethostid(void);

#endif
