/* SPDX-License-Identifier: BSD-3-Clause */
/* Event files: vt's writers' chunks into them, cut and ended after a failed write, or empty. */
#include "archive/vt_evtw.h"
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	/* A location's event file could not be ended after a failed write (no file, or no
	 * room for its last chunk): this process's events cannot be read. */
	bool unended;
} evt;

bool vt_otf2_evt_unended(void)
{
	return evt.unended;
}

/*
 * A location's event writer (archive/vt_evtw.h) and its file. The file is opened when the
 * first chunks are written (a location that records little writes once, at its end), at or
 * above VT_FD_FLOOR and close-on-exec, and kept as libotf2's were (vt_fds.c): a descriptor
 * the program took stops recording, and is neither written nor closed again. The chunks kept
 * are written in one write: EVT_CHUNKS_KEPT chunks of EVT_CHUNK, as libotf2 wrote its pool.
 */
struct vt_evt_file {
	struct vt_evtw w; /* first: the writer is the file */
	uint64_t ref;
	int fd;
};

/* The file's path, for messages; its location's number when the path does not fit. */
static void path_of(const struct vt_evt_file *f, char *buf, size_t len)
{
	if (!vt_otf2_file_path(buf, len, f->ref, "evt"))
		snprintf(buf, len, "location %llu's event file", (unsigned long long)f->ref);
}

static int failed(struct vt_evt_file *f, int err)
{
	char path[4096];
	path_of(f, path, sizeof(path));
	vt_otf2_evt_write_failed(path, err);
	return -err;
}

static int open_file(struct vt_evt_file *f)
{
	char path[4096];
	if (!vt_otf2_file_path(path, sizeof(path), f->ref, "evt"))
		return failed(f, ENAMETOOLONG);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	/* Clear of the program's usual descriptors where the limit allows, else where it is. */
	int high = fd >= 0 && fd < VT_FD_FLOOR ? fcntl(fd, F_DUPFD_CLOEXEC, VT_FD_FLOOR) : -1;
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		fd = -1;
		errno = e;
	}
	if (fd < 0)
		return failed(f, errno);
	f->fd = fd;
	vt_otf2_evt_fd_opened(f->ref, fd, &st);
	return 0;
}

int vt_otf2_write_all(int fd, const uint8_t *bytes, size_t n)
{
	while (n) {
		ssize_t k = write(fd, bytes, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EIO;
		bytes += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The writer's output: its chunks into the file, all of them (or the first failure). */
static int write_chunks(void *arg, const uint8_t *bytes, size_t n)
{
	struct vt_evt_file *f = arg;
	if (vt_otf2_failed())
		return -EIO;
	if (f->fd < 0 && open_file(f) < 0)
		return -EIO;
	if (!vt_otf2_evt_fd_check(f->ref))
		return -EBADF;
	int err = vt_otf2_write_all(f->fd, bytes, n);
	return err ? failed(f, err) : 0;
}

struct vt_evtw *vt_otf2_evt_open(uint64_t ref)
{
	struct vt_evt_file *f = malloc(sizeof(*f));
	if (!f || vt_evtw_init(&f->w, EVT_CHUNK, EVT_CHUNKS_KEPT, write_chunks, f) != 0) {
		free(f);
		return NULL;
	}
	f->ref = ref;
	f->fd = -1;
	return &f->w;
}

bool vt_otf2_evt_close(struct vt_evtw *w, uint64_t *events)
{
	struct vt_evt_file *f = (struct vt_evt_file *)w;
	bool mine = vt_otf2_evt_fd_check(f->ref);
	bool ok = mine && !vt_otf2_failed() && vt_evtw_close(w) == 0;
	vt_evtw_discard(w);
	*events = w->n_events;
	if (f->fd >= 0 && mine) {
		vt_otf2_evt_fd_closed(f->ref);
		if (close(f->fd) != 0 && ok) {
			ok = false;
			failed(f, errno);
		}
	}
	if (!ok)
		*events = vt_otf2_events_on_disk(f->ref);
	free(f);
	return ok;
}

void vt_otf2_evt_forget(struct vt_evtw *w)
{
	vt_evtw_discard(w);
	free(w);
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

uint64_t vt_otf2_events_on_disk(uint64_t ref)
{
	char path[4096];
	uint64_t events = 0;
	if (!vt_otf2_file_path(path, sizeof(path), ref, "evt"))
		return 0;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		vt_debug("%s: cannot end the event file (%s)", path, strerror(errno));
		evt.unended = true;
		return 0;
	}
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
			evt.unended = true;
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
	if (lseek(fd, 0, SEEK_END) < 0 || write(fd, last, sizeof(last)) != (ssize_t)sizeof(last)) {
		vt_debug("%s: cannot end the event file (%s)", path, strerror(errno));
		evt.unended = true;
	}
	close(fd);
	return events;
}

/*
 * The files of a location of a rank that could not write its own (vt_otf2_close.c): an
 * event file and a local definition file of one chunk without records, as libotf2 ends
 * its files, so that readers find the location with no events. What the rank may have left
 * there is replaced (the name removed, never written through).
 */
bool vt_otf2_empty_location(uint64_t ref)
{
	static const char *const ext[2] = {"evt", "def"};
	unsigned char chunk[CHUNK_HEADER_BYTES + 1] = {3, 'B', 1};
	chunk[CHUNK_HEADER_BYTES] = 2;
	bool ok = true;
	for (int k = 0; k < 2; k++) {
		char path[4096];
		if (!vt_otf2_file_path(path, sizeof(path), ref, ext[k]))
			return false;
		if (unlink(path) != 0 && errno != ENOENT)
			vt_debug("%s: %s", path, strerror(errno));
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 || write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			vt_debug("%s: not written (%s)", path, strerror(errno));
			ok = false;
		}
		if (fd >= 0)
			close(fd);
	}
	return ok;
}
