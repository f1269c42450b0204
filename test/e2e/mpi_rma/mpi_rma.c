// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_rma": one-sided communication whose events test_mpi_rma.py derives by hand (any
// number of ranks >= 2; "next" is rank + 1 mod size, "prev" rank - 1 mod size):
//   1. MPI_Win_create over 8 ints; a fence epoch: MPI_Put of 2 ints to next, MPI_Get of 3
//      ints from prev, MPI_Accumulate of 1 int to rank 0; closing fence.
//   2. PSCW: even ranks expose to the odd ranks (post/wait), odd ranks access the even
//      ones (start, a Put of 1 int to each, at its own place, complete); with one rank the epoch is
//      empty.
//   3. Passive target: MPI_Win_lock (exclusive) on next, MPI_Fetch_and_op and
//      MPI_Compare_and_swap of 1 int, MPI_Win_unlock; MPI_Win_lock_all, MPI_Rput of 2 ints
//      to prev completed by MPI_Wait, MPI_Win_flush_all, MPI_Get_accumulate of 1 int from
//      next, three times MPI_Get of 1 int from next and MPI_Win_flush_local(next), MPI_Put of
//      1 int to next and MPI_Win_flush_local(next), MPI_Win_unlock_all. MPI_Win_free.
//   4. MPI_Win_allocate of 4 ints named "allocated" (MPI_Win_set_name); a fence, a Put of
//      4 ints to next, a fence; freed.
// Each rank prints one line of results.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, buf[8], src[8], got[8] = {0}, one = 1, old = -1, cmp = 0, res = 0;
	MPI_Win win, win2;
	MPI_Group world, peers;
	MPI_Request q;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (int i = 0; i < 8; i++)
		buf[i] = rank * 10 + i, src[i] = rank * 100 + i;

	MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(src, 2, MPI_INT, next, 0, 2, MPI_INT, win);
	MPI_Get(got, 3, MPI_INT, prev, 4, 3, MPI_INT, win);
	MPI_Accumulate(&one, 1, MPI_INT, 0, 7, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	long sum = buf[0] + got[0] + buf[7];

	/* PSCW: evens expose, odds access */
	int n_even = (size + 1) / 2, n_odd = size / 2, ranks[64], n = 0;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	for (int r = rank % 2 ? 0 : 1; r < size && n < 64; r += 2)
		ranks[n++] = r;
	MPI_Group_incl(world, n, ranks, &peers);
	if (rank % 2 == 0) {
		MPI_Win_post(peers, 0, win);
		MPI_Win_wait(win);
	} else {
		MPI_Win_start(peers, 0, win);
		for (int k = 0; k < n; k++)
			MPI_Put(&src[k], 1, MPI_INT, ranks[k], 2 + rank / 2 % 6, 1, MPI_INT, win);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&peers);
	MPI_Group_free(&world);
	MPI_Barrier(MPI_COMM_WORLD);
	sum += n_even * 1000 + n_odd;

	/* passive target */
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
	MPI_Fetch_and_op(&one, &old, MPI_INT, next, 5, MPI_SUM, win);
	MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT, next, 6, win);
	MPI_Win_unlock(next, win);
	MPI_Win_lock_all(0, win);
	MPI_Rput(src, 2, MPI_INT, prev, 3, 2, MPI_INT, win, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Win_flush_all(win);
	MPI_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, win);
	/* read, not used: the values depend on the other ranks' timing */
	int scratch[3];
	for (int i = 0; i < 3; i++) {
		MPI_Get(&scratch[i], 1, MPI_INT, next, i, 1, MPI_INT, win);
		MPI_Win_flush_local(next, win);
	}
	MPI_Put(&src[1], 1, MPI_INT, next, 6, 1, MPI_INT, win);
	MPI_Win_flush_local(next, win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	sum += old + res;

	int *mem;
	MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win2);
	MPI_Win_set_name(win2, "allocated");
	for (int i = 0; i < 4; i++)
		mem[i] = -1;
	MPI_Win_fence(0, win2);
	MPI_Put(src, 4, MPI_INT, next, 0, 4, MPI_INT, win2);
	MPI_Win_fence(0, win2);
	sum += mem[3];
	MPI_Win_free(&win2);

	printf("rank %d: %ld\n", rank, sum);
	MPI_Finalize();
	return 0;
}
