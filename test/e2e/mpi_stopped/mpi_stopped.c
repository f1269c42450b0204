/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank whose recording stops (rank 0 fills its buffer: VT_MAX_FLUSHES=1) goes on with
 * the others through everything vt's hooks do collectively: MPI_Comm_dup and _split (keys
 * agreed by a broadcast), a broadcast on the duplicate, an allreduce on the split, a window
 * (MPI_Win_create, fences, MPI_Put, MPI_Win_free), a file (MPI_File_open, _write_at_all,
 * _close) and a ring of MPI_Isend/MPI_Irecv with MPI_Waitall. One line per rank.
 */
#include <mpi.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void tiny(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		for (int i = 0; i < 2000000; i++)
			tiny(i);

	MPI_Comm dup, half;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	int v = rank == 0 ? 42 : -1, one = 1, n = 0;
	MPI_Bcast(&v, 1, MPI_INT, 0, dup);
	MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, half);

	/* static: over a stack array, MPICH 4.0 failed MPI_Win_free at -O2 (the plain build
	 * too; not vt's) */
	static int win_buf[2];
	MPI_Win win;
	MPI_Win_create(win_buf, sizeof(win_buf), sizeof(int), MPI_INFO_NULL, dup, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);

	MPI_File fh;
	MPI_File_open(dup, "stopped.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_write_at_all(fh, (MPI_Offset)rank * 4, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);

	int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
	MPI_Request reqs[2];
	MPI_Irecv(&got, 1, MPI_INT, left, 7, dup, &reqs[0]);
	MPI_Isend(&rank, 1, MPI_INT, right, 7, dup, &reqs[1]);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	printf("rank %d: bcast %d half %d put %d ring %d\n", rank, v, n, win_buf[0], got);
	MPI_Finalize();
	return 0;
}
