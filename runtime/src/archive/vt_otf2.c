/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes vt's records as an OTF2 archive through libotf2. */
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_callctx.h"
#include "defs/vt_mpi_defs.h"
#include "mpi/vt_mpi_iface.h"

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

#define EVT_CHUNK (1u << 20)
/* vt's own descriptors stay at or above this, clear of the program's usual ones. */
#define VT_FD_FLOOR 10
/* libotf2 keeps up to 128 MiB per writer by default; vt keeps two chunks, so memory stays
 * VT_BUFFER_SIZE plus 2 MiB per thread, and a full chunk goes to disk at once. */
#define EVT_CHUNKS_KEPT 2

/*
 * Chunks that writers gave back, kept for the next writer. libotf2 fills a chunk's unused
 * rest when it writes it, so a fresh chunk costs a page fault per 4 KiB even for a definition
 * file of 200 bytes; on a paravirtualised VM that is ~30 us a fault, 30 ms for a 4 MiB
 * chunk. A reused chunk is resident already: the local definitions of every location, and
 * the event writers of threads that start after others ended, take no faults.
 */
#define SPARE_CHUNKS 4
static struct {
	void *p[SPARE_CHUNKS];
	uint64_t size[SPARE_CHUNKS];
	int n;
} spare;
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static OTF2_Archive *archive;
/* A descriptor (/dev/null, at fd 10 or above) kept from the start: given back when a program
 * that took every descriptor made libotf2's opens fail, the definitions are still written,
 * one file after the other; and copied to hold low descriptors (vt_otf2_low_fds_hold). */
static int spare_fd = -1;
static char *archive_dir, *archive_name, *anchor_path;
/* MPI mode: set by vt_otf2_open_mpi; ids in events are then local and mapped at the end. */
static const struct vt_mpi_ops *mpi;
/* The thread team's comm: a local id mapped to the process's own team at unification, far
 * from the MPI comms' local ids. */
static const OTF2_CommRef thread_comm = VT_OTF2_THREAD_COMM_LOCAL;

OTF2_Archive *vt_otf2_archive(void)
{
	return archive;
}

const char *vt_otf2_anchor(void)
{
	return anchor_path;
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
	archive = NULL;
	pthread_mutex_lock(&spare_lock);
	while (spare.n)
		free(spare.p[--spare.n]);
	pthread_mutex_unlock(&spare_lock);
}

bool vt_otf2_ready(void)
{
	return archive != NULL;
}

const char *vt_otf2_path(void)
{
	return anchor_path;
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
static int write_failed;
static char failure_msg[512];
static int failure_msg_taken, failure_errno, last_errno;
/* The code of the kept message: a message with another code starts a new report, and a
 * report's first message is the one kept (harmless reports may come before a failure). */
static OTF2_ErrorCode failure_code = OTF2_SUCCESS;
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;

static OTF2_ErrorCode on_otf2_error(void *user, const char *file, uint64_t line,
				    const char *function, OTF2_ErrorCode code, const char *fmt,
				    va_list va)
{
	int saved = errno;
	__atomic_store_n(&last_errno, saved, __ATOMIC_RELAXED);
	pthread_mutex_lock(&failure_lock);
	/* libotf2 names the file in a message of its own ("POSIX: PATH"), and the layers
	 * above report the same failure with other codes: those do not replace it. */
	bool names_file = strncmp(fmt, "POSIX: ", 7) == 0;
	bool kept_names_file = strncmp(failure_msg, "POSIX: ", 7) == 0;
	if (code != failure_code && !vt_otf2_failed() && (names_file || !kept_names_file)) {
		/* A failed fclose is reported as a fault of libotf2's own, its errno says why. */
		failure_code = code;
		failure_errno = saved;
		va_list copy;
		va_copy(copy, va);
		vsnprintf(failure_msg, sizeof(failure_msg), fmt, copy);
		va_end(copy);
		__atomic_store_n(&failure_msg_taken, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&failure_lock);
	if (vt_log_level >= VT_LOG_DEBUG) {
		char msg[512];
		vsnprintf(msg, sizeof(msg), fmt, va);
		vt_debug("libotf2: %s: %s", OTF2_Error_GetName(code), msg);
	}
	errno = saved;
	return code;
}

const char *vt_otf2_last_error(void)
{
	int e = __atomic_load_n(&last_errno, __ATOMIC_RELAXED);
	return e ? strerror(e) : "libotf2 failed";
}

bool vt_otf2_failed(void)
{
	return __atomic_load_n(&write_failed, __ATOMIC_ACQUIRE);
}

/* The time since the start of the run, as "S.mmm" (no %f in vt's lines). */
static void run_time(char *buf, size_t len)
{
	uint64_t res = vt_clock_resolution() ? vt_clock_resolution() : 1;
	uint64_t d = vt_clock_now() - vt_clock_start_ticks();
	unsigned long ms = (unsigned long)((double)d / (double)res * 1e3);
	snprintf(buf, len, "%lu.%03lu s", ms / 1000, ms % 1000);
}

static void low_fds_drop(void);

/* The first failed write of the run stops recording, with one line; the room kept for the
 * definitions is given back at once, for the ends of the event files. */
static void stop_writing(OTF2_ErrorCode rc)
{
	if (__atomic_exchange_n(&write_failed, 1, __ATOMIC_ACQ_REL))
		return;
	low_fds_drop();
	vt_otf2_reserve_release();
	char when[32];
	run_time(when, sizeof(when));
	/* The message is frozen from now on: wait for a report being written. */
	pthread_mutex_lock(&failure_lock);
	pthread_mutex_unlock(&failure_lock);
	bool told = __atomic_load_n(&failure_msg_taken, __ATOMIC_ACQUIRE);
	const char *where = told ? failure_msg : "libotf2";
	const char *why = OTF2_Error_GetDescription(rc);
	int e = told ? failure_errno : 0;
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
	char quoted[sizeof(failure_msg)];
	if (strncmp(where, "POSIX: ", 7) == 0)
		where += 7;
	size_t n = strlen(where);
	if (n > 2 && where[0] == '\'' && where[n - 1] == '\'') {
		snprintf(quoted, sizeof(quoted), "%.*s", (int)(n - 2), where + 1);
		where = quoted;
	}
	if ((!archive_name || !strstr(where, archive_name)) && anchor_path)
		where = anchor_path;
	vt_error("%s: recording stopped at %s (%s: %s); the events written before stay in the "
		 "trace",
		 what, when, where, why);
}

/* Whether a libotf2 call of the write path succeeded; the first failure stops recording. */
static inline bool ok(OTF2_ErrorCode rc)
{
	if (vt_likely(rc == OTF2_SUCCESS))
		return true;
	stop_writing(rc);
	return false;
}

/*
 * After a failed write: the event file of location ref is cut to its whole chunks (a write
 * that failed halfway left part of one), and the events it then holds are the last event
 * number of its last chunk's header. OTF2's chunk header is the type byte (3), the byte
 * order ('B'), then the numbers of the chunk's first and last event, 64 bits each; a whole
 * chunk ends in padding that sends readers to the next one, so a last chunk without events
 * is added, holding only the end-of-file record (2), as libotf2's own last chunk ends.
 */
#define CHUNK_HEADER_LAST_EVENT 10
#define CHUNK_HEADER_BYTES	18

static uint64_t events_on_disk(uint64_t ref)
{
	char path[4096];
	uint64_t events = 0;
	if (!archive_dir || !archive_name)
		return 0;
	snprintf(path, sizeof(path), "%s/%s/%llu.evt", archive_dir, archive_name,
		 (unsigned long long)ref);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		off_t whole = st.st_size / EVT_CHUNK * EVT_CHUNK;
		unsigned char head[CHUNK_HEADER_BYTES];
		if (whole > 0 &&
		    pread(fd, head, sizeof(head), whole - EVT_CHUNK) == (ssize_t)sizeof(head) &&
		    head[0] == 3 && head[1] == 'B') {
			for (int i = 7; i >= 0; i--)
				events = events << 8 | head[CHUNK_HEADER_LAST_EVENT + i];
		} else if (whole > 0 && ftruncate(fd, 0) == 0) {
			whole = 0;
		}
		if (ftruncate(fd, whole) != 0) {
			close(fd);
			return 0;
		}
	}
	unsigned char last[CHUNK_HEADER_BYTES + 1] = {3, 'B'};
	for (int i = 0; i < 8; i++) {
		last[2 + i] = (unsigned char)((events + 1) >> (8 * i));
		last[CHUNK_HEADER_LAST_EVENT + i] = (unsigned char)(events >> (8 * i));
	}
	last[CHUNK_HEADER_BYTES] = 2;
	if (lseek(fd, 0, SEEK_END) < 0 || write(fd, last, sizeof(last)) != (ssize_t)sizeof(last))
		vt_debug("%s: cannot end the event file (%s)", path, strerror(errno));
	close(fd);
	return events;
}

/*
 * Room for the definitions and the anchor, taken when the archive opens and given back
 * before they are written: on a disk that the events filled, the trace can still be read.
 * The files are as long as their records (libotf2 cuts the last chunk), a few KiB for most
 * programs.
 */
#define RESERVE_BYTES (256u << 10)
static char *reserve_path;

static void reserve_take(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fd < VT_FD_FLOOR) {
		spare_fd = fcntl(fd, F_DUPFD_CLOEXEC, VT_FD_FLOOR);
		close(fd);
	} else {
		spare_fd = fd;
	}
	if (asprintf(&reserve_path, "%s/%s/vt-reserve.%ld", archive_dir, archive_name,
		     (long)getpid()) < 0) {
		reserve_path = NULL;
		return;
	}
	char *dir = strndup(reserve_path, strrchr(reserve_path, '/') - reserve_path);
	if (dir)
		mkdir(dir, 0777);
	free(dir);
	fd = open(reserve_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(reserve_path);
		reserve_path = NULL;
		return;
	}
	/* Without the room now, nothing is kept: the reserve is a help, not a condition. */
	int err = posix_fallocate(fd, 0, RESERVE_BYTES);
	close(fd);
	if (err) {
		vt_debug("no room kept for the definitions in %s: %s", reserve_path, strerror(err));
		vt_otf2_reserve_release();
	}
}

