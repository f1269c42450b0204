/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks of MPI-IO: opening, closing, reads, writes and seeks of files. */
#ifndef VT_MPI_HOOKS_IO_H
#define VT_MPI_HOOKS_IO_H

#include "vt_mpi_hooks.h"

/*
 * MPI-IO. MPI_File_open is IoCreateHandle (the handle an IoHandle definition of the MPI-IO
 * paradigm, named after the file, on the open's communicator), MPI_File_close
 * IoDestroyHandle. A read or write is IoOperationBegin (bytes requested; COLLECTIVE for the
 * _all and _ordered forms) and IoOperationComplete (bytes done, from the status; the bytes
 * requested when the status is ignored) in the call; a non-blocking one (MPI_File_iread...)
 * is NON_BLOCKING, IoOperationIssued in the call and IoOperationComplete at the Wait/Test
 * that completes its request; a split collective (_begin/_end) is issued at _begin and
 * complete at _end. A failed operation is IoOperationCancelled, and MPI's error returned.
 * MPI_File_seek and _seek_shared are IoSeek, offsets in etypes of the view, as MPI counts
 * (the shared pointer's offset reached only for MPI_SEEK_SET: others move it at once).
 */
VTW_HIDDEN void vtw_file_opened(MPI_File fh, MPI_Comm comm, const char *name, int amode);
VTW_HIDDEN void vtw_file_closed(uint64_t handle);
VTW_HIDDEN uint64_t vtw_io_begin(MPI_File fh, uint32_t mode, uint32_t flags, uint64_t bytes);
VTW_HIDDEN void vtw_io_end(MPI_File fh, uint64_t id, int ret, const MPI_Status *st, uint64_t bytes);
/* req: a non-blocking operation's request; NULL: a split collective's _begin. */
VTW_HIDDEN void vtw_io_issued(MPI_File fh, uint64_t id, int ret, const MPI_Request *req,
			      uint64_t bytes);
VTW_HIDDEN void vtw_io_split_end(MPI_File fh, int ret, const MPI_Status *st);
VTW_HIDDEN void vtw_io_seek(MPI_File fh, MPI_Offset offset, int whence, int shared);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static inline struct vtw_call vtw_io_pre(MPI_File fh, uint32_t mode, uint32_t flags,
					 MPI_Count count, MPI_Datatype type)
{
	struct vtw_call c = vtw_none;
	c.bytes = vtw_bytes(count, type);
	c.id = vtw_io_begin(fh, mode, flags, c.bytes);
	return c;
}

#define VTW_R	 OTF2_IO_OPERATION_MODE_READ
#define VTW_W	 OTF2_IO_OPERATION_MODE_WRITE
#define VTW_COLL OTF2_IO_OPERATION_FLAG_COLLECTIVE
#define VTW_NB	 OTF2_IO_OPERATION_FLAG_NON_BLOCKING
/* Blocking, at an explicit offset or not. */
#define VTW_IO_AT(hook, MODE, FLAGS)                                                               \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, MPI_Offset off,                \
						       const void *buf, MPI_Count count,           \
						       MPI_Datatype type, MPI_Status *st)          \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, FLAGS, count, type);                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type, MPI_Status *st)                    \
	{                                                                                          \
		vtw_io_end(fh, c->id, ret, st, c->bytes);                                          \
	}
#define VTW_IO(hook, MODE, FLAGS)                                                                  \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *st)      \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, FLAGS, count, type);                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type,  \
					     MPI_Status *st)                                       \
	{                                                                                          \
		vtw_io_end(fh, c->id, ret, st, c->bytes);                                          \
	}
/* Non-blocking. */
#define VTW_IIO_AT(hook, MODE, FLAGS)                                                              \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, MPI_Offset off,                \
						       const void *buf, MPI_Count count,           \
						       MPI_Datatype type, MPI_Request *req)        \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, (FLAGS) | VTW_NB, count, type);                        \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type, MPI_Request *req)                  \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, req, c->bytes);                                      \
	}
#define VTW_IIO(hook, MODE, FLAGS)                                                                 \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)    \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, (FLAGS) | VTW_NB, count, type);                        \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type,  \
					     MPI_Request *req)                                     \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, req, c->bytes);                                      \
	}
/* Split collectives. */
#define VTW_IO_BEGIN_AT(hook, MODE)                                                                \
	static inline struct vtw_call vtw_##hook##_pre(                                            \
	    MPI_File fh, MPI_Offset off, const void *buf, MPI_Count count, MPI_Datatype type)      \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, VTW_COLL | VTW_NB, count, type);                       \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     MPI_Offset off, const void *buf, MPI_Count count,     \
					     MPI_Datatype type)                                    \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, NULL, c->bytes);                                     \
	}
