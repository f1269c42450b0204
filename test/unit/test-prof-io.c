/* SPDX-License-Identifier: BSD-3-Clause */
/* libvtprof's I/O model (tools/lib/profile/io.c): size buckets, the slowest N, per-file sums. */
/*
 * What a small trace does not reach: the bucket edges (0, 1, powers of two and one below,
 * UINT64_MAX), the slowest N kept over many operations with ties, operations of two handles
 * on one file counted as that file's, the same file under two paradigms kept apart, two
 * processes' rows, a failed (cancelled) operation, non-blocking operations that complete out
 * of order, ends without a begin, and handles without a definition.
 */
#include "io.h"
#include "unit.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

static void buckets(void)
{
	CHECK(vt_prof_io_bucket(0) == 0);
	CHECK(vt_prof_io_bucket(1) == 1);
	CHECK(vt_prof_io_bucket(2) == 2);
	CHECK(vt_prof_io_bucket(3) == 2);
	CHECK(vt_prof_io_bucket(4) == 3);
	CHECK(vt_prof_io_bucket(1023) == 10);
	CHECK(vt_prof_io_bucket(1024) == 11);
	CHECK(vt_prof_io_bucket(UINT64_MAX) == 64);
	CHECK(vt_prof_io_bucket_low(0) == 0);
	CHECK(vt_prof_io_bucket_low(1) == 1);
	CHECK(vt_prof_io_bucket_low(11) == 1024);
	CHECK(vt_prof_io_bucket_low(64) == UINT64_C(1) << 63);
	for (unsigned b = 1; b < VT_PROF_IO_BUCKETS; b++) {
		CHECK(vt_prof_io_bucket(vt_prof_io_bucket_low(b)) == b);
		CHECK(vt_prof_io_bucket(vt_prof_io_bucket_low(b) - 1) == b - 1);
	}
}

static void top(void)
{
	struct vt_prof_io_top t;
	vt_prof_io_top_init(&t, 5);
	/* durations 0..99 in a scrambled order; 90 twice (begins 7 and 3) */
	for (uint64_t i = 0; i < 100; i++) {
		struct vt_prof_io_op op = {.duration = (i * 37) % 100, .begin = 1000 + i};
		vt_prof_io_top_add(&t, &op);
	}
	struct vt_prof_io_op a = {.duration = 96, .begin = 7}, b = {.duration = 96, .begin = 3};
	vt_prof_io_top_add(&t, &a);
	vt_prof_io_top_add(&t, &b);
	vt_prof_io_top_sort(&t);
	CHECK(t.n == 5);
	uint64_t want[5] = {99, 98, 97, 96, 96};
	for (size_t i = 0; i < 5 && i < t.n; i++)
		CHECK(t.ops[i].duration == want[i]);
	CHECK(t.n == 5 && t.ops[3].begin == 3 && t.ops[4].begin == 7);
	free(t.ops);

	vt_prof_io_top_init(&t, 0);
	vt_prof_io_top_add(&t, &a);
	CHECK(t.n == 0);
	vt_prof_io_top_init(&t, 3);
	vt_prof_io_top_add(&t, &a);
	vt_prof_io_top_sort(&t);
	CHECK(t.n == 1 && t.ops[0].begin == 7);
	free(t.ops);
}

/* Handles: 0, 1 POSIX on data (two descriptors), 2 MPI-IO on data, 3 POSIX without a file. */
static struct vtr_io_paradigm paradigms[2] = {{true, "POSIX"}, {true, "MPI-IO"}};
static struct vtr_io_file files[1] = {{true, "data"}};
static struct vtr_io_handle handles[4] = {
    {true, "data", 0, 0, VTR_NONE, VTR_NONE},
    {true, "data", 0, 0, VTR_NONE, VTR_NONE},
    {true, "data", 0, 1, VTR_NONE, VTR_NONE},
    {true, "pipe:[1]", VTR_NONE, 0, VTR_NONE, VTR_NONE},
};
static struct vtr_location_group groups[2] = {{true, "rank 0", 0, 0}, {true, "rank 1", 0, 0}};
static struct vtr_location locs[3] = {
    {.id = 0, .index = 0, .name = "r0", .group = 0, .rank = 0},
    {.id = 1, .index = 1, .name = "r0 thread", .group = 0, .rank = 0},
    {.id = 2, .index = 2, .name = "r1", .group = 1, .rank = 1},
};

