/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes vt's records as an OTF2 archive through libotf2. */
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_callctx.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_mpi_ops.h"
#include "interpose/vt_own_fds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <otf2/otf2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The archive's state, one struct (the failure flag, read by the encoders before every
 * record, is vt_otf2_write_failed, beside it).
 */
static struct {
	OTF2_Archive *archive;
	/* archive_dir: where libotf2 writes, vt's private directory in gdir (VT_PFORM_GDIR;
	 * see vt_publish.c); anchor_path: the trace's anchor where it is published, or where
	 * it stays when it cannot be. */
	char *archive_dir, *gdir, *archive_name, *anchor_path;
	/* MPI mode: set by vt_otf2_open_mpi; ids in events are then local and mapped at the
	 * end. */
	const struct vt_mpi_ops *mpi;
	/* The collectives the archive was opened with, for opening it again. */
	const struct vt_mpi_ops *archive_ops;
	/* The first failed write's message (see "failed writes" below). */
	pthread_mutex_t failure_lock;
	char failure_msg[512];
	int failure_msg_taken, failure_errno, last_errno;
	/* The code of the kept message: a message with another code starts a new report, and
	 * a report's first message is the one kept (harmless reports may come before a
	 * failure). */
	OTF2_ErrorCode failure_code;
	/* Recording stopped because the program took a descriptor of the trace's. */
	bool taken;
	/* The room kept for the definitions (reserve_take): in the file reserve_path, which
	 * is the global definitions' own when reserve_in_def. */
	char *reserve_path;
	bool reserve_in_def;
	/*
	 * libotf2 creates the archive's directory when an archive is opened for writing, and in
	 * MPI mode one that exists already breaks it (its collective state is freed while still
	 * in use). So while the archive is opened again, the directory with the event files
	 * waits under another name (rank 0 moves it, the others wait for that), and its files go
	 * back into the new one once the definitions are written (vt_otf2_reopen_done).
	 */
	char *moved_dir;
	/* What vt made in gdir when it reserved the name (see reserve). */
	struct vt_otf2_file_id own_files[VT_OTF2_OWN_N];
	/* The private directory as mkdtemp made it (the process that made it). */
	struct vt_otf2_file_id priv_id;
	bool snapshot; /* vt_otf2_open_snapshot's archive: its private directory is its own */
	/* libotf2's messages naming a file so far, and the last one's code. */
	unsigned file_reports;
	OTF2_ErrorCode file_report_code;
} arc = {.failure_lock = PTHREAD_MUTEX_INITIALIZER, .failure_code = OTF2_SUCCESS};

OTF2_Archive *vt_otf2_archive(void)
{
	return arc.archive;
}

const char *vt_otf2_anchor(void)
{
	return arc.anchor_path;
}

void vt_otf2_location_name(const struct vt_loc *l, char *buf, size_t len)
{
	if (l->index == 0)
		snprintf(buf, len, "Master thread");
	else
		snprintf(buf, len, "Thread %u", l->index);
}

void vt_otf2_closed(void)
{
	arc.archive = NULL;
	vt_otf2_chunks_release();
}

bool vt_otf2_ready(void)
{
	return arc.archive != NULL;
}

const char *vt_otf2_path(void)
{
	return arc.anchor_path;
}

/* ---- failed writes ----
 *
 * libotf2 reports an error layer by layer through its error callback, the first call naming
 * the file; by default it prints each to stderr, which is the program's. vt prints none of
 * them: it keeps the first message of a failure for its own one line. A writer whose write
 * failed is left as libotf2 left it (its buffer may be freed already): after the first
 * failed write, no event writer is used again, recording stops for the run, and at the end
 * the event files are cut to their whole chunks, which readers read.
 */
int vt_otf2_write_failed;

