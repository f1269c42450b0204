/* SPDX-License-Identifier: BSD-3-Clause */
/* Moves a finished archive from vt's private directory into VT_PFORM_GDIR, by rename. */
#include "archive/vt_otf2_priv.h"
#include "base/vt_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * VT_PFORM_GDIR may be writable by others and not sticky: whoever can write there can swap a
 * name for a symbolic link between any look vt takes and libotf2's next open by path (which
 * follows links and truncates). So libotf2 never opens anything there: the archive is made
 * in a directory of vt's own (mkdtemp, mode 0700, beside the trace: one file system), and
 * only renamed into VT_PFORM_GDIR once complete. rename(2) replaces a planted link itself and
 * never writes through it; an obstacle it cannot replace (a directory with files in it) stops
 * the publishing, and the trace stays whole where it was written.
 *
 * Order: the events' directory, the global definitions, the markers, then the anchor, which is what
 * readers open first: a trace is in VT_PFORM_GDIR once its anchor is. Each file goes through
 * a second name inside the private directory (a hard link), so that the private directory
 * keeps the trace whatever happens to the published name; after the anchor every published
 * name is checked to be what vt wrote (same inode) before the private names are removed.
 *
 * Left open: the private directory itself sits in VT_PFORM_GDIR, where others may rename it
 * and put a link in its place; libotf2's later opens by path would follow it. vt checks it
 * before publishing (vt_otf2_publish_trace). Giving libotf2 /proc/self/fd/N of a descriptor
 * of the directory would close that too, but a program that closes descriptors it does not
 * know (daemons do) would then send the trace into whatever it opens at N next.
 */
enum { MARKERS = VT_OTF2_OWN_N, N_PARTS }; /* NAME.marker: only when markers were written */
static const char *const suffix[N_PARTS] = {".otf2", ".def", "", ".marker"};

/* Whether path is the file or directory st describes (never following a link). */
static bool is(const char *path, const struct stat *st)
{
	struct stat now;
	return lstat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
	       (now.st_mode & S_IFMT) == (st->st_mode & S_IFMT);
}

/* A name vt reserved in VT_PFORM_GDIR that is not what vt made there: said once. (Not a
 * directory: an empty one is replaced silently, one with files stops the publishing, which
 * its own line says.) */
static void replaced(const char *path, const struct vt_otf2_file_id *own)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISDIR(st.st_mode) ||
	    (st.st_dev == own->dev && st.st_ino == own->ino && (st.st_mode & S_IFMT) == own->type))
		return;
	vt_warn("%s was replaced during the run (%s); vt removed it and writes the trace's own "
		"file",
		path, S_ISLNK(st.st_mode) ? "by a symbolic link" : "by another file");
}

/* Something that is not a directory (a link) is removed; an empty directory too, where a
 * file goes. -1: nothing removable there. */
static int clear(const char *path, bool for_dir)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
	if (for_dir)
		return -1; /* a directory rename could not replace: it holds files */
	return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Puts src (st) at dst; tmp: a free name in the private directory. 0 once dst is it. */
static int put(const char *src, const char *dst, const struct stat *st, const char *tmp)
{
	bool dir = S_ISDIR(st->st_mode);
	/* A racer may plant again after each removal: a few rounds, then vt gives up. */
	for (int round = 0; round < 64; round++) {
		const char *from = src;
		if (!dir) {
			unlink(tmp);
			if (link(src, tmp) == 0)
				from = tmp;
			/* Without hard links (some file systems): the only name moves. */
		}
		if (rename(from, dst) != 0) {
			int e = errno;
			if (from == tmp)
				unlink(tmp);
			if ((e == ENOTDIR || e == EISDIR || e == ENOTEMPTY || e == EEXIST) &&
			    clear(dst, dir) == 0)
				continue;
			errno = e;
			return -1;
		}
		if (is(dst, st)) {
			/* tmp and dst may be links of one file already (the racer put vt's file
			 * back after a round): then rename did nothing and tmp is still there. */
			unlink(tmp);
			return 0;
		}
		if (dir || from == src)
			break; /* the only name is gone: no second try */
	}
	errno = EAGAIN;
	return -1;
}

int vt_otf2_publish(const char *priv, const char *gdir, const char *name,
		    const struct vt_otf2_file_id *own, char *why, size_t len)
{
	/* The order of publishing: directory, definitions, markers (if any), anchor. */
	static const int order[N_PARTS] = {VT_OTF2_OWN_DIR, VT_OTF2_OWN_DEF, MARKERS,
					   VT_OTF2_OWN_ANCHOR};
	char src[N_PARTS][4096], dst[N_PARTS][4096], tmp[4096];
	struct stat st[N_PARTS];
	bool here[N_PARTS];
	int k, i, failed = -1;

	/* Per process: under MPI the ranks that end alone publish their NAME.abort-R archives
	 * from the same private directory at once. */
	snprintf(tmp, sizeof(tmp), "%s/.publishing.%ld", priv, (long)getpid());
	for (k = 0; k < N_PARTS; k++) {
		snprintf(src[k], sizeof(src[k]), "%s/%s%s", priv, name, suffix[k]);
		snprintf(dst[k], sizeof(dst[k]), "%s/%s%s", gdir, name, suffix[k]);
		here[k] = lstat(src[k], &st[k]) == 0;
		if (!here[k] && k != MARKERS) {
			snprintf(why, len, "%s: %s", src[k], strerror(errno));
			return -1;
		}
	}
	for (k = 0; k < VT_OTF2_OWN_N; k++)
		replaced(dst[k], &own[k]);
	for (i = 0; i < N_PARTS && failed < 0; i++) {
		k = order[i];
		if (here[k] && put(src[k], dst[k], &st[k], tmp) != 0)
			failed = k;
	}
	for (k = 0; k < N_PARTS && failed < 0; k++)
		if (here[k] && !is(dst[k], &st[k])) {
			errno = EAGAIN;
			failed = k;
		}
	if (failed < 0) {
		for (k = 0; k < N_PARTS; k++)
			if (here[k] && k != VT_OTF2_OWN_DIR)
				unlink(src[k]);
		return 0;
	}
	snprintf(why, len, "%s: %s", dst[failed],
		 errno == EAGAIN ? "replaced again and again while vt published the trace"
		 : errno == ENOTEMPTY || errno == EEXIST ? "a directory with files in it is there"
							 : strerror(errno));
	/* Nothing half published: the files keep their private names, the directory goes
	 * back. */
	for (k = 0; k < N_PARTS; k++) {
		if (!here[k] || !is(dst[k], &st[k]))
			continue;
		if (k == VT_OTF2_OWN_DIR)
			rename(dst[k], src[k]);
		else if (is(src[k], &st[k]))
			unlink(dst[k]);
	}
	return -1;
}
