/* SPDX-License-Identifier: BSD-3-Clause */
/* Where vtcc and vtrun find vt's files: the build tree's, the installed ones, or a moved install's.
 */
#ifndef VTCC_DIRS_H
#define VTCC_DIRS_H

#include <stdbool.h>

/* The directories of vt's files as one vtcc or vtrun sees them. */
struct vtcc_dirs {
	bool in_build_tree; /* a program of the build directory: the build tree's files */
	bool moved;	    /* installed, but under another prefix than the configured one */
	const char *incdir, *libdir, *plugindir, *gompdir;
};

/*
 * Fills DIRS for the program whose canonical path is SELF (NULL when unknown):
 *  - a program of the build directory uses the build tree's files;
 *  - a program in the configured BINDIR uses the configured install directories;
 *  - a program in a folder named like BINDIR's last part under another prefix P
 *    (P/usr/bin/vtcc after `dpkg -x vt-compilers.deb P`, a copied prefix) uses the same
 *    directories under P, when P holds vt's runtime (P/LIBDIR/libvt.so.0);
 *  - anything else uses the configured install directories.
 * The strings live until the program exits or execs.
 */
void vtcc_dirs_find(const char *self, struct vtcc_dirs *dirs);

#endif