static OTF2_ErrorCode on_otf2_error(void *user, const char *file, uint64_t line,
				    const char *function, OTF2_ErrorCode code, const char *fmt,
				    va_list va)
{
	int saved = errno;
	__atomic_store_n(&arc.last_errno, saved, __ATOMIC_RELAXED);
	pthread_mutex_lock(&arc.failure_lock);
	/* libotf2 names the file in a message of its own ("POSIX: PATH"), and the layers
	 * above report the same failure with other codes: those do not replace it. */
	bool names_file = strncmp(fmt, "POSIX: ", 7) == 0;
	bool kept_names_file = strncmp(arc.failure_msg, "POSIX: ", 7) == 0;
	if (names_file) {
		__atomic_store_n(&arc.file_report_code, code, __ATOMIC_RELEASE);
		__atomic_add_fetch(&arc.file_reports, 1, __ATOMIC_ACQ_REL);
	}
	if (code != arc.failure_code && !vt_otf2_failed() && (names_file || !kept_names_file)) {
		/* A failed fclose is reported as a fault of libotf2's own, its errno says why. */
		arc.failure_code = code;
		arc.failure_errno = saved;
		va_list copy;
		va_copy(copy, va);
		vsnprintf(arc.failure_msg, sizeof(arc.failure_msg), fmt, copy);
		va_end(copy);
		__atomic_store_n(&arc.failure_msg_taken, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&arc.failure_lock);
	if (vt_log_level >= VT_LOG_DEBUG) {
		char msg[512];
		vsnprintf(msg, sizeof(msg), fmt, va);
		vt_debug("libotf2: %s: %s", OTF2_Error_GetName(code), msg);
	}
	errno = saved;
	return code;
}

unsigned vt_otf2_file_reports(void)
{
	return __atomic_load_n(&arc.file_reports, __ATOMIC_ACQUIRE);
}

OTF2_ErrorCode vt_otf2_write_reported(unsigned since)
{
	/* libotf2 reports a failed write of buffered data (its fclose) without failing the
	 * call that closed the writer: a message naming a file since says so. */
	if (vt_otf2_failed() || vt_otf2_file_reports() == since)
		return OTF2_SUCCESS;
	return __atomic_load_n(&arc.file_report_code, __ATOMIC_ACQUIRE);
}

void vt_otf2_file_error(int err)
{
	__atomic_store_n(&arc.last_errno, err, __ATOMIC_RELAXED);
}

const char *vt_otf2_last_error(void)
{
	int e = __atomic_load_n(&arc.last_errno, __ATOMIC_RELAXED);
	return e ? strerror(e) : "libotf2 failed";
}

/* The time since the start of the run, as "S.mmm" (no %f in vt's lines). */
static void run_time(char *buf, size_t len)
{
	uint64_t res = vt_clock_resolution() ? vt_clock_resolution() : 1;
	uint64_t d = vt_clock_now() - vt_clock_start_ticks();
	unsigned long ms = (unsigned long)((double)d / (double)res * 1e3);
	snprintf(buf, len, "%lu.%03lu s", ms / 1000, ms % 1000);
}

/* The first failed write of the run stops recording, with one line; the room kept for the
 * definitions is given back at once, for the ends of the event files. */
static bool stop_first(char *when, size_t len)
{
	if (__atomic_exchange_n(&vt_otf2_write_failed, 1, __ATOMIC_ACQ_REL))
		return false;
	vt_otf2_low_fds_drop();
	vt_otf2_reserve_release();
	run_time(when, len);
	return true;
}

/* A path in the private directory as it will be published (VT_PFORM_GDIR/...), into buf;
 * any other path as it is. */
static const char *as_published(const char *path, char *buf, size_t len)
{
	size_t priv = arc.archive_dir ? strlen(arc.archive_dir) : 0;
	if (!priv || !arc.gdir || strncmp(path, arc.archive_dir, priv) != 0 || path[priv] != '/')
		return path;
	snprintf(buf, len, "%s%s", arc.gdir, path + priv);
	return buf;
}

void vt_otf2_stop_taken(int fd, const char *path, bool closed)
{
	char when[32], published[4096 + 256];
	if (!stop_first(when, sizeof(when)))
		return;
	arc.taken = true;
	vt_error("descriptor %d of the trace file %s was %s by the program: recording stopped at "
		 "%s; the events written before stay in the trace",
		 fd, as_published(path, published, sizeof(published)),
		 closed ? "closed" : "reused for another file", when);
}

void vt_otf2_evt_write_failed(const char *path, int err)
{
	static const struct {
		int err;
		OTF2_ErrorCode code;
	} codes[] = {{ENOSPC, OTF2_ERROR_ENOSPC},
		     {EDQUOT, OTF2_ERROR_EDQUOT},
		     {EFBIG, OTF2_ERROR_EFBIG},
		     {EMFILE, OTF2_ERROR_EMFILE},
		     {ENFILE, OTF2_ERROR_ENFILE}};
	OTF2_ErrorCode code = OTF2_ERROR_EIO;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].err == err)
			code = codes[i].code;
	/* The message libotf2 would have kept: the file, then why (vt_otf2_stop_writing). */
	pthread_mutex_lock(&arc.failure_lock);
	if (!vt_otf2_failed()) {
		arc.failure_code = code;
		arc.failure_errno = err;
		snprintf(arc.failure_msg, sizeof(arc.failure_msg), "POSIX: '%s'", path);
		__atomic_store_n(&arc.failure_msg_taken, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&arc.failure_lock);
	vt_otf2_stop_writing(code);
}