static void op(struct vt_prof_io *m, int l, uint32_t h, uint32_t mode, uint64_t id, uint64_t t0,
	       uint64_t req)
{
	struct vtr_io_event e = {.kind = VTR_EV_IoOperationBegin,
				 .time = t0,
				 .handle = h,
				 .mode = mode,
				 .bytes = req,
				 .matching = id};
	vt_prof_io_event(m, &locs[l], &e);
}

static void done(struct vt_prof_io *m, int l, uint32_t h, uint64_t id, uint64_t t1, uint64_t n,
		 bool cancelled)
{
	struct vtr_io_event e = {.kind = cancelled ? VTR_EV_IoOperationCancelled
						   : VTR_EV_IoOperationComplete,
				 .time = t1,
				 .handle = h,
				 .bytes = n,
				 .matching = id};
	vt_prof_io_event(m, &locs[l], &e);
}

static void model(void)
{
	struct vtr_trace t = {.io_paradigms = paradigms,
			      .nio_paradigms = 2,
			      .io_files = files,
			      .nio_files = 1,
			      .io_handles = handles,
			      .nio_handles = 4,
			      .groups = groups,
			      .ngroups = 2,
			      .locations = locs,
			      .nlocations = 3};
	struct vt_prof_io *m = vt_prof_io_new(&t, 3);
	struct vtr_io_event create = {.kind = VTR_EV_IoCreateHandle, .handle = 0};
	vt_prof_io_event(m, &locs[0], &create);
	struct vtr_io_event dup = {.kind = VTR_EV_IoDuplicateHandle, .handle = 0, .other = 1};
	vt_prof_io_event(m, &locs[0], &dup);
	/* rank 0, master: write 100 of 100 on handle 0, 50 of 64 on handle 1 (same file) */
	op(m, 0, 0, OTF2_IO_OPERATION_MODE_WRITE, 1, 10, 100);
	done(m, 0, 0, 1, 20, 100, false);
	op(m, 0, 1, OTF2_IO_OPERATION_MODE_WRITE, 1, 30, 64);
	done(m, 0, 1, 1, 70, 50, false);
	/* rank 0, thread: two non-blocking reads, the second done first; a failed read */
	op(m, 1, 0, OTF2_IO_OPERATION_MODE_READ, 5, 100, 4096);
	op(m, 1, 0, OTF2_IO_OPERATION_MODE_READ, 6, 101, 4095);
	done(m, 1, 0, 6, 110, 4095, false);
	done(m, 1, 0, 5, 300, 4000, false);
	op(m, 1, 0, OTF2_IO_OPERATION_MODE_READ, 7, 400, 8);
	done(m, 1, 0, 7, 405, 0, true);
	/* rank 1: MPI-IO write on the same file name, a flush, a pipe read; an end without a
	 * begin, a begin never ended */
	op(m, 2, 2, OTF2_IO_OPERATION_MODE_WRITE, 9, 0, 1 << 20);
	done(m, 2, 2, 9, 250, 1 << 20, false);
	op(m, 2, 0, OTF2_IO_OPERATION_MODE_FLUSH, 10, 260, 0);
	done(m, 2, 0, 10, 262, 0, false);
	op(m, 2, 3, OTF2_IO_OPERATION_MODE_READ, 11, 270, 64);
	done(m, 2, 3, 11, 271, 5, false);
	done(m, 2, 3, 12, 280, 5, false);
	op(m, 2, 3, OTF2_IO_OPERATION_MODE_READ, 13, 290, 64);
	vt_prof_io_end(m);

	CHECK(m->any);
	CHECK(m->unmatched == 1 && m->open_at_end == 1);
	/* files by paradigm name, then name: MPI-IO data, POSIX data, POSIX pipe:[1] */
	CHECK(m->nfiles == 3);
	if (m->nfiles != 3)
		goto out;
	CHECK(!strcmp(m->files[0].paradigm, "MPI-IO") && !strcmp(m->files[0].name, "data"));
	CHECK(!strcmp(m->files[1].paradigm, "POSIX") && !strcmp(m->files[1].name, "data"));
	CHECK(!strcmp(m->files[2].paradigm, "POSIX") && !strcmp(m->files[2].name, "pipe:[1]"));
	const struct vt_prof_io_stats *d = &m->files[1].s;
	CHECK(d->ops[VT_PROF_IO_WRITE] == 2 && d->written == 150);
	CHECK(d->ops[VT_PROF_IO_READ] == 2 && d->read == 8095 && d->failed == 1);
	CHECK(d->ops[VT_PROF_IO_FLUSH] == 1 && d->opens == 2);
	CHECK(d->time == 10 + 40 + 200 + 9 + 5 + 2);
	/* requests of 100 and 64: both in [64, 128) */
	CHECK(d->sizes[VT_PROF_IO_WRITE][7] == 2);
	CHECK(d->sizes[VT_PROF_IO_READ][13] == 1 && d->sizes[VT_PROF_IO_READ][12] == 1);
	CHECK(d->sizes[VT_PROF_IO_READ][4] == 1); /* the failed read of 8 */
	CHECK(m->files[0].s.written == 1 << 20 && m->files[0].s.ops[VT_PROF_IO_WRITE] == 1);
	CHECK(m->files[2].s.read == 5 && m->files[2].s.ops[VT_PROF_IO_READ] == 1);
	CHECK(m->all.written == 150 + (1 << 20) && m->all.read == 8100);
	/* rows: MPI-IO data rank 1; POSIX data rank 0 (both threads), rank 1; pipe rank 1 */
	CHECK(m->nrows == 4);
	if (m->nrows != 4)
		goto out;
	CHECK(m->rows[0].file == 0 && m->rows[0].rank == 1);
	CHECK(m->rows[1].file == 1 && m->rows[1].rank == 0 && m->rows[1].group == 0);
	CHECK(m->rows[1].s.written == 150 && m->rows[1].s.read == 8095);
	CHECK(m->rows[2].file == 1 && m->rows[2].rank == 1 && m->rows[2].s.ops[2] == 1);
	CHECK(m->rows[3].file == 2 && m->rows[3].rank == 1);
	/* the slowest 3: the MPI-IO write (250), the read of 4096 (200), the short write (40) */
	CHECK(m->top.n == 3);
	if (m->top.n != 3)
		goto out;
	CHECK(m->top.ops[0].duration == 250 && m->top.ops[0].row == 0 &&
	      m->top.ops[0].location == 2);
	CHECK(m->top.ops[1].duration == 200 && m->top.ops[1].row == 1 &&
	      m->top.ops[1].mode == VT_PROF_IO_READ && m->top.ops[1].requested == 4096 &&
	      m->top.ops[1].done == 4000 && m->top.ops[1].location == 1);
	CHECK(m->top.ops[2].duration == 40 && m->top.ops[2].requested == 64 &&
	      m->top.ops[2].done == 50);
out:
	vt_prof_io_free(m);
}