void vt_otf2_reserve_release(void)
{
	int fd = __atomic_exchange_n(&spare_fd, -1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
	char *path = __atomic_exchange_n(&reserve_path, NULL, __ATOMIC_ACQ_REL);
	if (!path)
		return;
	unlink(path);
	free(path);
}

static int open_archive(const char *name, const struct vt_mpi_ops *ops);
static const struct vt_mpi_ops *archive_ops;
static bool exists(const char *dir, const char *name, const char *suffix);
static int make_own(const char *dir, const char *name, int k);

/*
 * libotf2 creates the archive's directory when an archive is opened for writing, and in
 * MPI mode one that exists already breaks it (its collective state is freed while still
 * in use). So while the archive is opened again, the directory with the event files waits
 * under another name (rank 0 moves it, the others wait for that), and its files go back
 * into the new one once the definitions are written (vt_otf2_reopen_done).
 */
static char *moved_dir;

static char *archive_subdir(void)
{
	char *p;
	return asprintf(&p, "%s/%s", archive_dir, archive_name) < 0 ? NULL : p;
}

OTF2_Archive *vt_otf2_reopen(const struct vt_mpi_ops *ops)
{
	/* The failed archive is left open: closing it would flush its broken writers. */
	archive = NULL;
	if (ops->rank == 0) {
		char *dir = archive_subdir();
		if (dir && asprintf(&moved_dir, "%s.vt-moving-%ld", dir, (long)getpid()) < 0)
			moved_dir = NULL;
		if (moved_dir && rename(dir, moved_dir) != 0) {
			vt_debug("cannot move %s aside: %s", dir, strerror(errno));
			free(moved_dir);
			moved_dir = NULL;
		}
		free(dir);
	}
	int moved = 1;
	ops->bcast(&moved, sizeof(moved), 0);
	return open_archive(archive_name, archive_ops) == 0 ? archive : NULL;
}

void vt_otf2_reopen_done(void)
{
	char *dir = archive_subdir();
	DIR *d = moved_dir && dir ? opendir(moved_dir) : NULL;
	struct dirent *e;
	char from[4096], to[4096];
	bool all = d != NULL;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(from, sizeof(from), "%s/%s", moved_dir, e->d_name);
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
		rmdir(moved_dir);
	else if (moved_dir)
		vt_error("the event files of the trace are in %s; move them into %s", moved_dir,
			 dir ? dir : "the archive's directory");
	free(dir);
	free(moved_dir);
	moved_dir = NULL;
}

/*
 * An MPI rank that ends without the others (MPI_Abort, a terminating signal) cannot close
 * the run's archive: that takes every rank, over MPI. Its event files move from the run's
 * archive directory into an archive of its own beside it, NAME.abort-R, opened as a process
 * on its own opens one (libotf2's serial collectives, no MPI), where its definitions are
 * written next (vt_otf2_close_alone). The run's archive stays as it is, open: closing it
 * would call MPI. The name is reserved as a run reserves its own (pick_name), its anchor
 * and definitions made with O_EXCL; derived from the run's name, which this run holds, it
 * is no other run's.
 */
int vt_otf2_open_alone(void)
{
	if (!archive || !mpi || !archive_dir || !archive_name)
		return -1;
	uint32_t rank = (uint32_t)mpi->rank;
	char *from = archive_subdir(), *name = NULL, *anchor = NULL, *to = NULL;
	if (!from || asprintf(&name, "%s.abort-%u", archive_name, rank) < 0) {
		free(from);
		return -1;
	}
	bool taken = exists(archive_dir, name, "");
	if (taken || make_own(archive_dir, name, 0) != 0) {
		vt_error("cannot create %s/%s.otf2 (%s): the events of rank %u are not written",
			 archive_dir, name, taken ? "its directory exists" : strerror(errno), rank);
		free(from);
		free(name);
		return -1;
	}
	if (make_own(archive_dir, name, 1) != 0 ||
	    asprintf(&anchor, "%s/%s.otf2", archive_dir, name) < 0) {
		vt_error("cannot create %s/%s.def (%s): the events of rank %u are not written",
			 archive_dir, name, strerror(errno), rank);
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.otf2", archive_dir, name);
		unlink(path);
		free(from);
		free(name);
		return -1;
	}
	vt_otf2_reserve_release();
	archive = NULL;
	free(archive_name);
	archive_name = name;
	free(anchor_path);
	anchor_path = anchor;
	if (open_archive(name, &vt_otf2_serial_ops) < 0 || !(to = archive_subdir())) {
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

/*
 * vt's descriptors and libotf2's. libotf2 opens its files with fopen, at the lowest free
 * descriptor and without close-on-exec: after the program's close(1), the event file became
 * fd 1 and the program's output went into the trace. libotf2 has no file callbacks, but it
 * opens files only while it flushes (between the flush callbacks below: an event file at its
 * first flush) and at the end, so for that time vt holds every free descriptor below
 * VT_FD_FLOOR with a copy of its spare one; libotf2's files then land at VT_FD_FLOOR or above
 * (where the limit allows), and the program finds its low descriptors free again afterwards. The
 * event file is then marked close-on-exec: the descriptor it takes is the lowest free one at or
 * above the floor, found before the flush and checked after it (the same file, by device and
 * inode).
 */
static pthread_mutex_t low_lock = PTHREAD_MUTEX_INITIALIZER;
static int low_users, low_fds[VT_FD_FLOOR], n_low;
static __thread int flush_probe = -1;

static int dup_spare(int min)
{
	int kept = __atomic_load_n(&spare_fd, __ATOMIC_ACQUIRE);
	if (kept >= 0) {
		int fd = fcntl(kept, F_DUPFD_CLOEXEC, min);
		if (fd >= 0 || errno != EBADF)
			return fd;
	}
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fd < min) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, min);
		close(fd);
		fd = high;
	}
	return fd;
}