const char *vt_otf2_stop_cause(void)
{
	return arc.taken ? "a descriptor the program took" : "the first failed write";
}

void vt_otf2_stop_writing(OTF2_ErrorCode rc)
{
	char when[32];
	if (!stop_first(when, sizeof(when)))
		return;
	/* The message is frozen from now on: wait for a report being written. */
	pthread_mutex_lock(&arc.failure_lock);
	pthread_mutex_unlock(&arc.failure_lock);
	bool told = __atomic_load_n(&arc.failure_msg_taken, __ATOMIC_ACQUIRE);
	const char *where = told ? arc.failure_msg : "libotf2";
	const char *why = OTF2_Error_GetDescription(rc);
	int e = told ? arc.failure_errno : 0;
	if (rc == OTF2_ERROR_ENOSPC || rc == OTF2_ERROR_EDQUOT || rc == OTF2_ERROR_EFBIG)
		e = rc == OTF2_ERROR_ENOSPC ? ENOSPC : rc == OTF2_ERROR_EDQUOT ? EDQUOT : EFBIG;
	else if (rc == OTF2_ERROR_EMFILE || rc == OTF2_ERROR_ENFILE)
		e = rc == OTF2_ERROR_EMFILE ? EMFILE : ENFILE;
	else if (e)
		why = strerror(e);
	const char *what = "writing the trace failed";
	if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		what = "disk full";
	else if (e == EMFILE || e == ENFILE)
		what = "no free file descriptor";
	/* libotf2's message names the substrate and the file ("POSIX: DIR/NAME/0.evt"), or
	 * only the call (a failed fclose): the archive is named then. */
	char quoted[sizeof(arc.failure_msg)];
	if (strncmp(where, "POSIX: ", 7) == 0)
		where += 7;
	size_t n = strlen(where);
	if (n > 2 && where[0] == '\'' && where[n - 1] == '\'') {
		snprintf(quoted, sizeof(quoted), "%.*s", (int)(n - 2), where + 1);
		where = quoted;
	}
	if ((!arc.archive_name || !strstr(where, arc.archive_name)) && arc.anchor_path)
		where = arc.anchor_path;
	/* A file of the private directory is named where it will be published. */
	char published[sizeof(quoted) + 4096];
	where = as_published(where, published, sizeof(published));
	vt_error("%s: recording stopped at %s (%s: %s); the events written before stay in the "
		 "trace",
		 what, when, where, why);
}

bool vt_otf2_file_path(char *buf, size_t len, uint64_t ref, const char *ext)
{
	if (!arc.archive_dir || !arc.archive_name)
		return false;
	/* libotf2's names of a location's files (OTF2's POSIX substrate). */
	int n = snprintf(buf, len, "%s/%s/%llu.%s", arc.archive_dir, arc.archive_name,
			 (unsigned long long)ref, ext);
	return n > 0 && (size_t)n < len;
}

/*
 * Room for the definitions and the anchor, taken when the archive opens and given back
 * before they are written: on a disk that the events filled, the trace can still be read.
 * The files are as long as their records (libotf2 cuts the last chunk), a few KiB for most
 * programs.
 *
 * A process on its own keeps the room in the global definitions' file, NAME.def of the
 * private directory, made empty with the room allocated past its end (FALLOC_FL_KEEP_SIZE),
 * and gives it back by cutting the file to 0, where libotf2 writes the definitions later:
 * no file made and deleted for the room alone (a creation is 40-100 us of CPU on ext4). An
 * MPI rank keeps it in vt-reserve.PID of the archive's directory (rank 0 writes NAME.def,
 * the ranks may share the directory), deleted to give it back.
 */
#define RESERVE_BYTES (256u << 10)

static void reserve_take(void)
{
	vt_otf2_spare_fd_take();
	int fd;
	arc.reserve_in_def = !arc.mpi;
	if ((arc.reserve_in_def
		 ? asprintf(&arc.reserve_path, "%s/%s.def", arc.archive_dir, arc.archive_name)
		 : asprintf(&arc.reserve_path, "%s/%s/vt-reserve.%ld", arc.archive_dir,
			    arc.archive_name, (long)getpid())) < 0) {
		arc.reserve_path = NULL;
		return;
	}
	if (!arc.reserve_in_def) {
		char *dir =
		    strndup(arc.reserve_path, strrchr(arc.reserve_path, '/') - arc.reserve_path);
		if (dir)
			mkdir(dir, 0777);
		free(dir);
	}
	/* The definitions' file with the mode libotf2 would give it (it only truncates it). */
	fd = open(arc.reserve_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  arc.reserve_in_def ? 0666 : 0600);
	if (fd < 0) {
		free(arc.reserve_path);
		arc.reserve_path = NULL;
		return;
	}
	/* Without the room now, nothing is kept: the reserve is a help, not a condition. The
	 * definitions' file stays empty, its room past its end; where the file system cannot
	 * allocate there, it is as long as the room until that is given back. */
	int err = 0;
	if (!arc.reserve_in_def || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, RESERVE_BYTES) != 0)
		err = posix_fallocate(fd, 0, RESERVE_BYTES);
	close(fd);
	if (err) {
		vt_debug("no room kept for the definitions in %s: %s", arc.reserve_path,
			 strerror(err));
		vt_otf2_reserve_release();
	}
}

