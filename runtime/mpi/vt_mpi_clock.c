/* SPDX-License-Identifier: BSD-3-Clause */
/* Clock synchronisation: each rank's offset against rank 0, at MPI_Init and MPI_Finalize. */
#include "vt_mpi_adapter.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Offsets of every rank's clock against rank 0's. Ranks on rank 0's host read the same
 * clock (an invariant TSC is one counter per machine, CLOCK_MONOTONIC one per kernel): their
 * offset is 0 by construction, and measuring it would only add the noise of busy cores.
 * Ranks elsewhere do round trips with rank 0. Each round trip bounds the offset (rank 0's
 * clock minus the rank's): the rank read its clock after rank 0's send began and before its
 * reply arrived, so offset >= t1 - tr and offset <= t2 - tr. The bounds of all rounds
 * intersect to an interval no wider than the tightest round trip and often much narrower
 * (one round fast on the way out, another on the way back, which is what load gives); the
 * offset is its middle and its uncertainty half its width. The middle of the tightest round
 * alone was off by half that round whenever one leg was slow.
 */
/*
 * Waits for a receive without spinning: a rank waiting for its turn would otherwise take the
 * CPU from the two ranks measuring a round trip (ranks are often more than cores), and a
 * round trip with a descheduled end is long, which makes the offset less certain.
 */
static void wait_politely(void *buf, int count, MPI_Datatype type, int tag)
{
	MPI_Request req;
	int done = 0;
	PMPI_Irecv(buf, count, type, 0, tag, MPI_COMM_WORLD, &req);
	while (PMPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		struct timespec ts = {0, 20000};
		nanosleep(&ts, NULL);
	}
}

void vtw_sync_clocks(void)
{
	int world_rank = vtw_world_rank(), world_size = vtw_world_size();
	/* Under load a round trip is often slow on one leg; more rounds narrow the interval. When
	 * after ROUNDS it is still wider than TIGHT seconds, rank 0 goes on, up to MAX_ROUNDS or
	 * MAX_SECONDS for the host (an MPI whose round trips take milliseconds must not hold
	 * MPI_Init for seconds), and then tells the other end to stop (STOP). */
	enum { ROUNDS = 32, MAX_ROUNDS = 2048 };
	const double TIGHT = 20e-6, MAX_SECONDS = 0.25;
	const uint64_t STOP = UINT64_MAX;
	/* Which ranks are elsewhere, and which rank measures for each: with the hosts libvt
	 * gathered once at MPI_Init (when every rank has them: one reduction to agree), the
	 * lowest rank of each host measures and its offset is every rank's there (they read one
	 * clock, so messages between them never run backwards, whatever the measurement's
	 * error); else each rank measures for itself, told apart by processor name. */
	int known = vt_mpi_host_of(world_rank) >= 0, all_known = 0;
	PMPI_Allreduce(&known, &all_known, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	int *remotes = calloc((size_t)world_size, sizeof(int));
	int *measurer = calloc((size_t)world_size, sizeof(int));
	int remote = 0;
	if (!remotes || !measurer)
		all_known = 0; /* the same on every rank only if every rank ran out: see below */
	if (all_known) {
		for (int r = 0; r < world_size; r++) {
			remotes[r] = vt_mpi_host_of(r) != vt_mpi_host_of(0);
			measurer[r] = r;
			for (int q = 0; q < r; q++) {
				if (vt_mpi_host_of(q) == vt_mpi_host_of(r)) {
					measurer[r] = q;
					break;
				}
			}
		}
		remote = remotes[world_rank];
	} else {
		char host[MPI_MAX_PROCESSOR_NAME] = "", root[MPI_MAX_PROCESSOR_NAME] = "";
		int len = 0;
		PMPI_Get_processor_name(host, &len);
		memcpy(root, host, sizeof(root));
		PMPI_Bcast(root, (int)sizeof(root), MPI_CHAR, 0, MPI_COMM_WORLD);
		remote = strcmp(host, root) != 0;
		int ignored;
		PMPI_Gather(&remote, 1, MPI_INT, remotes ? remotes : &ignored, 1, MPI_INT, 0,
			    MPI_COMM_WORLD);
		for (int r = 0; measurer && r < world_size; r++)
			measurer[r] = r;
	}

	if (world_rank == 0) {
		for (int r = 1; remotes && measurer && r < world_size; r++) {
			if (!remotes[r] || measurer[r] != r)
				continue;
			int64_t lo = INT64_MIN, hi = INT64_MAX;
			double w0 = PMPI_Wtime(), width_s = 1e9;
			uint64_t c0 = vt_mpi_now();
			for (int i = 0;; i++) {
				double w1 = PMPI_Wtime();
				if (i >= MAX_ROUNDS ||
				    (i >= ROUNDS && (width_s <= TIGHT || w1 - w0 > MAX_SECONDS))) {
					PMPI_Send(&STOP, 1, MPI_UINT64_T, r, 0x7654,
						  MPI_COMM_WORLD);
					break;
				}
				uint64_t t1 = vt_mpi_now(), tr;
				PMPI_Send(&t1, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD);
				PMPI_Recv(&tr, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE);
				uint64_t t2 = vt_mpi_now();
				int64_t l = (int64_t)(t1 - tr), u = (int64_t)(t2 - tr);
				/* Clocks that drift apart over the rounds could make the
				 * intervals miss each other: the later round wins. */
				if (l > hi || u < lo) {
					lo = l;
					hi = u;
				}
				lo = l > lo ? l : lo;
				hi = u < hi ? u : hi;
				double ticks_per_s = (double)(t2 - c0) / (PMPI_Wtime() - w0 + 1e-9);
				width_s = (double)(hi - lo) / (ticks_per_s > 0 ? ticks_per_s : 1);
			}
			/* The offset and its uncertainty: the middle and half the width. */
			int64_t result[2] = {lo + (hi - lo) / 2, (hi - lo) / 2};
			for (int q = r; q < world_size; q++)
				if (remotes[q] && measurer[q] == r)
					PMPI_Send(result, 2, MPI_INT64_T, q, 0x7655,
						  MPI_COMM_WORLD);
		}
	} else if (remote) {
		if (!all_known || measurer[world_rank] == world_rank) {
			for (int i = 0;; i++) {
				uint64_t t;
				/* Rank 0 may be measuring other hosts first. */
				if (i == 0)
					wait_politely(&t, 1, MPI_UINT64_T, 0x7654);
				else
					PMPI_Recv(&t, 1, MPI_UINT64_T, 0, 0x7654, MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE);
				if (t == STOP)
					break;
				t = vt_mpi_now();
				PMPI_Send(&t, 1, MPI_UINT64_T, 0, 0x7654, MPI_COMM_WORLD);
			}
		}
		int64_t result[2];
		wait_politely(result, 2, MPI_INT64_T, 0x7655);
		vt_mpi_clock_offset(vt_mpi_now(), result[0], (double)result[1]);
	}
	if (!remote)
		vt_mpi_clock_offset(vt_mpi_now(), 0, 0.0);
	free(remotes);
	free(measurer);
}
