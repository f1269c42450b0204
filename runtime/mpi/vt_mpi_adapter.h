/* SPDX-License-Identifier: BSD-3-Clause */
/* What the MPI adapter's own files offer each other, beside the hooks (vt_mpi_hooks.h). */
#ifndef VT_MPI_ADAPTER_H
#define VT_MPI_ADAPTER_H

#include "vt_mpi_hooks.h"

/* This rank's place in MPI_COMM_WORLD, known from MPI_Init on (vt_mpi_init.c). */
VTW_HIDDEN int vtw_world_rank(void);
VTW_HIDDEN int vtw_world_size(void);

/*
 * A key for a new communicator, window or file (vt_mpi_comm.c): this rank's world rank in
 * the upper half, one counter for all three below, their space apart. Made by the object's
 * rank 0 and broadcast over it, so that every member names it alike; a LOCAL one is known
 * to this rank only (an intercommunicator, one made by a function vt does not wrap).
 */
enum vtw_key_space {
	VTW_KEY_COMM = 0,
	VTW_KEY_FILE = 0x20000000u,
	VTW_KEY_WIN = 0x40000000u,
	VTW_KEY_LOCAL = 0x80000000u
};
VTW_HIDDEN uint64_t vtw_key_new(enum vtw_key_space space);
/* Communicator c known as key (and named name, if not NULL). */
VTW_HIDDEN void vtw_comm_add(MPI_Comm c, uint64_t key, const char *name);
/* "FN on NAME": the default name of what function fn made over communicator id (a window). */
VTW_HIDDEN void vtw_comm_derived_name(char *buf, size_t len, const char *fn, const char *sep,
				      uint32_t id);

/* A request whose completion is an RMA or I/O event (vt_mpi_req.c): kind VTW_REQ_RMA or
 * VTW_REQ_IO, id the operation's matching id, handle its window or file. */
VTW_HIDDEN void vtw_request_track(MPI_Request req, int kind, uint64_t id, uint32_t handle,
				  uint64_t bytes);

/* After MPI_Init (vt_mpi_rma.c): the world group, against which epochs' groups are named. */
VTW_HIDDEN void vtw_rma_attach(void);

/* The clock offset of this rank against rank 0's, measured collectively (vt_mpi_clock.c). */
VTW_HIDDEN void vtw_sync_clocks(void);

#endif