void vt_otf2_reserve_forget(void)
{
	free(__atomic_exchange_n(&arc.reserve_path, NULL, __ATOMIC_ACQ_REL));
}

void vt_otf2_reserve_release(void)
{
	vt_otf2_spare_fd_release();
	char *path = __atomic_exchange_n(&arc.reserve_path, NULL, __ATOMIC_ACQ_REL);
	if (!path)
		return;
	if (arc.reserve_in_def ? truncate(path, 0) != 0 : unlink(path) != 0)
		vt_debug("cannot give back the room kept in %s: %s", path, strerror(errno));
	free(path);
}

static int open_archive(const char *name, const struct vt_mpi_ops *ops, const char *gdir,
			const char *priv);
static bool exists(const char *dir, const char *name, const char *suffix);
static int reserve(const char *dir, const char *name);

static char *archive_subdir(void)
{
	char *p;
	return asprintf(&p, "%s/%s", arc.archive_dir, arc.archive_name) < 0 ? NULL : p;
}

OTF2_Archive *vt_otf2_reopen(const struct vt_mpi_ops *ops)
{
	/* The failed archive is left open: closing it would flush its broken writers. */
	arc.archive = NULL;
	if (ops->rank == 0) {
		char *dir = archive_subdir();
		if (dir && asprintf(&arc.moved_dir, "%s.vt-moving-%ld", dir, (long)getpid()) < 0)
			arc.moved_dir = NULL;
		if (arc.moved_dir && rename(dir, arc.moved_dir) != 0) {
			vt_debug("cannot move %s aside: %s", dir, strerror(errno));
			free(arc.moved_dir);
			arc.moved_dir = NULL;
		}
		free(dir);
	}
	int moved = 1;
	ops->bcast(&moved, sizeof(moved), 0);
	return open_archive(arc.archive_name, arc.archive_ops, NULL, NULL) == 0 ? arc.archive
										: NULL;
}

void vt_otf2_reopen_done(void)
{
	char *dir = archive_subdir();
	DIR *d = arc.moved_dir && dir ? opendir(arc.moved_dir) : NULL;
	struct dirent *e;
	char from[4096], to[4096];
	bool all = d != NULL;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(from, sizeof(from), "%s/%s", arc.moved_dir, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", dir, e->d_name);
		struct stat st;
		/* The files vt kept room with are not part of the trace. */
		if (strncmp(e->d_name, "vt-reserve.", 11) == 0)
			unlink(from);
		else if (lstat(to, &st) == 0 || rename(from, to) != 0)
			all = false;
	}
	if (d)
		closedir(d);
	if (all)
		rmdir(arc.moved_dir);
	else if (arc.moved_dir)
		vt_error("the event files of the trace are in %s; move them into %s", arc.moved_dir,
			 dir ? dir : "the archive's directory");
	free(dir);
	free(arc.moved_dir);
	arc.moved_dir = NULL;
}

/*
 * An MPI rank that ends without the others (MPI_Abort, a terminating signal) cannot close
 * the run's archive: that takes every rank, over MPI. Its event files move from the run's
 * archive directory into an archive of its own beside it, NAME.abort-R, opened as a process
 * on its own opens one (libotf2's serial collectives, no MPI), where its definitions are
 * written next (vt_otf2_close_alone). The run's archive stays as it is, open: closing it
 * would call MPI. The name is reserved in gdir as a run reserves its own (pick_name, its
 * directory made with mkdir); derived from the run's name, which this run holds, it is no
 * other run's. The archive is written beside the run's, in the private directory, and
 * published by this rank alone once closed (the private directory stays).
 */