static void low_fds_close_locked(void)
{
	while (n_low > 0)
		close(low_fds[--n_low]);
}

void vt_otf2_low_fds_hold(void)
{
	int saved = errno;
	pthread_mutex_lock(&low_lock);
	if (low_users++ == 0) {
		n_low = 0;
		bool room = false; /* a descriptor at or above the floor is free */
		while (n_low < VT_FD_FLOOR) {
			int fd = dup_spare(0);
			if (fd < 0)
				break;
			if (fd >= VT_FD_FLOOR) {
				close(fd);
				room = true;
				break;
			}
			low_fds[n_low++] = fd;
		}
		/* Only low descriptors were free: libotf2 takes one of them rather than none. */
		if (!room)
			low_fds_close_locked();
	}
	pthread_mutex_unlock(&low_lock);
	errno = saved;
}

void vt_otf2_low_fds_release(void)
{
	int saved = errno;
	pthread_mutex_lock(&low_lock);
	if (low_users > 0 && --low_users == 0)
		low_fds_close_locked();
	pthread_mutex_unlock(&low_lock);
	errno = saved;
}

/* After a failed write a flush may never have reached its post_flush: every hold ends. */
static void low_fds_drop(void)
{
	pthread_mutex_lock(&low_lock);
	low_users = 0;
	low_fds_close_locked();
	pthread_mutex_unlock(&low_lock);
}

/*
 * libotf2 opens a location's event file at its first flush and keeps it open: only that
 * flush (and the end) needs the low descriptors held. Holding them at every flush would
 * show the program, whose threads run on meanwhile, busy descriptors it had closed.
 */
static uint64_t *opened;
static size_t n_opened, cap_opened;
static __thread bool flush_held;

static bool is_opened(uint64_t ref)
{
	bool found = false;
	pthread_mutex_lock(&low_lock);
	for (size_t i = 0; i < n_opened && !found; i++)
		found = opened[i] == ref;
	pthread_mutex_unlock(&low_lock);
	return found;
}

