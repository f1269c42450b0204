/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Init, MPI_Finalize and MPI_Abort, and the collectives libvt writes the trace with. */
#define OTF2_MPI_USE_PMPI /* vt's own communication never shows in the trace */
#include "vt_mpi_adapter.h"

#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

/* libvt looks for this symbol to know that it runs in MPI mode. */
VTW_EXPORT const int vt_mpi_adapter = 1;

/* Read inline by every wrapper (vtw_tracing, vt_mpi_hooks.h): not in a struct. */
int vtw_mpitrace = 1;
/* Until MPI_Init reads VT_MPI_GROUPS: DEFAULT, as vtw_mpitrace is on until then. */
uint32_t vtw_on = ~(uint32_t)VT_MPI_G_QUERY;

VTW_HIDDEN extern struct vt_inst_desc vtw_desc_MPI_Init, vtw_desc_MPI_Init_thread,
    vtw_desc_MPI_Finalize, vtw_desc_MPI_Abort;

static void op_bcast(void *buf, size_t n, int root)
{
	PMPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
}

static void *op_gather(const void *buf, size_t n, size_t **sizes_out)
{
	int rank = vtw_world_rank(), size = vtw_world_size();
	int me = (int)n;
	int *counts = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
	PMPI_Gather(&me, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	char *all = NULL;
	int *displs = NULL;
	if (rank == 0 && counts) {
		displs = calloc((size_t)size, sizeof(int));
		size_t total = 0;
		for (int i = 0; displs && i < size; i++) {
			displs[i] = (int)total;
			total += (size_t)counts[i];
		}
		all = malloc(total ? total : 1);
		if (sizes_out && (*sizes_out = malloc((size_t)size * sizeof(size_t))))
			for (int i = 0; i < size; i++)
				(*sizes_out)[i] = (size_t)counts[i];
	}
	PMPI_Gatherv(buf, me, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
	return all;
}

static void *op_scatter(void *const *bufs, const size_t *sizes, size_t *n)
{
	int rank = vtw_world_rank(), size = vtw_world_size();
	int mine = 0;
	int *counts = NULL, *displs = NULL;
	char *send = NULL;
	if (rank == 0) {
		counts = calloc((size_t)size, sizeof(int));
		displs = calloc((size_t)size, sizeof(int));
		size_t total = 0;
		for (int i = 0; counts && displs && sizes && i < size; i++) {
			counts[i] = (int)sizes[i];
			displs[i] = (int)total;
			total += sizes[i];
		}
		send = malloc(total ? total : 1);
		for (int i = 0; send && counts && displs && bufs && i < size; i++)
			if (counts[i])
				memcpy(send + displs[i], bufs[i], (size_t)counts[i]);
	}
	PMPI_Scatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
	char *recv = malloc(mine > 0 ? (size_t)mine : 1);
	PMPI_Scatterv(send, counts, displs, MPI_BYTE, recv, mine, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(send);
	free(counts);
	free(displs);
	*n = (size_t)mine;
	return recv;
}

/* vt's own messages (the unification's tree) on MPI_COMM_WORLD: a tag of their own, sent
 * and received with PMPI at the close, when the program's messages are done. */
enum { VT_TREE_TAG = 0x7654, VT_TREE_CHUNK = 1 << 30 };

static void op_send(const void *buf, size_t n, int to)
{
	uint64_t len = n;
	PMPI_Send(&len, 1, MPI_UINT64_T, to, VT_TREE_TAG, MPI_COMM_WORLD);
	for (size_t off = 0; off < n; off += VT_TREE_CHUNK) {
		size_t k = n - off < VT_TREE_CHUNK ? n - off : VT_TREE_CHUNK;
		PMPI_Send((const char *)buf + off, (int)k, MPI_BYTE, to, VT_TREE_TAG,
			  MPI_COMM_WORLD);
	}
}

static void *op_recv(int from, size_t *n)
{
	uint64_t len = 0;
	PMPI_Recv(&len, 1, MPI_UINT64_T, from, VT_TREE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	char *buf = malloc(len ? (size_t)len : 1), drop[4096];
	for (size_t off = 0; off < len; off += VT_TREE_CHUNK) {
		size_t k = len - off < VT_TREE_CHUNK ? len - off : VT_TREE_CHUNK;
		if (buf) {
			PMPI_Recv(buf + off, (int)k, MPI_BYTE, from, VT_TREE_TAG, MPI_COMM_WORLD,
				  MPI_STATUS_IGNORE);
			continue;
		}
		/* no memory: the message is taken all the same, in pieces */
		MPI_Status st;
		PMPI_Probe(from, VT_TREE_TAG, MPI_COMM_WORLD, &st);
		int got = 0;
		PMPI_Get_count(&st, MPI_BYTE, &got);
		char *tmp = malloc(got > 0 ? (size_t)got : 1);
		PMPI_Recv(tmp ? tmp : drop, tmp ? got : 0, MPI_BYTE, from, VT_TREE_TAG,
			  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		free(tmp);
	}
	*n = buf ? (size_t)len : 0;
	return buf;
}

static void op_set_collectives(void *archive)
{
	OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL);
}

/* What libvt calls for its collectives; rank and size: this rank's place in MPI_COMM_WORLD,
 * from MPI_Init on. */
static struct vt_mpi_ops ops = {
    .bcast = op_bcast,
    .gather = op_gather,
    .scatter = op_scatter,
    .set_collectives = op_set_collectives,
    .send = op_send,
    .recv = op_recv,
};

int vtw_world_rank(void)
{
	return ops.rank;
}

int vtw_world_size(void)
{
	return ops.size;
}

static void after_init(void)
{
	PMPI_Comm_rank(MPI_COMM_WORLD, &ops.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &ops.size);
	vt_mpi_attach(&ops);
	vtw_on = vtw_tracing() ? vt_mpi_groups(ops.rank == 0) : 0;
	vtw_comm_add(MPI_COMM_WORLD, VT_MPI_KEY_WORLD, "MPI_COMM_WORLD");
	vtw_comm_add(MPI_COMM_SELF, VT_MPI_KEY_SELF, "MPI_COMM_SELF");
	vtw_rma_attach();
	vtw_sync_clocks();
}

VTW_EXPORT int MPI_Init(int *argc, char ***argv)
{
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init);
	int ret = PMPI_Init(argc, argv);
	if (ret == MPI_SUCCESS)
		after_init();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init);
	return ret;
}

VTW_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	vtw_mpitrace = vt_mpi_trace_enabled();
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Init_thread);
	int ret = PMPI_Init_thread(argc, argv, required, provided);
	if (ret == MPI_SUCCESS)
		after_init();
	if (vtw_tracing())
		vt_inst_exit(&vtw_desc_MPI_Init_thread);
	return ret;
}

/* The trace is written here, while MPI still works; MPI_Finalize's own Leave is that of
 * every region still open: the end of the trace. */
VTW_EXPORT int MPI_Finalize(void)
{
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Finalize);
	vtw_sync_clocks();
	vt_mpi_detach();
	return PMPI_Finalize();
}

/* This rank writes what it has into an archive of its own, without MPI (the other ranks
 * are not there to write the run's), then MPI ends the job as without vt. MPI_Abort's own
 * Leave is that of every region still open. */
VTW_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (vtw_tracing())
		vt_inst_enter(&vtw_desc_MPI_Abort);
	vt_mpi_abort(errorcode);
	return PMPI_Abort(comm, errorcode);
}

/* -- what the Fortran wrappers (vt-*-fortran.c, from gen-fortran.py) share ---------- */

void vtw_initialized(void)
{
	after_init();
}

void vtw_finalizing(void)
{
	vtw_sync_clocks();
	vt_mpi_detach();
}

void vtw_aborting(int errorcode)
{
	vt_mpi_abort(errorcode);
}
