/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO: file handles, their operations (blocking, non-blocking, split) and seeks. */
#include "vt_mpi_adapter.h"
#include "vt_mpi_maps.h"

#include <pthread.h>
#include <stdlib.h>

/* What vt knows of an open file; by handle in files.map, under files.lock. */
struct file_state {
	uint32_t id;	/* local I/O handle id */
	uint64_t split; /* the matching id of the split collective in progress, or 0 */
	uint64_t split_bytes;
};

/* map: the open files by handle; ids: the last operation's matching id. */
static struct {
	struct vt_u64map map;
	pthread_mutex_t lock;
	uint64_t ids;
} files = {.lock = PTHREAD_MUTEX_INITIALIZER};

void vtw_file_opened(MPI_File fh, MPI_Comm comm, const char *name, int amode)
{
	if (fh == MPI_FILE_NULL)
		return;
	/* Collective over comm, as a window's key. */
	uint64_t key = vtw_key_new(VTW_KEY_FILE);
	PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, comm);
	uint32_t id = vt_mpi_io_define(key, vtw_comm(comm), name);
	struct file_state *f = calloc(1, sizeof(*f));
	if (id == UINT32_MAX || !f) {
		free(f);
		return;
	}
	f->id = id;
	pthread_mutex_lock(&files.lock);
	if (vt_u64map_set(&files.map, VTW_BITS(fh), f) < 0) {
		free(f);
		f = NULL;
	}
	pthread_mutex_unlock(&files.lock);
	if (!f)
		return;
	uint32_t mode = amode & MPI_MODE_RDWR	  ? OTF2_IO_ACCESS_MODE_READ_WRITE
			: amode & MPI_MODE_WRONLY ? OTF2_IO_ACCESS_MODE_WRITE_ONLY
						  : OTF2_IO_ACCESS_MODE_READ_ONLY;
	uint64_t creation = (amode & MPI_MODE_CREATE ? OTF2_IO_CREATION_FLAG_CREATE : 0) |
			    (amode & MPI_MODE_EXCL ? OTF2_IO_CREATION_FLAG_EXCLUSIVE : 0);
	uint32_t status =
	    (amode & MPI_MODE_APPEND ? OTF2_IO_STATUS_FLAG_APPEND : 0) |
	    (amode & MPI_MODE_DELETE_ON_CLOSE ? OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE : 0);
	vt_mpi_event(0, VT_REC_IO_CREATE, mode, creation, id, status, 0, 0);
}

void vtw_file_closed(uint64_t handle)
{
	pthread_mutex_lock(&files.lock);
	struct file_state *f = vt_u64map_del(&files.map, handle);
	pthread_mutex_unlock(&files.lock);
	if (!f)
		return;
	vt_mpi_event(0, VT_REC_IO_DESTROY, 0, 0, f->id, 0, 0, 0);
	free(f);
}

/* The handle's local id, or UINT32_MAX for a file vt did not see opened. */
static uint32_t file_id(MPI_File fh)
{
	pthread_mutex_lock(&files.lock);
	struct file_state *f = vt_u64map_get(&files.map, VTW_BITS(fh));
	uint32_t id = f ? f->id : UINT32_MAX;
	pthread_mutex_unlock(&files.lock);
	return id;
}

uint64_t vtw_io_begin(MPI_File fh, uint32_t mode, uint32_t flags, uint64_t bytes)
{
	uint32_t id = file_id(fh);
	if (id == UINT32_MAX)
		return 0;
	uint64_t op = __atomic_add_fetch(&files.ids, 1, __ATOMIC_RELAXED);
	vt_mpi_event(0, VT_REC_IO_BEGIN, mode | flags << 8, bytes, id, 0, 0, op);
	return op;
}

void vtw_io_end(MPI_File fh, uint64_t op, int ret, const MPI_Status *st, uint64_t bytes)
{
	uint32_t id = op ? file_id(fh) : UINT32_MAX;
	if (id == UINT32_MAX)
		return;
	if (ret != MPI_SUCCESS) {
		vt_mpi_event(0, VT_REC_IO_CANCELLED, 0, op, id, 0, 0, 0);
		return;
	}
	int count = MPI_UNDEFINED;
	if (st && st != MPI_STATUS_IGNORE)
		PMPI_Get_count(st, MPI_BYTE, &count);
	vt_mpi_event(0, VT_REC_IO_COMPLETE, 0,
		     count == MPI_UNDEFINED || count < 0 ? bytes : (uint64_t)count, id, 0, 0, op);
}

void vtw_io_issued(MPI_File fh, uint64_t op, int ret, const MPI_Request *req, uint64_t bytes)
{
	pthread_mutex_lock(&files.lock);
	struct file_state *f = op ? vt_u64map_get(&files.map, VTW_BITS(fh)) : NULL;
	uint32_t id = f ? f->id : UINT32_MAX;
	if (f && !req && ret == MPI_SUCCESS) {
		f->split = op;
		f->split_bytes = bytes;
	}
	pthread_mutex_unlock(&files.lock);
	if (id == UINT32_MAX)
		return;
	if (ret != MPI_SUCCESS) {
		vt_mpi_event(0, VT_REC_IO_CANCELLED, 0, op, id, 0, 0, 0);
		return;
	}
	vt_mpi_event(0, VT_REC_IO_ISSUED, 0, op, id, 0, 0, 0);
	if (req)
		vtw_request_track(*req, VTW_REQ_IO, op, id, bytes);
}

void vtw_io_split_end(MPI_File fh, int ret, const MPI_Status *st)
{
	pthread_mutex_lock(&files.lock);
	struct file_state *f = vt_u64map_get(&files.map, VTW_BITS(fh));
	uint64_t op = f ? f->split : 0, bytes = f ? f->split_bytes : 0;
	if (f)
		f->split = 0;
	pthread_mutex_unlock(&files.lock);
	if (op)
		vtw_io_end(fh, op, ret, st, bytes);
}

void vtw_io_seek(MPI_File fh, MPI_Offset offset, int whence, int shared)
{
	uint32_t id = file_id(fh);
	if (id == UINT32_MAX)
		return;
	/* The shared pointer moves with the other ranks' operations as soon as the seek
	 * returned: reached is what the seek set, where it says (else undefined). */
	uint64_t pos = OTF2_UNDEFINED_UINT64;
	MPI_Offset mine = 0;
	if (!shared && PMPI_File_get_position(fh, &mine) == MPI_SUCCESS)
		pos = (uint64_t)mine;
	else if (shared && whence == MPI_SEEK_SET)
		pos = (uint64_t)offset;
	uint32_t w = whence == MPI_SEEK_SET   ? OTF2_IO_SEEK_FROM_START
		     : whence == MPI_SEEK_CUR ? OTF2_IO_SEEK_FROM_CURRENT
					      : OTF2_IO_SEEK_FROM_END;
	vt_mpi_event(0, VT_REC_IO_SEEK, w, (uint64_t)offset, id, 0, pos, 0);
}