static void mark_opened(uint64_t ref)
{
	pthread_mutex_lock(&low_lock);
	if (n_opened == cap_opened) {
		size_t cap = cap_opened ? 2 * cap_opened : 16;
		uint64_t *grown = realloc(opened, cap * sizeof(*grown));
		if (grown) {
			opened = grown;
			cap_opened = cap;
		}
	}
	if (n_opened < cap_opened)
		opened[n_opened++] = ref;
	pthread_mutex_unlock(&low_lock);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	int saved = errno;
	flush_probe = -1;
	flush_held = false;
	if (type == OTF2_FILETYPE_EVENTS && is_opened(loc))
		return OTF2_FLUSH;
	vt_otf2_low_fds_hold();
	flush_held = true;
	if (type == OTF2_FILETYPE_EVENTS) {
		flush_probe = dup_spare(VT_FD_FLOOR);
		if (flush_probe >= 0)
			close(flush_probe);
	}
	errno = saved;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
	int saved = errno;
	char path[4096];
	struct stat file, fd;
	if (flush_held && type == OTF2_FILETYPE_EVENTS && archive_dir && archive_name) {
		snprintf(path, sizeof(path), "%s/%s/%llu.evt", archive_dir, archive_name,
			 (unsigned long long)loc);
		if (stat(path, &file) == 0) {
			mark_opened(loc);
			if (flush_probe >= 0 && fstat(flush_probe, &fd) == 0 &&
			    file.st_dev == fd.st_dev && file.st_ino == fd.st_ino)
				fcntl(flush_probe, F_SETFD, FD_CLOEXEC);
		}
	}
	flush_probe = -1;
	errno = saved;
	if (flush_held)
		vt_otf2_low_fds_release();
	flush_held = false;
	return vt_clock_now();
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

struct chunks {
	size_t n, cap;
	void **p;
	uint64_t size; /* of each: a buffer's chunks are all of one size */
};

/* Called by libotf2 under its own locking per writer; each buffer has its own list. */
static void *chunk_new(uint64_t size)
{
	void *m = NULL;
	pthread_mutex_lock(&spare_lock);
	for (int i = 0; i < spare.n; i++) {
		if (spare.size[i] == size) {
			m = spare.p[i];
			spare.n--;
			spare.p[i] = spare.p[spare.n];
			spare.size[i] = spare.size[spare.n];
			break;
		}
	}
	pthread_mutex_unlock(&spare_lock);
	return m ? m : malloc(size);
}

static void chunk_give_back(void *m, uint64_t size)
{
	pthread_mutex_lock(&spare_lock);
	if (spare.n < SPARE_CHUNKS) {
		spare.p[spare.n] = m;
		spare.size[spare.n++] = size;
		m = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	free(m);
}

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			 uint64_t size)
{
	struct chunks *c = *per_buffer;
	if (!c && !(c = *per_buffer = calloc(1, sizeof(*c))))
		return NULL;
	/* NULL makes libotf2 write the chunks out and free them, then ask again. */
	if (type == OTF2_FILETYPE_EVENTS && c->n >= EVT_CHUNKS_KEPT)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		void **p = realloc(c->p, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->p = p;
		c->cap = cap;
	}
	void *m = chunk_new(size);
	if (m) {
		c->size = size;
		c->p[c->n++] = m;
	}
	return m;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			   bool final)
{
	struct chunks *c = *per_buffer;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		chunk_give_back(c->p[i], c->size);
	c->n = 0;
	if (final) {
		free(c->p);
		free(c);
		*per_buffer = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_callbacks = {chunk_alloc, chunk_free_all};

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
 * The anchor (NAME.otf2) and the global definitions (NAME.def) sit beside the archive's
 * directory, in VT_PFORM_GDIR, which others may write to (/tmp); libotf2 opens them with
 * O_CREAT|O_TRUNC, following a symbolic link planted there. So vt creates both itself when
 * it reserves the name (O_EXCL|O_NOFOLLOW: never through a link), and before libotf2 writes
 * one, checks that it is still that file; one planted meanwhile is removed (the link, not
 * what it points to) and the file made again the same way. In a sticky directory (/tmp) no
 * one else can remove vt's file, so nothing can be planted at all.
 */
static struct {
	dev_t dev;
	ino_t ino;
} own_files[2]; /* .otf2, .def */
static const char *const own_suffix[2] = {".otf2", ".def"};

static int make_own(const char *dir, const char *name, int k)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s%s", dir, name, own_suffix[k]);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0) {
		own_files[k].dev = st.st_dev;
		own_files[k].ino = st.st_ino;
	}
	close(fd);
	return 0;
}

void vt_otf2_own_file(int k)
{
	char path[4096];
	struct stat st;
	if (!archive_dir || !archive_name || k < 0 || k > 1)
		return;
	snprintf(path, sizeof(path), "%s/%s%s", archive_dir, archive_name, own_suffix[k]);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_dev == own_files[k].dev && st.st_ino == own_files[k].ino)
		return;
	bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	if (errno != ENOENT || link)
		unlink(path);
	if (make_own(archive_dir, archive_name, k) == 0)
		vt_warn("%s was replaced during the run (%s); vt removed it and writes the "
			"trace's own file",
			path, link ? "by a symbolic link" : "by another file");
	else
		vt_error("%s was replaced during the run and cannot be made again (%s)", path,
			 strerror(errno));
}

void vt_otf2_own_files_drop(void)
{
	char path[4096];
	struct stat st;
	for (int k = 0; k < 2 && archive_dir && archive_name; k++) {
		snprintf(path, sizeof(path), "%s/%s%s", archive_dir, archive_name, own_suffix[k]);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
		    st.st_ino == own_files[k].ino && st.st_dev == own_files[k].dev)
			unlink(path);
	}
}

/*
 * Checks dir and reserves the first free NAME, NAME.1, ... into name; -1 after an error
 * line. The reservation is the anchor, created empty with O_EXCL, which only one of several
 * runs starting at once can create: the others go on to the next name. (Not the archive's
 * directory: libotf2 creates that itself, and in MPI mode one that exists already leaves its
 * collective state broken.)
 */
static int pick_name(char *name, size_t len)
{
	const char *dir = vt_cfg.gdir;
	struct stat st;
	char base[300], path[4096];

	/* OTF2 puts the events in a folder named like the archive: the executable's own name
	 * would collide with the executable, so the default is EXE.vt. */
	if (vt_cfg.prefix)
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
			if (make_own(dir, name, 0) == 0) {
				if (make_own(dir, name, 1) == 0)
					break;
				/* A file appeared since the look: the name is not free. */
				snprintf(path, sizeof(path), "%s/%s.otf2", dir, name);
				unlink(path);
			} else if (errno != EEXIST) {
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

/* Opens the archive NAME in VT_PFORM_GDIR; collectives: libotf2's collective callbacks. */
static int open_archive(const char *name, const struct vt_mpi_ops *ops)
{
	const char *dir = vt_cfg.gdir;
	bool again = archive_name != NULL; /* vt_otf2_reopen: for the definitions only */
	if (!again) {
		archive_dir = strdup(dir);
		archive_name = strdup(name);
		if (asprintf(&anchor_path, "%s/%s.otf2", dir, name) < 0)
			anchor_path = NULL;
		archive_ops = ops;
	}

	/* libotf2 prints its errors on the program's stderr, and repeats them while a write
	 * keeps failing: vt reports them itself, once. */
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	/* The definition chunk size is set at the end, from the definitions (vt_otf2_close.c). */
	archive =
	    OTF2_Archive_Open(archive_dir, archive_name, OTF2_FILEMODE_WRITE, EVT_CHUNK,
			      OTF2_UNDEFINED_UINT64, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!archive) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the trace archive %s; tracing is off",
			 dir, name);
		return -1;
	}
	OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
	OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
	if (ops)
		ops->set_collectives(archive);
	else
		OTF2_Archive_SetSerialCollectiveCallbacks(archive);
	OTF2_Pthread_Archive_SetLockingCallbacks(archive, NULL);
	OTF2_Archive_SetCreator(archive, "vt " VT_VERSION);
	OTF2_Archive_SetDescription(archive, exe_name());
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	OTF2_Archive_SetMachineName(archive, host);
	if (again)
		return 0;
	if (OTF2_Archive_OpenEvtFiles(archive) != OTF2_SUCCESS) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the event files of %s; "
			 "tracing is off",
			 dir, name);
		OTF2_Archive_Close(archive);
		archive = NULL;
		return -1;
	}
	reserve_take();
	return 0;
}

