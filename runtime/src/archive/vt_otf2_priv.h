/* SPDX-License-Identifier: BSD-3-Clause */
/* What the archive's own files share: naming, encoders, descriptors, chunks and the close. */
#ifndef VT_OTF2_PRIV_H
#define VT_OTF2_PRIV_H

#include "defs/vt_unify.h"
#include "record/vt_thread.h"
#include "regions/vt_region.h"

#include "base/vt_compiler.h"

#include <otf2/otf2.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * What the encoders (vt_encode.c) know of a location, in their table indexed by its index:
 * its event writer, the times and number of its events, and the state the next records
 * need. Touched with the location's lock held.
 */
struct vt_enc_value {
	uint32_t metric;
	uint64_t value;
};

struct vt_evtw;

struct vt_enc_loc {
	struct vt_evtw *writer;
	uint64_t last_ts, first_ts, n_events;
	bool began;
	bool seq_set;	    /* seq came with a VT_REC_THREAD_BEGIN (else: the location's index) */
	uint64_t seq;	    /* the thread's sequence number in its ThreadBegin and ThreadEnd */
	bool last_recorded; /* the last Enter/Leave was written: its metric values follow */
	/* The thread teams the location is in (ThreadTeamBegin without its End yet), outermost
	 * first: a team still open when the location closes ends there, after its regions. */
	uint32_t teams[8], n_teams;
	/* The synchronous values (strict or not) that followed the last Enter/Leave, in their
	 * order: what the Leaves vt writes itself (unwinding at a stop or at the end) carry,
	 * since readers expect a value of a strict metric at every Enter and Leave, and users
	 * the same of a counter read at each of them. */
	struct vt_enc_value *strict;
	uint32_t n_strict, cap_strict;
	uint32_t group; /* 1 + the class the last strict values were written as one event of */
	/* The calling contexts of the last sample, outermost first, for the next one's unwind
	 * distance; VT_REC_SAMPLE_MAX + 1 when allocated. */
	uint32_t *sample_path, sample_depth;
	/* POSIX operations begun on the location (VT_REC_IO_OP_BEGIN): the last one's matching
	 * id. */
	uint64_t io_ops;
	/* An operation began and has not ended: an end without its begin (cut off by a ring's
	 * window) is not written. */
	bool io_open;
};

/* Location index's encoder state (all zero for a location never encoded). */
const struct vt_enc_loc *vt_enc_loc(uint32_t index);

/* The first failed write of the trace: one line, and recording stops (vt_otf2.c). */
void vt_otf2_stop_writing(OTF2_ErrorCode rc);

/* Whether a libotf2 call of the write path succeeded; the first failure stops recording. */
static inline bool vt_otf2_ok(OTF2_ErrorCode rc)
{
	if (vt_likely(rc == OTF2_SUCCESS))
		return true;
	vt_otf2_stop_writing(rc);
	return false;
}

/* The program took the descriptor fd of vt's file path (closed: it refers to no file, else to
 * another): recording stops as after a failed write, with one line (vt_otf2.c). */
void vt_otf2_stop_taken(int fd, const char *path, bool closed);
/* Why recording stopped, for the last line: "the first failed write" or the descriptor. */
const char *vt_otf2_stop_cause(void);
/* Whether location ref's event file, if libotf2 opened it, is still at its descriptor; else
 * recording stopped (vt_otf2_stop_taken), and its writer must not be closed (vt_fds.c). */
bool vt_otf2_evt_fd_check(uint64_t ref);
/* The same for every location's event file still open: false at the first taken. */
bool vt_otf2_evt_fds_check(void);
/* libotf2 closed location ref's event file: its descriptor is no longer vt's. */
void vt_otf2_evt_fd_closed(uint64_t ref);
/* vt opened location ref's event file at fd (vt_evtfiles.c): kept and checked as libotf2's. */
void vt_otf2_evt_fd_opened(uint64_t ref, int fd, const struct stat *file);
/* A write of vt's into the event file path failed with errno err: recording stops with one
 * line, as after a failed write of libotf2's. */
