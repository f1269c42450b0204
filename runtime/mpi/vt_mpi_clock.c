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
 * Ranks elsewhere do round trips with rank 0; the tightest gives offset = t0_mid - t_rank.
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
	/* Under load a round trip is often slow on one leg; more rounds find a tight one. When
	 * none of the first ROUNDS was tight (both ends running: under TIGHT seconds), rank 0
	 * goes on, up to MAX_ROUNDS, and then tells the other end to stop (STOP). */
	enum { ROUNDS = 32, MAX_ROUNDS = 2048 };
	const double TIGHT = 100e-6;
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
			uint64_t best_rtt = UINT64_MAX;
			int64_t best = 0;
			double best_s = 1e9;
			for (int i = 0;; i++) {
				if (i >= MAX_ROUNDS || (i >= ROUNDS && best_s <= TIGHT)) {
					PMPI_Send(&STOP, 1, MPI_UINT64_T, r, 0x7654,
						  MPI_COMM_WORLD);
					break;
				}
				double w1 = PMPI_Wtime();
				uint64_t t1 = vt_mpi_now(), tr;
				PMPI_Send(&t1, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD);
				PMPI_Recv(&tr, 1, MPI_UINT64_T, r, 0x7654, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE);
				uint64_t t2 = vt_mpi_now();
				double w2 = PMPI_Wtime();
				if (t2 - t1 < best_rtt) {
					best_rtt = t2 - t1;
					best_s = w2 - w1;
					best = (int64_t)(t1 + (t2 - t1) / 2) - (int64_t)tr;
				}
			}
			/* The offset and its uncertainty: half the tightest round trip. */
			int64_t result[2] = {best, (int64_t)(best_rtt / 2)};
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