/* Handles without a definition: all one file, "(undefined handle)" of paradigm "(unknown)". */
static void undefined(void)
{
	struct vtr_trace t = {.io_paradigms = paradigms,
			      .nio_paradigms = 2,
			      .io_files = files,
			      .nio_files = 1,
			      .io_handles = handles,
			      .nio_handles = 4,
			      .groups = groups,
			      .ngroups = 2,
			      .locations = locs,
			      .nlocations = 3};
	struct vt_prof_io *m = vt_prof_io_new(&t, 0);
	op(m, 0, 7, OTF2_IO_OPERATION_MODE_WRITE, 1, 0, 10);
	done(m, 0, 7, 1, 5, 10, false);
	op(m, 0, 8, OTF2_IO_OPERATION_MODE_READ, 1, 6, 20);
	done(m, 0, 8, 1, 9, 20, false);
	op(m, 0, 0, OTF2_IO_OPERATION_MODE_READ, 2, 10, 30);
	done(m, 0, 0, 2, 12, 30, false);
	vt_prof_io_end(m);
	CHECK(m->nfiles == 2 && m->top.n == 0);
	if (m->nfiles == 2) {
		CHECK(!strcmp(m->files[0].paradigm, "(unknown)") &&
		      !strcmp(m->files[0].name, "(undefined handle)"));
		CHECK(m->files[0].s.written == 10 && m->files[0].s.read == 20);
		CHECK(m->files[1].s.read == 30 && m->files[1].s.time == 2);
	}
	vt_prof_io_free(m);
}

int main(void)
{
	buckets();
	top();
	model();
	undefined();
	return unit_done();
}