int vt_otf2_open_alone(void)
{
	if (!arc.archive || !arc.mpi || !arc.archive_dir || !arc.gdir || !arc.archive_name)
		return -1;
	uint32_t rank = (uint32_t)arc.mpi->rank;
	char *from = archive_subdir(), *name = NULL, *anchor = NULL, *to = NULL;
	if (!from || asprintf(&name, "%s.abort-%u", arc.archive_name, rank) < 0) {
		free(from);
		return -1;
	}
	/* Reserved in gdir (its directory, as pick_name), written in the private directory. */
	bool taken = exists(arc.gdir, name, "");
	if (taken || reserve(arc.gdir, name) != 0 ||
	    asprintf(&anchor, "%s/%s.otf2", arc.gdir, name) < 0) {
		vt_error("cannot create %s/%s.otf2 (%s): the events of rank %u are not written",
			 arc.gdir, name, taken ? "its directory exists" : strerror(errno), rank);
		free(from);
		free(name);
		return -1;
	}
	vt_otf2_reserve_release();
	arc.archive = NULL;
	free(arc.archive_name);
	arc.archive_name = name;
	free(arc.anchor_path);
	arc.anchor_path = anchor;
	if (open_archive(name, &vt_otf2_serial_ops, NULL, NULL) < 0 || !(to = archive_subdir())) {
		vt_otf2_own_files_drop();
		free(from);
		return -1;
	}
	if (mkdir(to, 0777) != 0 && errno != EEXIST)
		vt_debug("cannot create %s: %s", to, strerror(errno));
	/* This rank's locations: those whose id holds its rank (vt_otf2_location_ref). */
	DIR *d = opendir(from);
	struct dirent *e;
	char src[4096], dst[4096];
	while (d && (e = readdir(d))) {
		char *end;
		unsigned long long ref = strtoull(e->d_name, &end, 10);
		if (end == e->d_name || strcmp(end, ".evt") != 0 || (uint32_t)ref != rank)
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
		if (rename(src, dst) != 0)
			vt_error("cannot move %s into %s: %s", src, to, strerror(errno));
	}
	if (d)
		closedir(d);
	free(from);
	free(to);
	return 0;
}

static const char *exe_name(void)
{
	static char name[256];
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	/* comm is cut at 15 characters; the link has the whole name. */
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		const char *base = strrchr(path, '/');
		snprintf(name, sizeof(name), "%.255s", base ? base + 1 : path);
	}
	return name[0] ? name : "trace";
}

static bool exists(const char *dir, const char *name, const char *suffix)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	return lstat(path, &st) == 0;
}

/* A finished trace: its anchor is a regular file that is not empty. */
static bool finished(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s.otf2", dir, name);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/*
 * A trace NAME takes three names in VT_PFORM_GDIR: NAME.otf2, NAME.def and NAME/. A run
 * reserves them by making NAME/ (mkdir: exclusive, never through a link) where none of the
 * three is there: of several runs starting at once only one makes it, the others go on to
 * the next name, as they would from the three. libotf2 writes elsewhere, in a private
 * directory, and the finished trace takes the three names by rename (vt_publish.c). The
 * anchor and the definitions get no empty placeholder: each would be a file created (an
 * inode, 40-100 us of CPU on ext4) only to be replaced; what is at those names when the trace
 * is published was put there by someone else, and is replaced as a planted link is.
 */
/* Removes the directory NAME/ vt made in dir (if it is still that one, and empty). */
static void unmake_own(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	const struct vt_otf2_file_id *own = &arc.own_files[VT_OTF2_OWN_DIR];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &st) == 0 && st.st_ino == own->ino && st.st_dev == own->dev &&
	    S_ISDIR(st.st_mode) && own->type == S_IFDIR)
		rmdir(path);
}

/* The name in dir, by its directory (-1, errno: why; EEXIST: it is taken). */
static int reserve(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	memset(arc.own_files, 0, sizeof(arc.own_files));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mkdir(path, 0777) != 0)
		return -1;
	if (lstat(path, &st) == 0)
		arc.own_files[VT_OTF2_OWN_DIR] = (struct vt_otf2_file_id){
		    .dev = st.st_dev, .ino = st.st_ino, .type = st.st_mode & S_IFMT};
	return 0;
}

void vt_otf2_own_files_drop(void)
{
	if (arc.gdir && arc.archive_name)
		unmake_own(arc.gdir, arc.archive_name);
}

/* The private directory, made beside the trace's names: .NAME.vt-XXXXXX (mode 0700). */
static char *make_private(const char *dir, const char *name)
{
	char *p;
	if (asprintf(&p, "%s/.%s.vt-XXXXXX", dir, name) < 0)
		return NULL;
	struct stat st;
	if (mkdtemp(p)) {
		if (lstat(p, &st) == 0)
			arc.priv_id = (struct vt_otf2_file_id){st.st_dev, st.st_ino, S_IFDIR};
		return p;
	}
	int e = errno;
	free(p);
	errno = e;
	return NULL;
}

