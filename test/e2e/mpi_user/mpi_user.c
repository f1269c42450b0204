/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e2e "mpi_user": what the user API and perfstubs give beside events, from every rank: a
 * counter (10 + rank), a marker ("rank R here"), and metadata, one value the same on every
 * rank and one that differs on rank 1. One line of output per rank. And MANY user regions
 * of distinct names, the same on every rank: each rank's mapping table of region ids is
 * then larger than libotf2's smallest definition chunk, which vt must grow to hold it.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <vt/vt_user.h>

enum { MANY = 20000 };

/* libvt's perfstubs tool function, weak: the program runs without vt as well. */
void ps_tool_set_metadata(const char *name, const char *value) __attribute__((weak));

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int items = VT_USER_COUNTER_DEF("items", "#", VT_USER_COUNTER_INTEGER);
	VT_USER_COUNTER_SET_INT(items, 10 + rank);
	char text[32];
	snprintf(text, sizeof(text), "rank %d here", rank);
	VT_USER_MARKER("mpi", text);
	if (ps_tool_set_metadata) {
		ps_tool_set_metadata("Method", rank == 1 ? "MPIIO" : "POSIX");
		ps_tool_set_metadata("Same", "yes");
	}
#ifdef VTRACE
	/* Names kept to the end: vt knows a region by its name's address. */
	for (int i = 0; vt_user_start && i < MANY; i++) {
		char name[32];
		snprintf(name, sizeof(name), "many_%05d", i);
		char *kept = strdup(name);
		if (!kept)
			break;
		vt_user_start(kept, __FILE__, __LINE__);
		vt_user_end(kept);
	}
#endif
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
