/* SPDX-License-Identifier: BSD-3-Clause */
/* I/O per file and process: operations, bytes, time, request sizes, the slowest operations. */
#ifndef VT_PROF_IO_H
#define VT_PROF_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vtr.h"

/*
 * Everything here comes from OTF2's I/O model (IoOperationBegin, IoOperationComplete,
 * IoOperationCancelled, IoCreateHandle, IoDuplicateHandle, IoSeek and the IoHandle, IoFile
 * and IoParadigm definitions), never from region names: the same for POSIX, ISO C and
 * MPI-IO handles. An operation is a Begin and the Complete (or Cancelled: a failed one) of
 * the same handle and matching id on the same location; its time runs from one to the other.
 */

/* Request sizes in powers of two: bucket 0 holds 0 bytes, bucket b > 0 [2^(b-1), 2^b). */
#define VT_PROF_IO_BUCKETS 65
unsigned vt_prof_io_bucket(uint64_t bytes);
/* The smallest size of bucket b (0, 1, 2, 4, ...). */
uint64_t vt_prof_io_bucket_low(unsigned b);

enum vt_prof_io_mode { VT_PROF_IO_READ, VT_PROF_IO_WRITE, VT_PROF_IO_FLUSH, VT_PROF_IO_MODES };
extern const char *const vt_prof_io_mode_names[VT_PROF_IO_MODES];

/* What was done on one file (of one paradigm), by one process or by all of them. */
struct vt_prof_io_stats {
	uint64_t ops[VT_PROF_IO_MODES]; /* completed operations per mode */
	uint64_t failed;		/* cancelled ones (any mode) */
	uint64_t opens, seeks;		/* handles created or duplicated; seeks */
	uint64_t read, written;		/* bytes done (Complete) */
	uint64_t time;			/* ticks from Begin to Complete or Cancelled, summed */
	/* request sizes (Begin) of reads and writes, failed ones included */
	uint64_t sizes[2][VT_PROF_IO_BUCKETS];
};

/* One file of one paradigm on one process (location group). */
struct vt_prof_io_row {
	size_t file;	/* index in vt_prof_io.files */
	uint32_t group; /* its location group (VTR_NONE: not known) */
	uint32_t rank;	/* its MPI rank, or VTR_NONE */
	struct vt_prof_io_stats s;
};

/* An IoFile under one paradigm (a handle without an IoFile is a file of its own, named as the
 * handle; handles without a definition are one, "(undefined handle)"). */
struct vt_prof_io_file {
	const char *paradigm, *name;
	struct vt_prof_io_stats s; /* all processes */
};

/* One operation, for the slowest ones. */
struct vt_prof_io_op {
	uint64_t duration, begin; /* ticks */
	size_t row;		  /* index in vt_prof_io.rows */
	size_t location;	  /* index in the trace's locations */
	enum vt_prof_io_mode mode;
	uint64_t requested, done;
	bool failed;
};

/* The N longest operations seen: a min-heap while adding, sorted by vt_prof_io_top_sort. */
struct vt_prof_io_top {
	struct vt_prof_io_op *ops;
	size_t n, cap;
};
void vt_prof_io_top_init(struct vt_prof_io_top *top, size_t cap);
/* Kept if it is one of the cap longest so far (ties: the earlier begin wins, then the
 * lower location). */
void vt_prof_io_top_add(struct vt_prof_io_top *top, const struct vt_prof_io_op *op);
/* Longest first, in that order of ties. */
void vt_prof_io_top_sort(struct vt_prof_io_top *top);

struct vt_prof_io {
	const struct vtr_trace *t;
	struct vt_prof_io_file *files; /* after vt_prof_io_end: sorted by paradigm, name */
	size_t nfiles;
	struct vt_prof_io_row *rows; /* after vt_prof_io_end: by file, then rank or group */
	size_t nrows;
	struct vt_prof_io_top top; /* sorted after vt_prof_io_end */
	struct vt_prof_io_stats all;
	/* Completes and Cancelleds without their Begin; Begins never completed. */
	uint64_t unmatched, open_at_end;
	bool any; /* an event of the I/O model */
	void *priv;
};

/* The model built from the I/O events another reading hands over (merged or location by
 * location); top: how many of the slowest operations to keep (0: none). */
struct vt_prof_io *vt_prof_io_new(const struct vtr_trace *t, size_t top);
void vt_prof_io_event(struct vt_prof_io *m, const struct vtr_location *l,
		      const struct vtr_io_event *e);
/* After the last event: the files' sums, the order of files, rows and the slowest. */
void vt_prof_io_end(struct vt_prof_io *m);

/* The model in a pass of its own over t, location by location. NULL, with a one-line reason
 * in err, when the events cannot be read. */
struct vt_prof_io *vt_prof_io_read(struct vtr_trace *t, size_t top, char *err, size_t errlen);

void vt_prof_io_free(struct vt_prof_io *m);

#endif