bool vt_otf2_publish_trace(bool keep_priv, char *why, size_t len)
{
	if (!arc.archive_dir || !arc.gdir || !arc.archive_name) {
		snprintf(why, len, "no archive");
		return false;
	}
	/* Others may rename entries of gdir: the private directory must still be the one vt
	 * made, not a link put in its place (docs/security.md says what that leaves open). */
	struct stat st;
	if (arc.priv_id.ino && (lstat(arc.archive_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
				st.st_ino != arc.priv_id.ino || st.st_dev != arc.priv_id.dev))
		snprintf(why, len, "%s was replaced during the run", arc.archive_dir);
	else if (vt_otf2_publish(arc.archive_dir, arc.gdir, arc.archive_name, arc.own_files, why,
				 len) == 0) {
		if ((!keep_priv || arc.snapshot) && rmdir(arc.archive_dir) != 0)
			vt_debug("%s stays: %s", arc.archive_dir, strerror(errno));
		return true;
	}
	free(arc.anchor_path);
	if (asprintf(&arc.anchor_path, "%s/%s.otf2", arc.archive_dir, arc.archive_name) < 0)
		arc.anchor_path = NULL;
	return false;
}

/*
 * Checks dir and reserves the first free NAME, NAME.1, ... into name, and makes the private
 * directory the archive is written in (*priv); -1 after an error line. The reservation is
 * the name's directory, made where none of the three names is (reserve): only one of several
 * runs starting at once can make it, the others go on to the next name.
 */
static int pick_name(const char *given, char *name, size_t len, char **priv)
{
	const char *dir = vt_cfg.gdir;
	struct stat st;
	char base[300];

	/* OTF2 puts the events in a folder named like the archive: the executable's own name
	 * would collide with the executable, so the default is EXE.vt. */
	if (given)
		snprintf(base, sizeof(base), "%s", given);
	else if (vt_cfg.prefix)
		snprintf(base, sizeof(base), "%s", vt_cfg.prefix);
	else
		snprintf(base, sizeof(base), "%s.vt", exe_name());

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || eaccess(dir, W_OK | X_OK) != 0) {
		vt_error("VT_PFORM_GDIR='%s': expected an existing, writable directory (%s); "
			 "tracing is off",
			 dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	/* Never overwrite a trace: take the first free NAME, NAME.1, NAME.2, ... */
	snprintf(name, len, "%s", base);
	for (int i = 1;; i++) {
		if (!exists(dir, name, ".otf2") && !exists(dir, name, ".def") &&
		    !exists(dir, name, "")) {
			/* EEXIST: a name appeared since the look, it is not free. */
			if (reserve(dir, name) == 0)
				break;
			if (errno != EEXIST) {
				vt_error(
				    "VT_PFORM_GDIR='%s': cannot create the trace %s/%s.otf2 (%s); "
				    "tracing is off",
				    dir, dir, name, strerror(errno));
				return -1;
			}
		}
		if (i > 9999) {
			vt_error("VT_PFORM_GDIR='%s': holds traces %s.1 to %s.9999 already; "
				 "tracing is off",
				 dir, base, base);
			return -1;
		}
		snprintf(name, len, "%s.%d", base, i);
	}
	*priv = make_private(dir, name);
	if (!*priv) {
		vt_error("VT_PFORM_GDIR='%s': cannot create a directory for the trace %s/%s.otf2 "
			 "(%s); tracing is off",
			 dir, dir, name, strerror(errno));
		unmake_own(dir, name);
		return -1;
	}
	if (strcmp(name, base) == 0)
		return 0;
	/* What is there decides what is said: a trace, or what another run (one running now,
	 * or one that was killed) left without an anchor. */
	if (finished(dir, base))
		vt_notice("trace %s/%s.otf2 exists; this run writes %s/%s.otf2", dir, base, dir,
			  name);
	else
		vt_notice("%s/%s is taken by another run or an unfinished trace (no anchor); this "
			  "run writes %s/%s.otf2",
			  dir, base, dir, name);
	return 0;
}

/* The archive could not be opened: nothing of it stays (the placeholder, libotf2's empty
 * directory, the private directory). */
static void drop_private(void)
{
	char *dir = archive_subdir();
	if (dir)
		rmdir(dir);
	free(dir);
	if (arc.archive_dir)
		rmdir(arc.archive_dir);
	vt_otf2_own_files_drop();
}

/* Opens the archive NAME in the private directory priv of gdir (VT_PFORM_GDIR);
 * collectives: libotf2's collective callbacks. */
static int open_archive(const char *name, const struct vt_mpi_ops *ops, const char *gdir,
			const char *priv)
{
	const char *dir = arc.gdir ? arc.gdir : gdir;
	bool again = arc.archive_name != NULL; /* vt_otf2_reopen: for the definitions only */
	if (!again) {
		arc.gdir = strdup(gdir);
		arc.archive_dir = strdup(priv);
		arc.archive_name = strdup(name);
		if (asprintf(&arc.anchor_path, "%s/%s.otf2", gdir, name) < 0)
			arc.anchor_path = NULL;
		arc.archive_ops = ops;
	}

	/* libotf2 prints its errors on the program's stderr, and repeats them while a write
	 * keeps failing: vt reports them itself, once. */
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	/* The definition chunk size is set at the end, from the definitions (vt_otf2_close.c). */
	arc.archive =
	    OTF2_Archive_Open(arc.archive_dir, arc.archive_name, OTF2_FILEMODE_WRITE, EVT_CHUNK,
			      OTF2_UNDEFINED_UINT64, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!arc.archive) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the trace archive %s; tracing is off",
			 dir, name);
		if (!again)
			drop_private();
		return -1;
	}
	OTF2_Archive_SetFlushCallbacks(arc.archive, &vt_otf2_flush_callbacks, NULL);
	OTF2_Archive_SetMemoryCallbacks(arc.archive, &vt_otf2_memory_callbacks, NULL);
	if (ops)
		ops->set_collectives(arc.archive);
	else
		OTF2_Archive_SetSerialCollectiveCallbacks(arc.archive);
	OTF2_Pthread_Archive_SetLockingCallbacks(arc.archive, NULL);
	OTF2_Archive_SetCreator(arc.archive, "vt " VT_VERSION);
	OTF2_Archive_SetDescription(arc.archive, exe_name());
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	OTF2_Archive_SetMachineName(arc.archive, host);
	if (again)
		return 0;
	if (OTF2_Archive_OpenEvtFiles(arc.archive) != OTF2_SUCCESS) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the event files of %s; "
			 "tracing is off",
			 dir, name);
		OTF2_Archive_Close(arc.archive);
		arc.archive = NULL;
		drop_private();
		return -1;
	}
	reserve_take();
	return 0;
}