void vt_otf2_evt_write_failed(const char *path, int err);

/* Location ref's event writer (vt_evtfiles.c): vt's own (archive/vt_evtw.h), writing its
 * chunks into the location's event file; NULL when out of memory. */
struct vt_evtw *vt_otf2_evt_open(uint64_t ref);
/* The writer's last chunk written, its file closed, the writer freed; *events: what the
 * file holds. false (and the file cut to its whole chunks) when recording had stopped or a
 * write failed. */
bool vt_otf2_evt_close(struct vt_evtw *w, uint64_t *events);
/* The writer freed, nothing written or closed (a forked process's copy). */
void vt_otf2_evt_forget(struct vt_evtw *w);

/* After a failed write: the events location ref's file holds, cut to its whole chunks. */
uint64_t vt_otf2_events_on_disk(uint64_t ref);
/* A location's event file could not be cut and ended (vt_otf2_events_on_disk): this
 * process's events cannot be read. */
bool vt_otf2_evt_unended(void);
/* libotf2's messages naming a file so far; and the code of the last one when one came
 * after since (vt_otf2_file_reports before a call that returned success though a write
 * failed), else OTF2_SUCCESS (also after vt_otf2_stop_writing). */
unsigned vt_otf2_file_reports(void);
OTF2_ErrorCode vt_otf2_write_reported(unsigned since);
/* Location ref of a rank that could not write its files: an event file and a local
 * definition file without records, written by this process; false when one failed. */
bool vt_otf2_empty_location(uint64_t ref);

/* The path of location ref's file of kind ext ("evt", "def") in the archive; false when
 * there is no archive or the path does not fit. */
bool vt_otf2_file_path(char *buf, size_t len, uint64_t ref, const char *ext);

/* The event chunks: 256 KiB, OTF2's smallest, eight kept per location and written at once
 * when the eighth is full (2 MiB writes), so memory stays VT_BUFFER_SIZE plus 2 MiB per
 * thread, of which a thread that records little touches the pages it fills. Threads' event
 * files are vt's own writer's (vt_evtfiles.c, vt_evtw.h); the plugin counters' locations
 * keep libotf2's event writers, whose memory comes from vt_chunks.c. */
#define EVT_CHUNK	(1u << 18)
#define EVT_CHUNKS_KEPT 8
extern const OTF2_MemoryCallbacks vt_otf2_memory_callbacks;
/* The archive is closed: the spare chunks go back to the system. */
void vt_otf2_chunks_release(void);

/* vt's own descriptors stay at or above this, clear of the program's usual ones (vt_fds.c). */
#define VT_FD_FLOOR 10
extern const OTF2_FlushCallbacks vt_otf2_flush_callbacks;
/* After a failed write a flush may never have reached its post_flush: every hold ends. */
void vt_otf2_low_fds_drop(void);
/* The spare descriptor: taken when the archive opens, given back for the definitions. */
void vt_otf2_spare_fd_take(void);
void vt_otf2_spare_fd_release(void);

struct vt_mpi_ops;

OTF2_Archive *vt_otf2_archive(void);
const char *vt_otf2_anchor(void);
/* VT_REPORT: runs vt-report on the written trace (vt_report_run.c). */
void vt_report_run(const char *anchor);
/* After a failed write: the archive, whose writers libotf2 left broken, is abandoned and
 * opened again for the definitions and the anchor (collectively, as at the start); NULL
 * when that failed. */
OTF2_Archive *vt_otf2_reopen(const struct vt_mpi_ops *ops);
/* After the definitions of an archive opened again: the event files join them (rank 0). */
void vt_otf2_reopen_done(void);
/* Why libotf2's last call failed (strerror of its errno). */
const char *vt_otf2_last_error(void);
/* Gives back the room and the descriptor kept for the definitions (see vt_otf2.c). */
void vt_otf2_reserve_release(void);
/* The room was given back in the child that wrote the trace (vt_apart.c): its path, a process's
 * own NAME.def, names the written definitions now and must never be cut here. */