int vt_otf2_open(void)
{
	char name[512];
	if (pick_name(name, sizeof(name)) < 0)
		return -1;
	return open_archive(name, NULL);
}

int vt_otf2_open_mpi(const struct vt_mpi_ops *ops)
{
	/* Rank 0 decides; an empty name tells the others that tracing is off. */
	char name[512] = "";
	if (ops->rank == 0 && pick_name(name, sizeof(name)) < 0)
		name[0] = '\0';
	ops->bcast(name, sizeof(name), 0);
	if (!name[0])
		return -1;
	mpi = ops;
	return open_archive(name, ops);
}

const struct vt_mpi_ops *vt_otf2_mpi_ops(void)
{
	return mpi;
}

uint64_t vt_otf2_location_ref(uint32_t index)
{
	return mpi ? ((uint64_t)index << 32) | (uint32_t)mpi->rank : index;
}

/* The writer of a location, made when it first has something to write: in MPI mode the
 * archive, and the rank that is part of the location id, exist only after MPI_Init. */
static OTF2_EvtWriter *writer_of(struct vt_loc *loc)
{
	/* Every location defined has its id, also one made after a failed write. */
	if (!loc->writer && archive)
		loc->ref = vt_otf2_location_ref(loc->index);
	if (vt_otf2_failed())
		return NULL;
	if (loc->writer || !archive)
		return loc->writer;
	loc->writer = OTF2_Archive_GetEvtWriter(archive, loc->ref);
	if (!loc->writer)
		vt_error("cannot open the event writer of thread %u in %s; its events are lost",
			 loc->index, anchor_path);
	return loc->writer;
}

bool vt_otf2_local_defs_link(uint64_t from, uint64_t to)
{
	char a[4096], b[4096];
	if (!archive_dir || !archive_name)
		return false;
	/* libotf2's names of a location's files (OTF2's POSIX substrate). */
	snprintf(a, sizeof(a), "%s/%s/%llu.def", archive_dir, archive_name,
		 (unsigned long long)from);
	snprintf(b, sizeof(b), "%s/%s/%llu.def", archive_dir, archive_name, (unsigned long long)to);
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
	return mpi ? hi | (uint32_t)mpi->rank : hi;
}

OTF2_EvtWriter *vt_otf2_metric_writer(uint32_t k, uint64_t *ref)
{
	if (!archive || vt_otf2_failed())
		return NULL;
	*ref = vt_otf2_metric_ref(k);
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, *ref);
	if (!w)
		vt_error("cannot open the event writer of plugin counter location %u in %s; its "
			 "values are lost",
			 k, anchor_path);
	return w;
}

void vt_otf2_metric_writer_close(OTF2_EvtWriter *w, uint64_t *events)
{
	uint64_t ref = 0;
	OTF2_EvtWriter_GetLocationID(w, &ref);
	OTF2_EvtWriter_GetNumberOfEvents(w, events);
	if (vt_otf2_failed() || !ok(OTF2_Archive_CloseEvtWriter(archive, w)))
		*events = events_on_disk(ref);
}

bool vt_otf2_write_onoff(OTF2_EvtWriter *w, uint64_t ts, bool on)
{
	if (vt_otf2_failed())
		return false;
	return ok(OTF2_EvtWriter_MeasurementOnOff(w, NULL, ts,
						  on ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF));
}

int vt_otf2_loc_open(struct vt_loc *loc)
{
	/* Before MPI_Init there is no archive yet: the writer comes later. */
	if (!archive)
		return 0;
	if (writer_of(loc))
		return 0;
	/* A thread that starts after a failed write is not recorded, but it is a location of
	 * the trace (as every thread that ran): its event file holds no events. */
	if (vt_otf2_failed())
		loc->n_events = events_on_disk(loc->ref);
	return -1;
}

static void push(struct vt_loc *loc, uint32_t region, bool recorded)
{
	if (loc->depth == loc->cap) {
		size_t cap = loc->cap ? 2 * loc->cap : 64;
		struct vt_open_region *s = realloc(loc->stack, cap * sizeof(*s));
		if (!s) {
			/* Out of memory deep in a recursion: keep the count, lose the detail. */
			loc->repaired++;
			return;
		}
		loc->stack = s;
		loc->cap = cap;
	}
	loc->stack[loc->depth].region = region;
	loc->stack[loc->depth].recorded = recorded;
	loc->depth++;
}

/* Leaves every open region down to (not including) depth 'keep' at ts. */
static bool write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t m, uint64_t value);

static bool unwind(struct vt_loc *loc, size_t keep, uint64_t ts)
{
	OTF2_EvtWriter *w = loc->writer;
	while (loc->depth > keep) {
		struct vt_open_region *o = &loc->stack[--loc->depth];
		if (!o->recorded)
			continue;
		if (!ok(OTF2_EvtWriter_Leave(w, NULL, ts, o->region)))
			return false;
		/* The thread's last values: a Leave vt writes itself has no reading of its own. */
		for (uint32_t i = 0; i < loc->n_strict; i++)
			if (!write_value(w, ts, loc->strict[i].metric, loc->strict[i].metric,
					 loc->strict[i].value))
				return false;
	}
	return true;
}

/* Keeps a strictly synchronous value that followed the last Enter/Leave (loc->strict). */
static void keep_strict(struct vt_loc *loc, uint32_t metric, uint64_t value)
{
	if (loc->n_strict == loc->cap_strict) {
		uint32_t cap = loc->cap_strict ? 2 * loc->cap_strict : 8;
		struct vt_loc_value *v = realloc(loc->strict, cap * sizeof(*v));
		if (!v)
			return;
		loc->strict = v;
		loc->cap_strict = cap;
	}
	loc->strict[loc->n_strict++] = (struct vt_loc_value){metric, value};
}