int vt_otf2_open(void)
{
	char name[512], *priv = NULL;
	if (pick_name(NULL, name, sizeof(name), &priv) < 0)
		return -1;
	int rc = open_archive(name, NULL, vt_cfg.gdir, priv);
	free(priv);
	return rc;
}

/*
 * Rank k's private directory: rank 0's, by its name in k's own VT_PFORM_GDIR (the same
 * directory where that is shared, as a trace needs; a rank given another one writes there,
 * as before). Made if it is not there; refused unless it is a directory of this user's
 * (not a link, mode 0700): then the rank's writes fail (and it is a lost rank,
 * vt_otf2_close.c) rather than go where someone else's name leads.
 */
static char *rank_private(const char *base)
{
	char *p;
	struct stat st;
	if (asprintf(&p, "%s/%s", vt_cfg.gdir, base) < 0)
		return NULL;
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		vt_debug("cannot create %s: %s", p, strerror(errno));
	if (lstat(p, &st) != 0 && errno == ENOENT)
		return p; /* libotf2's writes fail there, as in a directory that cannot be written
			   */
	if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 0077) == 0)
		return p;
	vt_error("%s is not the directory rank 0 made for the trace (not a directory of this "
		 "user's, mode 0700): this rank writes no events",
		 p);
	free(p);
	return strdup("/dev/null/vt-refused");
}

/* Opens the archive every rank of ops writes (given: its name's base, NULL: the run's). */
static int open_shared(const struct vt_mpi_ops *ops, const char *given)
{
	/* Rank 0 decides, for every rank: the name and the private directory's name; an
	 * empty name tells the others that tracing is off. */
	struct {
		char name[512], base[600];
	} where = {.name = ""};
	char *priv = NULL;
	if (ops->rank == 0 && pick_name(given, where.name, sizeof(where.name), &priv) == 0) {
		const char *base = strrchr(priv, '/') + 1; /* pick_name made DIR/.NAME.vt-XXXXXX */
		snprintf(where.base, sizeof(where.base), "%s", base);
	} else if (ops->rank == 0) {
		where.name[0] = '\0';
	}
	ops->bcast(&where, sizeof(where), 0);
	if (!where.name[0])
		return -1;
	if (ops->rank != 0)
		priv = rank_private(where.base);
	arc.mpi = ops;
	int rc = open_archive(where.name, ops, vt_cfg.gdir, priv ? priv : "/dev/null/vt-refused");
	free(priv);
	return rc;
}