void vt_otf2_reserve_forget(void);
/* The names a trace NAME takes in VT_PFORM_GDIR: NAME.otf2, NAME.def, NAME/, and what vt made
 * at each when it reserved the name (NAME/ only, the placeholder the finished trace replaces;
 * the others' ids are 0). */
enum { VT_OTF2_OWN_ANCHOR, VT_OTF2_OWN_DEF, VT_OTF2_OWN_DIR, VT_OTF2_OWN_N };
struct vt_otf2_file_id {
	dev_t dev;
	ino_t ino;
	mode_t type; /* S_IFREG, S_IFDIR: an inode freed may come back as a link */
};
/* Moves the finished archive name from the private directory priv into gdir, replacing the
 * placeholders own (vt_publish.c); 0 once every name there is what vt wrote, else -1 with
 * why, and the whole trace stays in priv. */
int vt_otf2_publish(const char *priv, const char *gdir, const char *name,
		    const struct vt_otf2_file_id *own, char *why, size_t len);
/* The trace is closed and complete (the process that wrote the anchor): it is published
 * into VT_PFORM_GDIR, and vt_otf2_anchor() names it there; keep_priv: other processes may
 * still write into the private directory (a rank ending alone). false with why (vt_otf2_anchor
 * then names the trace where it stays). */
bool vt_otf2_publish_trace(bool keep_priv, char *why, size_t len);
/* A trace that could not be written: the empty placeholder vt made (NAME/) is removed. */
void vt_otf2_own_files_drop(void);
/* While libotf2 may open files: the free descriptors below 10 are held, so that its files
 * land above them (nested holds count; see vt_otf2.c). */
void vt_otf2_low_fds_hold(void);
void vt_otf2_low_fds_release(void);
/* Location to gets the local definition file of location from, written and closed already:
 * a hard link to it; false (nothing made) when the file system refused. */
bool vt_otf2_local_defs_link(uint64_t from, uint64_t to);
struct vt_loc;
/* This process's locations get their local definition files (vt_deffiles.c): the clock
 * offsets and the id mapping tables of map (n bytes, vt_unify_maps_read's); false when a
 * write failed (its reason then vt_otf2_last_error's). */
bool vt_otf2_write_local_defs(OTF2_Archive *archive, struct vt_loc *locs, const char *map,
			      size_t n);
/* A write of vt's own at the end failed with errno err: vt_otf2_last_error says why. */
void vt_otf2_file_error(int err);
/* All n bytes written to fd (a short write goes on, EINTR retried): 0, or the errno that
 * stopped it (EIO for a write of nothing). vt_evtfiles.c. */
int vt_otf2_write_all(int fd, const uint8_t *bytes, size_t n);
/* The archive is closed: forget it. */
void vt_otf2_closed(void);
OTF2_Paradigm vt_otf2_region_paradigm(const struct vt_region *r);
OTF2_RegionRole vt_otf2_region_role(const struct vt_region *r);

/* What the metric service told the writer (vt_otf2.h), for the definitions. */
const struct vt_otf2_metric *vt_otf2_metrics(uint32_t *n);
const struct vt_otf2_instance *vt_otf2_instances(uint32_t *n);
uint64_t vt_otf2_metric_last_ts(void);

/* Whether a ThreadCreate or ThreadWait was written: the process's thread communicator is
 * then defined even with a single location (vt_def_process.thread_events). */
bool vt_otf2_thread_events(void);

/* MPI mode, a rank that ends alone: its event files move into an archive of its own,
 * NAME.abort-RANK, opened for its definitions; -1 after an error line. */
int vt_otf2_open_alone(void);

/* The collectives of a process on its own: it unifies its definitions as a group of one. */
extern const struct vt_mpi_ops vt_otf2_serial_ops;

/* The local id of the thread team's communicator in MPI mode. */
#define VT_OTF2_THREAD_COMM_LOCAL VT_UNIFY_THREAD_COMM_LOCAL

#endif
