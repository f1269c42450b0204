/* SPDX-License-Identifier: BSD-3-Clause */
/* Event files after a failed write: cut to whole chunks and ended, or a lost rank's made empty. */
#include "archive/vt_otf2_priv.h"
#include "base/vt_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
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
