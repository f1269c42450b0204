/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-info --metrics FILE: the PAPI software-defined events FILE exports (vt_info_sde.c). */
#ifndef VT_INFO_SDE_H
#define VT_INFO_SDE_H

/* Prints them; 0, or 1 after an error line (FILE unreadable, not ELF). */
int vt_info_list_sde(const char *path);

#endif
