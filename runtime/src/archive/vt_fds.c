/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's descriptors and libotf2's: low descriptors held while libotf2 opens files, a spare one. */
#include "archive/vt_otf2_priv.h"
#include "base/vt_clock.h"

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
 */
static struct {
	pthread_mutex_t lock;
	int users, fds[VT_FD_FLOOR], n; /* the low descriptors held, while users > 0 */
	/* A descriptor (/dev/null, at fd 10 or above) kept from the start: given back when a
	 * program that took every descriptor made libotf2's opens fail, the definitions are
	 * still written, one file after the other; and copied to hold low descriptors. */
	int spare;
	/* The locations whose event file libotf2 opened (see below). */
	uint64_t *opened;
	size_t n_opened, cap_opened;
} low = {.lock = PTHREAD_MUTEX_INITIALIZER, .spare = -1};

/* The flush under way on this thread: the descriptor its event file should get, and whether
 * it holds the low ones. */
static __thread struct {
	int probe;
	bool held;
} flush = {.probe = -1};

static int dup_spare(int min)
{
	int kept = __atomic_load_n(&low.spare, __ATOMIC_ACQUIRE);
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
	while (low.n > 0)
		close(low.fds[--low.n]);
}

void vt_otf2_low_fds_hold(void)
{
	int saved = errno;
	pthread_mutex_lock(&low.lock);
	if (low.users++ == 0) {
		low.n = 0;
		bool room = false; /* a descriptor at or above the floor is free */
		while (low.n < VT_FD_FLOOR) {
			int fd = dup_spare(0);
			if (fd < 0)
				break;
			if (fd >= VT_FD_FLOOR) {
				close(fd);
				room = true;
				break;
			}
			low.fds[low.n++] = fd;
		}
		/* Only low descriptors were free: libotf2 takes one of them rather than none. */
		if (!room)
			low_fds_close_locked();
	}
	pthread_mutex_unlock(&low.lock);
	errno = saved;
}

void vt_otf2_low_fds_release(void)
{
	int saved = errno;
	pthread_mutex_lock(&low.lock);
	if (low.users > 0 && --low.users == 0)
		low_fds_close_locked();
	pthread_mutex_unlock(&low.lock);
	errno = saved;
}

/* After a failed write a flush may never have reached its post_flush: every hold ends. */
void vt_otf2_low_fds_drop(void)
{
	pthread_mutex_lock(&low.lock);
	low.users = 0;
	low_fds_close_locked();
	pthread_mutex_unlock(&low.lock);
}

/*
 * libotf2 opens a location's event file at its first flush and keeps it open: only that
 * flush (and the end) needs the low descriptors held. Holding them at every flush would
 * show the program, whose threads run on meanwhile, busy descriptors it had closed.
 */

static bool is_opened(uint64_t ref)
{
	bool found = false;
	pthread_mutex_lock(&low.lock);
	for (size_t i = 0; i < low.n_opened && !found; i++)
		found = low.opened[i] == ref;
	pthread_mutex_unlock(&low.lock);
	return found;
}

static void mark_opened(uint64_t ref)
{
	pthread_mutex_lock(&low.lock);
	if (low.n_opened == low.cap_opened) {
		size_t cap = low.cap_opened ? 2 * low.cap_opened : 16;
		uint64_t *grown = realloc(low.opened, cap * sizeof(*grown));
		if (grown) {
			low.opened = grown;
			low.cap_opened = cap;
		}
	}
	if (low.n_opened < low.cap_opened)
		low.opened[low.n_opened++] = ref;
	pthread_mutex_unlock(&low.lock);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
				bool final)
{
	int saved = errno;
	flush.probe = -1;
	flush.held = false;
	if (type == OTF2_FILETYPE_EVENTS && is_opened(loc))
		return OTF2_FLUSH;
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
	struct stat file, fd;
	if (flush.held && type == OTF2_FILETYPE_EVENTS &&
	    vt_otf2_file_path(path, sizeof(path), loc, "evt")) {
		if (stat(path, &file) == 0) {
			mark_opened(loc);
			if (flush.probe >= 0 && fstat(flush.probe, &fd) == 0 &&
			    file.st_dev == fd.st_dev && file.st_ino == fd.st_ino)
				fcntl(flush.probe, F_SETFD, FD_CLOEXEC);
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
	if (fd >= 0 && fd < VT_FD_FLOOR) {
		low.spare = fcntl(fd, F_DUPFD_CLOEXEC, VT_FD_FLOOR);
		close(fd);
	} else {
		low.spare = fd;
	}
}

void vt_otf2_spare_fd_release(void)
{
	int fd = __atomic_exchange_n(&low.spare, -1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
}