static void begin(struct vt_loc *loc, uint64_t ts)
{
	loc->began = true;
	loc->first_ts = ts;
	if (loc->index > 0)
		ok(OTF2_EvtWriter_ThreadBegin(loc->writer, NULL, ts, thread_comm, loc->index));
}

static bool enter(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, uint32_t id)
{
	struct vt_region *reg = &vt_regions[id];
	bool recorded = true;
	if (vt_unlikely(reg->limit > 0))
		recorded = __atomic_fetch_add(&reg->calls, 1, __ATOMIC_RELAXED) < reg->limit;
	push(loc, id, recorded);
	if (recorded)
		ok(OTF2_EvtWriter_Enter(w, NULL, ts, id));
	return recorded;
}

/* A Leave closes the innermost open region; longjmp or an exception may have skipped
 * Leaves: those regions are left here too, and counted as repaired. */
static bool leave(struct vt_loc *loc, uint64_t ts, uint32_t id)
{
	size_t d = loc->depth;
	while (d > 0 && loc->stack[d - 1].region != id)
		d--;
	if (d == 0) {
		loc->repaired++;
		return false;
	}
	bool recorded = loc->stack[d - 1].recorded;
	loc->repaired += loc->depth - d;
	unwind(loc, d - 1, ts);
	return recorded;
}

static const struct vt_otf2_metric *metrics;
static uint32_t n_metrics;
static const struct vt_otf2_instance *instances;
static uint32_t n_instances;
static uint64_t metric_last_ts;

void vt_otf2_set_metrics(const struct vt_otf2_metric *m, uint32_t n)
{
	metrics = m;
	__atomic_store_n(&n_metrics, n, __ATOMIC_RELEASE);
}

void vt_otf2_metrics_grew(uint32_t n)
{
	__atomic_store_n(&n_metrics, n, __ATOMIC_RELEASE);
}

void vt_otf2_set_instances(const struct vt_otf2_instance *in, uint32_t n, uint64_t last_ts)
{
	instances = in;
	n_instances = n;
	metric_last_ts = last_ts;
}

const struct vt_otf2_metric *vt_otf2_metrics(uint32_t *n)
{
	*n = __atomic_load_n(&n_metrics, __ATOMIC_ACQUIRE);
	return metrics;
}

const struct vt_otf2_instance *vt_otf2_instances(uint32_t *n)
{
	*n = instances ? n_instances : 0;
	return instances;
}

uint64_t vt_otf2_metric_last_ts(void)
{
	return metric_last_ts;
}

static bool write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t m, uint64_t value)
{
	return vt_otf2_write_value(w, ts, id, m, value);
}

bool vt_otf2_write_value(OTF2_EvtWriter *w, uint64_t ts, uint32_t id, uint32_t m, uint64_t value)
{
	/* A metric this process does not define has no type: nothing is written. */
	if (m >= __atomic_load_n(&n_metrics, __ATOMIC_ACQUIRE))
		return true;
	/* After a failed write no writer is touched again (vt_otf2_failed). */
	if (vt_otf2_failed())
		return false;
	OTF2_Type type = metrics[m].type;
	OTF2_MetricValue v;
	if (metrics[m].is_float) {
		/* A float in the low 32 bits; OTF2 has doubles. */
		float f;
		uint32_t low = (uint32_t)value;
		memcpy(&f, &low, sizeof(f));
		v.floating_point = f;
	} else {
		v.unsigned_int = value;
	}
	return ok(OTF2_EvtWriter_Metric(w, NULL, ts, id, 1, &type, &v));
}

/*
 * The encoders of the event kinds: head record r (its time clamped to ts) and its payload
 * p. One per kind, indexed by kind; a kind without an encoder is skipped with its payload.
 */
typedef bool (*encode_fn)(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			  const struct vt_rec *r, const union vt_rec_payload *p);

/* The communicators a thread other than the master makes MPI calls on, noted as its events
 * are encoded (off the program's path), for its communicator lanes (vt_mpi_defs.h). The
 * master's events, most of them, make no call. */
static void used_comm(struct vt_loc *loc, uint32_t comm)
{
	if (loc->index != 0)
		vt_mpi_defs_comm_used(loc->index, comm);
}

static bool enc_send(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		     const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	return ok(OTF2_EvtWriter_MpiSend(w, NULL, ts, r->region, p[0].msg.comm, p[0].msg.tag,
					 p[0].msg.bytes));
}

static bool enc_recv(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		     const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	return ok(OTF2_EvtWriter_MpiRecv(w, NULL, ts, r->region, p[0].msg.comm, p[0].msg.tag,
					 p[0].msg.bytes));
}

static bool enc_isend(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		      const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	return ok(OTF2_EvtWriter_MpiIsend(w, NULL, ts, r->region, p[0].msg.comm, p[0].msg.tag,
					  p[0].msg.bytes, p[1].req.id));
}

static bool enc_irecv(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		      const union vt_rec_payload *p)
{
	used_comm(loc, p[0].msg.comm);
	return ok(OTF2_EvtWriter_MpiIrecv(w, NULL, ts, r->region, p[0].msg.comm, p[0].msg.tag,
					  p[0].msg.bytes, p[1].req.id));
}

static bool enc_isend_complete(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, p[0].req.id));
}

static bool enc_irecv_request(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			      const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, p[0].req.id));
}

static bool enc_request_test(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MpiRequestTest(w, NULL, ts, p[0].req.id));
}

static bool enc_request_cancelled(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
				  const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MpiRequestCancelled(w, NULL, ts, p[0].req.id));
}

static bool enc_coll_begin(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			   const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts));
}

static bool enc_coll_end(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
			 const union vt_rec_payload *p)
{
	used_comm(loc, p[0].coll.comm);
	return ok(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ts, (OTF2_CollectiveOp)r->region,
						  p[0].coll.comm, p[0].coll.root, p[0].coll.sent,
						  p[1].req.id));
}

static bool enc_nbc_request(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			    const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, ts, p[0].req.id));
}

static bool enc_nbc_complete(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	used_comm(loc, p[0].coll.comm);
	return ok(OTF2_EvtWriter_NonBlockingCollectiveComplete(
	    w, NULL, ts, (OTF2_CollectiveOp)r->region, p[0].coll.comm, p[0].coll.root,
	    p[0].coll.sent, p[1].nbc.received, p[1].nbc.id));
}

