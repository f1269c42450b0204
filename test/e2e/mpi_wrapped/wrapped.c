// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_wrapped": MPI functions that vt used to pass through untraced, each called a
// known number of times (test_mpi_wrapped.py counts their regions). Each rank prints one line.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, *flagp, flag = 0, len = 0;
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);

	/* memory, info, attributes, library */
	void *mem;
	MPI_Alloc_mem(1024, MPI_INFO_NULL, &mem);
	memset(mem, 1, 1024);
	MPI_Info info;
	MPI_Info_create(&info);
	MPI_Info_set(info, "vt", "yes");
	MPI_Info_free(&info);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flagp, &flag);
	MPI_Get_library_version(version, &len);

	/* a dynamic window: attach, passive-target epoch with the flushes, detach */
	MPI_Win win;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_attach(win, mem, 1024);
	MPI_Win_lock_all(0, win);
	MPI_Win_flush_all(win);
	MPI_Win_flush_local_all(win);
	MPI_Win_flush_local(rank, win);
	MPI_Win_unlock_all(win);
	MPI_Win_detach(win, mem);
	MPI_Win_free(&win);
	MPI_Free_mem(mem);

	/* a derived type */
	MPI_Datatype t;
	int size = 0;
	MPI_Type_create_hvector(3, 2, 16, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Type_size(t, &size);
	MPI_Type_free(&t);

	printf("rank %d: tag_ub %s, hvector %d bytes, library %s\n", rank,
	       flag && *flagp >= 32767 ? "ok" : "missing", size, len > 0 ? "named" : "unnamed");
	MPI_Finalize();
	return 0;
}