int vt_otf2_open_mpi(const struct vt_mpi_ops *ops)
{
	return open_shared(ops, NULL);
}

int vt_otf2_open_snapshot(unsigned k, const struct vt_mpi_ops *job)
{
	char base[300], name[512], *priv = NULL;
	if (!arc.archive || !arc.archive_name ||
	    snprintf(base, sizeof(base), arc.mpi && !job ? "%s.snap-%u.rank%d" : "%s.snap-%u",
		     arc.archive_name, k, arc.mpi ? arc.mpi->rank : 0) >= (int)sizeof(base))
		return -1;
	arc.archive = NULL;
	arc.archive_dir = arc.archive_name = arc.anchor_path = arc.gdir = arc.reserve_path = NULL;
	memset(arc.own_files, 0, sizeof(arc.own_files));
	memset(&arc.priv_id, 0, sizeof(arc.priv_id));
	arc.snapshot = true;
	if (job)
		return open_shared(job, base);
	int rc = pick_name(base, name, sizeof(name), &priv) < 0
		     ? -1
		     : open_archive(name, arc.mpi ? &vt_otf2_serial_ops : NULL, vt_cfg.gdir, priv);
	free(priv);
	return rc;
}

const struct vt_mpi_ops *vt_otf2_mpi_ops(void)
{
	return arc.mpi;
}

uint64_t vt_otf2_location_ref(uint32_t index)
{
	return arc.mpi ? ((uint64_t)index << 32) | (uint32_t)arc.mpi->rank : index;
}

bool vt_otf2_local_defs_link(uint64_t from, uint64_t to)
{
	char a[4096], b[4096];
	if (!arc.archive_dir || !arc.archive_name)
		return false;
	/* libotf2's names of a location's files (OTF2's POSIX substrate). */
	snprintf(a, sizeof(a), "%s/%s/%llu.def", arc.archive_dir, arc.archive_name,
		 (unsigned long long)from);
	snprintf(b, sizeof(b), "%s/%s/%llu.def", arc.archive_dir, arc.archive_name,
		 (unsigned long long)to);
	if (link(a, b) == 0)
		return true;
	vt_debug("%s: not linked to %s (%s); written", b, a, strerror(errno));
	return false;
}

/* METRIC locations of plugin counters: ids far above any thread's, with the rank in MPI
 * mode as for threads. */
#define METRIC_LOC_BASE 0x40000000u

uint64_t vt_otf2_metric_ref(uint32_t k)
{
	uint64_t hi = (uint64_t)(METRIC_LOC_BASE + k) << 32;
	return arc.mpi ? hi | (uint32_t)arc.mpi->rank : hi;
}

OTF2_EvtWriter *vt_otf2_metric_writer(uint32_t k, uint64_t *ref)
{
	if (!arc.archive || vt_otf2_failed())
		return NULL;
	*ref = vt_otf2_metric_ref(k);
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(arc.archive, *ref);
	if (!w)
		vt_error("cannot open the event writer of plugin counter location %u in %s; its "
			 "values are lost",
			 k, arc.anchor_path);
	return w;
}

void vt_otf2_metric_writer_close(OTF2_EvtWriter *w, uint64_t *events)
{
	uint64_t ref = 0;
	OTF2_EvtWriter_GetLocationID(w, &ref);
	OTF2_EvtWriter_GetNumberOfEvents(w, events);
	vt_own_fds_write_begin();
	if (!vt_otf2_evt_fd_check(ref) || vt_otf2_failed() ||
	    !vt_otf2_ok(OTF2_Archive_CloseEvtWriter(arc.archive, w)))
		*events = vt_otf2_events_on_disk(ref);
	else
		vt_otf2_evt_fd_closed(ref);
	vt_own_fds_write_end();
}

bool vt_otf2_write_onoff(OTF2_EvtWriter *w, uint64_t ts, bool on)
{
	if (vt_otf2_failed())
		return false;
	return vt_otf2_ok(OTF2_EvtWriter_MeasurementOnOff(
	    w, NULL, ts, on ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF));
}

OTF2_Paradigm vt_otf2_region_paradigm(const struct vt_region *r)
{
	if (r->paradigm)
		return r->paradigm;
	return r->kind == VT_REGION_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_COMPILER;
}

OTF2_RegionRole vt_otf2_region_role(const struct vt_region *r)
{
	return r->role ? r->role : OTF2_REGION_ROLE_FUNCTION;
}
