/* SPDX-License-Identifier: BSD-3-Clause */
/* The directories vtcc and vtrun take vt's files from, following a prefix the install was moved to.
 */
#include "vtcc_dirs.h"

#include "vtcc_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* DIR of the configured install with the configured prefix replaced by TOP; NULL when DIR is
 * not under the prefix or memory runs out. */
static char *vtcc_dirs_under(const char *top, const char *dir)
{
	size_t plen = strlen(VTCC_INSTALL_PREFIX);
	char *out;

	if (strncmp(dir, VTCC_INSTALL_PREFIX, plen) != 0 || (dir[plen] != '/' && dir[plen]))
		return NULL;
	if (asprintf(&out, "%s%s", top, dir + plen) < 0)
		return NULL;
	return out;
}

/* The prefix a program in FOLDER was moved to, or NULL: FOLDER must end as the configured
 * BINDIR ends below the configured prefix ("/bin"), and not be BINDIR itself. */
static char *vtcc_dirs_moved_prefix(const char *folder)
{
	size_t plen = strlen(VTCC_INSTALL_PREFIX), flen = strlen(folder), slen;
	const char *suffix;

	if (strcmp(folder, VTCC_INSTALL_BINDIR) == 0 ||
	    strncmp(VTCC_INSTALL_BINDIR, VTCC_INSTALL_PREFIX, plen) != 0 ||
	    VTCC_INSTALL_BINDIR[plen] != '/')
		return NULL;
	suffix = VTCC_INSTALL_BINDIR + plen;
	slen = strlen(suffix);
	if (flen <= slen || strcmp(folder + flen - slen, suffix) != 0)
		return NULL;
	return strndup(folder, flen - slen);
}

void vtcc_dirs_find(const char *self, struct vtcc_dirs *dirs)
{
	char *build = realpath(VTCC_BUILD_DIR, NULL);
	char *folder = NULL, *top = NULL;

	memset(dirs, 0, sizeof(*dirs));
	if (self) {
		char *slash;

		folder = strdup(self);
		slash = folder ? strrchr(folder, '/') : NULL;
		if (slash)
			*slash = '\0';
	}
	dirs->in_build_tree = folder && build && strcmp(folder, build) == 0;
	free(build);
	if (dirs->in_build_tree) {
		free(folder);
		dirs->incdir = VTCC_BUILD_INCDIR;
		dirs->libdir = VTCC_BUILD_LIBDIR;
		dirs->plugindir = VTCC_BUILD_PLUGINDIR;
		dirs->gompdir = VTCC_BUILD_GOMPDIR;
		return;
	}
	dirs->incdir = VTCC_INSTALL_INCDIR;
	dirs->libdir = VTCC_INSTALL_LIBDIR;
	dirs->plugindir = VTCC_INSTALL_PLUGINDIR;
	dirs->gompdir = VTCC_INSTALL_GOMPDIR;
	if (folder)
		top = vtcc_dirs_moved_prefix(folder);
	free(folder);
	if (top) {
		char *libdir = vtcc_dirs_under(top, VTCC_INSTALL_LIBDIR);
		char *libvt = NULL;

		if (libdir && asprintf(&libvt, "%s/libvt.so.0", libdir) >= 0 &&
		    access(libvt, R_OK) == 0) {
			char *inc = vtcc_dirs_under(top, VTCC_INSTALL_INCDIR);
			char *plug = vtcc_dirs_under(top, VTCC_INSTALL_PLUGINDIR);
			char *gomp = vtcc_dirs_under(top, VTCC_INSTALL_GOMPDIR);

			if (inc && plug && gomp) {
				dirs->moved = true;
				dirs->libdir = libdir;
				dirs->incdir = inc;
				dirs->plugindir = plug;
				dirs->gompdir = gomp;
				libdir = NULL;
			} else {
				free(inc);
				free(plug);
				free(gomp);
			}
		}
		free(libvt);
		free(libdir);
		free(top);
	}
}