static bool enc_rma_win(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	if (r->kind == VT_REC_RMA_WIN_CREATE)
		return ok(OTF2_EvtWriter_RmaWinCreate(w, NULL, ts, r->region));
	else
		return ok(OTF2_EvtWriter_RmaWinDestroy(w, NULL, ts, r->region));
}

static bool enc_rma_coll_begin(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, ts));
}

static bool enc_rma_coll_end(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_RmaCollectiveEnd(
	    w, NULL, ts, (OTF2_CollectiveOp)(r->region & 0xFF), (OTF2_RmaSyncLevel)(r->region >> 8),
	    p[0].rma.win, p[0].rma.remote, p[0].rma.value, p[1].nbc.received));
}

static bool enc_rma_op(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		       const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	if (r->kind == VT_REC_RMA_PUT)
		return ok(
		    OTF2_EvtWriter_RmaPut(w, NULL, ts, a->win, a->remote, a->value, p[1].nbc.id));
	else if (r->kind == VT_REC_RMA_GET)
		return ok(
		    OTF2_EvtWriter_RmaGet(w, NULL, ts, a->win, a->remote, a->value, p[1].nbc.id));
	else
		return ok(OTF2_EvtWriter_RmaAtomic(w, NULL, ts, a->win, a->remote,
						   (OTF2_RmaAtomicType)r->region, a->value,
						   p[1].nbc.received, p[1].nbc.id));
}

static bool enc_rma_complete(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			     const struct vt_rec *r, const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	if (r->region == VT_RMA_COMPLETE_BLOCKING)
		return ok(OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, ts, a->win, a->value));
	else if (r->region == VT_RMA_COMPLETE_NONBLOCKING)
		return ok(OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, NULL, ts, a->win, a->value));
	else
		return ok(OTF2_EvtWriter_RmaOpCompleteRemote(w, NULL, ts, a->win, a->value));
}

static bool enc_rma_lock(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
			 const union vt_rec_payload *p)
{
	const struct vt_rec_rma *a = &p[0].rma;
	if ((r->region & 0xFF) == VT_RMA_LOCK_REQUEST)
		return ok(OTF2_EvtWriter_RmaRequestLock(w, NULL, ts, a->win, a->remote, a->value,
							(OTF2_LockType)(r->region >> 8)));
	else
		return ok(OTF2_EvtWriter_RmaReleaseLock(w, NULL, ts, a->win, a->remote, a->value));
}

static bool enc_rma_group_sync(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts,
			       const struct vt_rec *r, const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_RmaGroupSync(w, NULL, ts, (OTF2_RmaSyncLevel)r->region,
					      p[0].rma.win, (OTF2_GroupRef)p[0].rma.value));
}

static bool enc_io(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		   const union vt_rec_payload *p)
{
	const struct vt_rec_io *a = &p[0].io;
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	switch (r->kind) {
	case VT_REC_IO_CREATE:
		rc = OTF2_EvtWriter_IoCreateHandle(
		    w, NULL, ts, a->handle, (OTF2_IoAccessMode)r->region,
		    (OTF2_IoCreationFlag)a->value, (OTF2_IoStatusFlag)a->flags);
		break;
	case VT_REC_IO_DESTROY:
		rc = OTF2_EvtWriter_IoDestroyHandle(w, NULL, ts, a->handle);
		break;
	case VT_REC_IO_BEGIN:
		rc = OTF2_EvtWriter_IoOperationBegin(
		    w, NULL, ts, a->handle, (OTF2_IoOperationMode)(r->region & 0xFF),
		    (OTF2_IoOperationFlag)(r->region >> 8), a->value, p[1].nbc.id);
		break;
	case VT_REC_IO_ISSUED:
		rc = OTF2_EvtWriter_IoOperationIssued(w, NULL, ts, a->handle, a->value);
		break;
	case VT_REC_IO_COMPLETE:
		rc = OTF2_EvtWriter_IoOperationComplete(w, NULL, ts, a->handle, a->value,
							p[1].nbc.id);
		break;
	case VT_REC_IO_CANCELLED:
		rc = OTF2_EvtWriter_IoOperationCancelled(w, NULL, ts, a->handle, a->value);
		break;
	case VT_REC_IO_SEEK:
		rc = OTF2_EvtWriter_IoSeek(w, NULL, ts, a->handle, (int64_t)a->value,
					   (OTF2_IoSeekOption)r->region, p[1].nbc.received);
		break;
	default:
		break;
	}
	return ok(rc);
}

static bool enc_counter(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	return vt_otf2_write_value(w, ts, r->region, r->region, p[0].value.value);
}

static bool enc_measure(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
			const union vt_rec_payload *p)
{
	return ok(OTF2_EvtWriter_MeasurementOnOff(
	    w, NULL, ts, r->region ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF));
}

/*
 * A sample: its frames become calling contexts; the unwind distance says how much of the
 * stack is new since the location's last sample (OTF2's definition): the nodes below the
 * part both share, plus the deepest shared one, which made progress as far as a sample can
 * tell.
 */
static bool enc_sample(struct vt_loc *loc, OTF2_EvtWriter *w, uint64_t ts, const struct vt_rec *r,
		       const union vt_rec_payload *p)
{
	uint32_t path[VT_REC_SAMPLE_MAX + 1], depth;
	uint32_t n = VT_REC_SAMPLE_FRAMES(r->region);
	if (n > VT_REC_SAMPLE_MAX)
		return true;
	uint32_t ctx = vt_callctx_path((const uint64_t *)(const void *)p, n,
				       r->region & VT_REC_SAMPLE_CUT, path, &depth);
	if (ctx == VT_CALLCTX_NONE)
		return true;
	uint32_t same = 0;
	while (loc->sample_path && same < depth && same < loc->sample_depth &&
	       path[same] == loc->sample_path[same])
		same++;
	uint32_t distance = same ? depth - same + 1 : depth;
	if (!ok(OTF2_EvtWriter_CallingContextSample(w, NULL, ts, ctx, distance, 0)))
		return false;
	if (!loc->sample_path)
		loc->sample_path = malloc((VT_REC_SAMPLE_MAX + 1) * sizeof(*loc->sample_path));
	if (loc->sample_path) {
		memcpy(loc->sample_path, path, depth * sizeof(*path));
		loc->sample_depth = depth;
	}
	return true;
}