#define VTW_IO_BEGIN(hook, MODE)                                                                   \
	static inline struct vtw_call vtw_##hook##_pre(MPI_File fh, const void *buf,               \
						       MPI_Count count, MPI_Datatype type)         \
	{                                                                                          \
		return vtw_io_pre(fh, MODE, VTW_COLL | VTW_NB, count, type);                       \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, MPI_File fh,             \
					     const void *buf, MPI_Count count, MPI_Datatype type)  \
	{                                                                                          \
		vtw_io_issued(fh, c->id, ret, NULL, c->bytes);                                     \
	}
static inline struct vtw_call vtw_file_split_end_pre(MPI_File fh, const void *buf, MPI_Status *st)
{
	return vtw_none;
}
static inline void vtw_file_split_end_post(struct vtw_call *c, int ret, MPI_File fh,
					   const void *buf, MPI_Status *st)
{
	vtw_io_split_end(fh, ret, st);
}

VTW_IO_AT(file_read_at, VTW_R, 0)
VTW_IO_AT(file_read_at_all, VTW_R, VTW_COLL)
VTW_IO_AT(file_write_at, VTW_W, 0)
VTW_IO_AT(file_write_at_all, VTW_W, VTW_COLL)
VTW_IO(file_read, VTW_R, 0)
VTW_IO(file_read_all, VTW_R, VTW_COLL)
VTW_IO(file_read_shared, VTW_R, 0)
VTW_IO(file_read_ordered, VTW_R, VTW_COLL)
VTW_IO(file_write, VTW_W, 0)
VTW_IO(file_write_all, VTW_W, VTW_COLL)
VTW_IO(file_write_shared, VTW_W, 0)
VTW_IO(file_write_ordered, VTW_W, VTW_COLL)
VTW_IIO_AT(file_iread_at, VTW_R, 0)
VTW_IIO_AT(file_iread_at_all, VTW_R, VTW_COLL)
VTW_IIO_AT(file_iwrite_at, VTW_W, 0)
VTW_IIO_AT(file_iwrite_at_all, VTW_W, VTW_COLL)
VTW_IIO(file_iread, VTW_R, 0)
VTW_IIO(file_iread_all, VTW_R, VTW_COLL)
VTW_IIO(file_iread_shared, VTW_R, 0)
VTW_IIO(file_iwrite, VTW_W, 0)
VTW_IIO(file_iwrite_all, VTW_W, VTW_COLL)
VTW_IIO(file_iwrite_shared, VTW_W, 0)
VTW_IO_BEGIN_AT(file_read_at_all_begin, VTW_R)
VTW_IO_BEGIN_AT(file_write_at_all_begin, VTW_W)
VTW_IO_BEGIN(file_read_all_begin, VTW_R)
VTW_IO_BEGIN(file_write_all_begin, VTW_W)
VTW_IO_BEGIN(file_read_ordered_begin, VTW_R)
VTW_IO_BEGIN(file_write_ordered_begin, VTW_W)

static inline struct vtw_call vtw_file_open_pre(MPI_Comm comm, const char *name, int amode,
						MPI_Info info, MPI_File *fh)
{
	return vtw_none;
}
static inline void vtw_file_open_post(struct vtw_call *c, int ret, MPI_Comm comm, const char *name,
				      int amode, MPI_Info info, MPI_File *fh)
{
	if (ret == MPI_SUCCESS)
		vtw_file_opened(*fh, comm, name, amode);
}
/* MPI_File_close sets the handle to MPI_FILE_NULL: its bits are kept before the call. */
static inline struct vtw_call vtw_file_close_pre(MPI_File *fh)
{
	struct vtw_call c = vtw_none;
	c.id = VTW_BITS(*fh);
	return c;
}
static inline void vtw_file_close_post(struct vtw_call *c, int ret, MPI_File *fh)
{
	if (ret == MPI_SUCCESS)
		vtw_file_closed(c->id);
}
static inline struct vtw_call vtw_file_seek_pre(MPI_File fh, MPI_Offset offset, int whence)
{
	return vtw_none;
}
static inline void vtw_file_seek_post(struct vtw_call *c, int ret, MPI_File fh, MPI_Offset offset,
				      int whence)
{
	if (ret == MPI_SUCCESS)
		vtw_io_seek(fh, offset, whence, 0);
}
static inline struct vtw_call vtw_file_seek_shared_pre(MPI_File fh, MPI_Offset offset, int whence)
{
	return vtw_none;
}
static inline void vtw_file_seek_shared_post(struct vtw_call *c, int ret, MPI_File fh,
					     MPI_Offset offset, int whence)
{
	if (ret == MPI_SUCCESS)
		vtw_io_seek(fh, offset, whence, 1);
}

#pragma GCC diagnostic pop

#endif
