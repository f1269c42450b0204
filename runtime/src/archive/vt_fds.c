/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's descriptors and libotf2's: low descriptors held while libotf2 opens files, a spare one. */
#include "archive/vt_otf2_priv.h"
#include "base/vt_clock.h"
#include "interpose/vt_own_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
 *
 * The program may take those descriptors from under vt (dup2 over them, close them): each
 * event file's descriptor, device and inode are kept, and every later flush and the close of
 * the writer first check them. A descriptor that no longer refers to its file stops recording
 * (vt_otf2_stop_taken): that flush writes nothing, no writer is used or closed again (libotf2
 * would write into and close the program's descriptor), and the trace is what the files hold.
 * closefrom and close_range spare these descriptors (interpose/vt_own_fds.c).
 */
static struct {
	pthread_mutex_t lock;
	/* The low descriptors held, while users > 0: [0] in the process's descriptor table,
	 * [1] in the writer thread's own (interpose/vt_own_fds.h), each closed in its table. */
	int users[2], fds[2][VT_FD_FLOOR], n[2];
	/* A descriptor (/dev/null, at fd 10 or above) kept from the start: given back when a
	 * program that took every descriptor made libotf2's opens fail, the definitions are
	 * still written, one file after the other; and copied to hold low descriptors. */
	int spare;
	dev_t spare_dev;
	ino_t spare_ino;
	/* The locations whose event file libotf2 opened (see below), and its descriptor (-1:
	 * not found), device and inode. */
	struct opened {
		uint64_t ref;
		int fd;
		dev_t dev;
		ino_t ino;
	} * opened;
	size_t n_opened, cap_opened;
} low = {.lock = PTHREAD_MUTEX_INITIALIZER, .spare = -1};

/* The flush under way on this thread: the descriptor its event file should get, and whether
 * it holds the low ones. */
static __thread struct {
	int probe;
	bool held;
} flush = {.probe = -1};

/* Whether fd still refers to the file of device dev and inode ino. */
static bool same_file(int fd, dev_t dev, ino_t ino)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

static int dup_spare(int min)
{
	int kept = __atomic_load_n(&low.spare, __ATOMIC_ACQUIRE);
	/* A spare the program took over (dup2 onto it) is its file now: not copied. */
	if (kept >= 0 && same_file(kept, low.spare_dev, low.spare_ino)) {
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

/* The set of held descriptors of the caller's descriptor table. */
static int table(void)
{
	return vt_own_fds_in_own_table() ? 1 : 0;
}

static void low_fds_close_locked(int k)
{
	while (low.n[k] > 0)
		close(low.fds[k][--low.n[k]]);
}

void vt_otf2_low_fds_hold(void)
{
	int saved = errno, k = table();
	pthread_mutex_lock(&low.lock);
	if (low.users[k]++ == 0) {
		low.n[k] = 0;
		bool room = false; /* a descriptor at or above the floor is free */
		while (low.n[k] < VT_FD_FLOOR) {
			int fd = dup_spare(0);
			if (fd < 0)
				break;
			if (fd >= VT_FD_FLOOR) {
				close(fd);
				room = true;
				break;
			}
			low.fds[k][low.n[k]++] = fd;
		}
		/* Only low descriptors were free: libotf2 takes one of them rather than none. */
		if (!room)
			low_fds_close_locked(k);
	}
	pthread_mutex_unlock(&low.lock);
	errno = saved;
}

void vt_otf2_low_fds_release(void)
{
	int saved = errno, k = table();
	pthread_mutex_lock(&low.lock);
	if (low.users[k] > 0 && --low.users[k] == 0)
		low_fds_close_locked(k);
	pthread_mutex_unlock(&low.lock);
	errno = saved;
}

/* After a failed write a flush may never have reached its post_flush: every hold of the
 * caller's table ends. */
void vt_otf2_low_fds_drop(void)
{
	int k = table();
	pthread_mutex_lock(&low.lock);
	low.users[k] = 0;
	low_fds_close_locked(k);
	pthread_mutex_unlock(&low.lock);
}

/*
 * libotf2 opens a location's event file at its first flush and keeps it open: only that
 * flush (and the end) needs the low descriptors held. Holding them at every flush would
 * show the program, whose threads run on meanwhile, busy descriptors it had closed.
 */

/* Location ref's entry (a copy) when its event file was opened. */
static bool find_opened(uint64_t ref, struct opened *out)
{
	bool found = false;
	pthread_mutex_lock(&low.lock);
	for (size_t i = 0; i < low.n_opened && !found; i++)
		if (low.opened[i].ref == ref) {
			*out = low.opened[i];
			found = true;
		}
	pthread_mutex_unlock(&low.lock);
	return found;
}

static void mark_opened(uint64_t ref, int fd, const struct stat *file)
{
	pthread_mutex_lock(&low.lock);
	if (low.n_opened == low.cap_opened) {
		size_t cap = low.cap_opened ? 2 * low.cap_opened : 16;
		struct opened *grown = realloc(low.opened, cap * sizeof(*grown));
		if (grown) {
			low.opened = grown;
			low.cap_opened = cap;
		}
	}
	if (low.n_opened < low.cap_opened)
		low.opened[low.n_opened++] =
		    (struct opened){.ref = ref, .fd = fd, .dev = file->st_dev, .ino = file->st_ino};
	pthread_mutex_unlock(&low.lock);
	if (fd >= 0)
		vt_own_fd_add(fd);
}

void vt_otf2_evt_fd_opened(uint64_t ref, int fd, const struct stat *file)
{
	mark_opened(ref, fd, file);
}

/* Whether location ref's event file, when opened, is still at its descriptor; if not,
 * recording stops with one line. */
static bool still_mine(const struct opened *o)
{
	if (o->fd < 0 || same_file(o->fd, o->dev, o->ino))
		return true;
	int saved = errno;
	struct stat st;
	bool closed = fstat(o->fd, &st) != 0;
	char path[4096];
	if (!vt_otf2_file_path(path, sizeof(path), o->ref, "evt"))
		snprintf(path, sizeof(path), "location %llu's event file",
			 (unsigned long long)o->ref);
	vt_otf2_stop_taken(o->fd, path, closed);
	errno = saved;
	return false;
}

bool vt_otf2_evt_fd_check(uint64_t ref)
{
	struct opened o;
	return !find_opened(ref, &o) || still_mine(&o);
}

void vt_otf2_evt_fd_closed(uint64_t ref)
{
	int fd = -1;
	pthread_mutex_lock(&low.lock);
	for (size_t i = 0; i < low.n_opened; i++)
		if (low.opened[i].ref == ref) {
			fd = low.opened[i].fd;
			low.opened[i].fd = -1;
		}
	pthread_mutex_unlock(&low.lock);
	if (fd >= 0)
		vt_own_fd_remove(fd);
}

bool vt_otf2_evt_fds_check(void)
{
	bool ok = true;
	pthread_mutex_lock(&low.lock);
	size_t n = low.n_opened;
	pthread_mutex_unlock(&low.lock);
	/* Entries are only added: the first n stay as they are. */
	for (size_t i = 0; i < n && ok; i++) {
		pthread_mutex_lock(&low.lock);
		struct opened o = low.opened[i];
		pthread_mutex_unlock(&low.lock);
		ok = still_mine(&o);
	}
	return ok;
}

/* The descriptor of the file of device dev and inode ino that libotf2 just opened: the one
 * probed before the flush, else the first that refers to it (a program that holds most
 * descriptors moved it elsewhere); -1 when none does. */
static int find_fd(int probe, const struct stat *file)
{
	if (same_file(probe, file->st_dev, file->st_ino))
		return probe;
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 0; fd < max; fd++)
		if (same_file(fd, file->st_dev, file->st_ino))
			return fd;
	return -1;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	int saved = errno;
	flush.probe = -1;
	flush.held = false;
	struct opened o;
	if (type == OTF2_FILETYPE_EVENTS && find_opened(loc, &o)) {
		/* The program took the descriptor: libotf2 keeps the chunks and writes nothing. */
		bool mine = still_mine(&o);
		errno = saved;
		return mine ? OTF2_FLUSH : OTF2_NO_FLUSH;
	}
	vt_otf2_low_fds_hold();
	flush.held = true;
	if (type == OTF2_FILETYPE_EVENTS) {
		flush.probe = dup_spare(VT_FD_FLOOR);
		if (flush.probe >= 0)
			close(flush.probe);
	}
	errno = saved;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
	int saved = errno;
	char path[4096];
	struct stat file;
	if (flush.held && type == OTF2_FILETYPE_EVENTS &&
	    vt_otf2_file_path(path, sizeof(path), loc, "evt")) {
		if (stat(path, &file) == 0) {
			int fd = find_fd(flush.probe, &file);
			if (fd >= 0)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
			mark_opened(loc, fd, &file);
		}
	}
	flush.probe = -1;
	errno = saved;
	if (flush.held)
		vt_otf2_low_fds_release();
	flush.held = false;
	return vt_clock_now();
}

const OTF2_FlushCallbacks vt_otf2_flush_callbacks = {pre_flush, post_flush};

void vt_otf2_spare_fd_take(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && fd < VT_FD_FLOOR) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, VT_FD_FLOOR);
		close(fd);
		fd = high;
	}
	if (fd >= 0 && fstat(fd, &st) != 0) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		low.spare_dev = st.st_dev;
		low.spare_ino = st.st_ino;
		vt_own_fd_add(fd);
	}
	low.spare = fd;
}

void vt_otf2_spare_fd_release(void)
{
	int fd = __atomic_exchange_n(&low.spare, -1, __ATOMIC_ACQ_REL);
	/* Taken over by the program (dup2 onto it): its file now, left open. */
	if (fd >= 0 && same_file(fd, low.spare_dev, low.spare_ino)) {
		vt_own_fd_remove(fd);
		close(fd);
	}
}