static const encode_fn encoders[VT_REC_KIND_MAX] = {
    /* VT_REC_ENTER, VT_REC_LEAVE: in the loop below, without an indirect call. */
    [VT_REC_MPI_SEND] = enc_send,
    [VT_REC_MPI_RECV] = enc_recv,
    [VT_REC_MPI_ISEND] = enc_isend,
    [VT_REC_MPI_IRECV] = enc_irecv,
    [VT_REC_MPI_ISEND_COMPLETE] = enc_isend_complete,
    [VT_REC_MPI_IRECV_REQUEST] = enc_irecv_request,
    [VT_REC_MPI_REQUEST_TEST] = enc_request_test,
    [VT_REC_MPI_REQUEST_CANCELLED] = enc_request_cancelled,
    [VT_REC_MPI_COLL_BEGIN] = enc_coll_begin,
    [VT_REC_MPI_COLL_END] = enc_coll_end,
    [VT_REC_MPI_NBC_REQUEST] = enc_nbc_request,
    [VT_REC_MPI_NBC_COMPLETE] = enc_nbc_complete,
    [VT_REC_RMA_WIN_CREATE] = enc_rma_win,
    [VT_REC_RMA_WIN_DESTROY] = enc_rma_win,
    [VT_REC_RMA_COLL_BEGIN] = enc_rma_coll_begin,
    [VT_REC_RMA_COLL_END] = enc_rma_coll_end,
    [VT_REC_RMA_PUT] = enc_rma_op,
    [VT_REC_RMA_GET] = enc_rma_op,
    [VT_REC_RMA_ATOMIC] = enc_rma_op,
    [VT_REC_RMA_COMPLETE] = enc_rma_complete,
    [VT_REC_RMA_LOCK] = enc_rma_lock,
    [VT_REC_RMA_GROUP_SYNC] = enc_rma_group_sync,
    [VT_REC_IO_CREATE] = enc_io,
    [VT_REC_IO_DESTROY] = enc_io,
    [VT_REC_IO_BEGIN] = enc_io,
    [VT_REC_IO_ISSUED] = enc_io,
    [VT_REC_IO_COMPLETE] = enc_io,
    [VT_REC_IO_CANCELLED] = enc_io,
    [VT_REC_IO_SEEK] = enc_io,
    [VT_REC_COUNTER] = enc_counter,
    [VT_REC_MEASURE] = enc_measure,
    [VT_REC_SAMPLE] = enc_sample,
    /* VT_REC_METRIC: in the loop below, at the time of the event before it. */
};

void vt_otf2_encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to)
{
	OTF2_EvtWriter *w = writer_of(loc);
	uint64_t last = loc->last_ts;

	if (!w)
		return;
	if (!loc->began)
		begin(loc, from->ts);
	for (const struct vt_rec *r = from; r < to && !vt_otf2_failed(); r++) {
		if (r->kind == VT_REC_METRIC) {
			/* A value of the Enter or Leave before it, at its time: none if that
			 * event was not written (a call limit). */
			const struct vt_rec_metric *m = (const struct vt_rec_metric *)r;
			if (loc->last_recorded)
				vt_otf2_write_value(w, last, m->metric, m->metric, m->value);
			if (m->metric < __atomic_load_n(&n_metrics, __ATOMIC_ACQUIRE) &&
			    metrics[m->metric].occurrence == OTF2_METRIC_SYNCHRONOUS_STRICT)
				keep_strict(loc, m->metric, m->value);
			continue;
		}
		/* Records are in the order they happened; a clock that steps back is clamped. */
		uint64_t ts = r->ts > last ? r->ts : last;
		last = ts;
		/* Enter and Leave, by far the most; the values that follow are theirs. */
		if (r->kind == VT_REC_ENTER || r->kind == VT_REC_LEAVE)
			loc->n_strict = 0;
		if (r->kind == VT_REC_ENTER) {
			loc->last_recorded = enter(loc, w, ts, r->region & VT_REGION_ID_MASK);
			continue;
		}
		if (r->kind == VT_REC_LEAVE) {
			loc->last_recorded = leave(loc, ts, r->region & VT_REGION_ID_MASK);
			continue;
		}
		unsigned n = vt_rec_payloads(r);
		if (r + n < to && r->kind < VT_REC_KIND_MAX && encoders[r->kind] &&
		    !encoders[r->kind](loc, w, ts, r, (const union vt_rec_payload *)(r + 1)))
			break;
		r += n;
	}
	loc->last_ts = last;
}

void vt_otf2_buffer_flush(struct vt_loc *loc, uint64_t start, uint64_t stop)
{
	if (start < loc->last_ts)
		start = loc->last_ts;
	if (stop < start)
		stop = start;
	if (writer_of(loc))
		ok(OTF2_EvtWriter_BufferFlush(loc->writer, NULL, start, stop));
	loc->last_ts = stop;
}

void vt_otf2_loc_stop(struct vt_loc *loc, uint64_t ts)
{
	if (ts < loc->last_ts)
		ts = loc->last_ts;
	if (!writer_of(loc))
		return;
	if (unwind(loc, 0, ts))
		ok(OTF2_EvtWriter_MeasurementOnOff(loc->writer, NULL, ts, OTF2_MEASUREMENT_OFF));
	loc->last_ts = ts;
}

void vt_otf2_loc_close(struct vt_loc *loc, uint64_t ts)
{
	if (!writer_of(loc)) {
		/* A failed write left the writer to libotf2's error state: it is not closed (a
		 * close flushes), and the events are those its file holds. */
		if (vt_otf2_failed() && archive)
			loc->n_events = events_on_disk(loc->ref);
		loc->writer = NULL;
		goto out;
	}
	if (ts < loc->last_ts)
		ts = loc->last_ts;
	if (!loc->began)
		begin(loc, ts);
	if (unwind(loc, 0, ts) && loc->index > 0)
		ok(OTF2_EvtWriter_ThreadEnd(loc->writer, NULL, ts, thread_comm, loc->index));
	loc->last_ts = ts;
	if (loc->repaired)
		vt_info("thread %u: %lu Leave events added or dropped to keep regions balanced",
			loc->index, (unsigned long)loc->repaired);
	OTF2_EvtWriter_GetNumberOfEvents(loc->writer, &loc->n_events);
	if (vt_otf2_failed() || !ok(OTF2_Archive_CloseEvtWriter(archive, loc->writer)))
		loc->n_events = events_on_disk(loc->ref);
	loc->writer = NULL;
out:
	free(loc->stack);
	free(loc->sample_path);
	loc->sample_path = NULL;
	free(loc->strict);
	loc->strict = NULL;
	loc->n_strict = loc->cap_strict = 0;
	loc->stack = NULL;
	loc->depth = loc->cap = 0;
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
