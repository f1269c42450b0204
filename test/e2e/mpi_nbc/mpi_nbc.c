// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_nbc": every non-blocking collective, the neighbourhood collectives (blocking and
// not) on a Cartesian ring without wrap-around, and where MPI has them (MPI 4) persistent
// collectives, with sizes test_mpi_nbc.py derives by hand for any number of ranks >= 2.
// Counts are of MPI_INT (4 bytes); "v" forms use count i + 1 for rank (or neighbour) i.
// The line is named by MPI_Comm_set_name, differently on rank 0 and the others.
// Completion: MPI_Wait each, except one pair by MPI_Waitall and one pair by two MPI_Waitany.
// Each rank prints one line of results.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

__attribute__((noinline)) static long icollectives(void)
{
	int n = size, *a = calloc((size_t)n * 16, sizeof(int)), *b = calloc((size_t)n * 16, sizeof(int));
	int *sc = malloc(sizeof(int) * (size_t)n), *rc = malloc(sizeof(int) * (size_t)n);
	int *sd = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
	MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)n);
	MPI_Request q, qs[2];
	MPI_Status st[2];
	long sum = 0;
	for (int i = 0; i < n * 16; i++)
		a[i] = rank * 1000 + i;

	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ibcast(a, 10, MPI_INT, 0, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += a[9];
	MPI_Igather(a, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	for (int i = 0, d = 0; i < n; d += i + 1, i++)
		rc[i] = i + 1, rd[i] = d;
	MPI_Igatherv(a, rank + 1, MPI_INT, b, rc, rd, MPI_INT, 0, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iscatter(a, 5, MPI_INT, b, 5, MPI_INT, 0, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[4];
	MPI_Iscatterv(a, rc, rd, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallgather(a, 3, MPI_INT, b, 3, MPI_INT, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallgatherv(a, rank + 1, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[n * (n + 1) / 2 - 1];
	MPI_Ialltoall(a, 4, MPI_INT, b, 4, MPI_INT, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	/* to rank j: j + 1 ints; from rank j: rank + 1 ints */
	for (int j = 0, d = 0; j < n; j++) {
		sc[j] = j + 1, sd[j] = d, d += j + 1;
		rc[j] = rank + 1, rd[j] = j * (rank + 1);
		ty[j] = MPI_INT;
	}
	MPI_Ialltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	for (int j = 0; j < n; j++)
		sd[j] *= (int)sizeof(int), rd[j] *= (int)sizeof(int);
	MPI_Ialltoallw(a, sc, sd, ty, b, rc, rd, ty, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[rank];
	MPI_Ireduce(a, b, 3, MPI_INT, MPI_SUM, n - 1, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallreduce(a, b, 6, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[5];
	for (int i = 0; i < n; i++)
		rc[i] = i + 1;
	MPI_Ireduce_scatter(a, b, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ireduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[0];
	MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);

	/* two in flight at once, completed together, then one by one in any order */
	MPI_Iallreduce(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &qs[0]);
	MPI_Ibcast(a + 8, 7, MPI_INT, n - 1, MPI_COMM_WORLD, &qs[1]);
	MPI_Waitall(2, qs, st);
	sum += b[1] + a[8];
	MPI_Ibarrier(MPI_COMM_WORLD, &qs[0]);
	MPI_Iallgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &qs[1]);
	for (int k = 0, idx; k < 2; k++)
		MPI_Waitany(2, qs, &idx, MPI_STATUS_IGNORE);
	sum += b[n - 1];
	free(a), free(b), free(sc), free(rc), free(sd), free(rd), free(ty);
	return sum;
}

/* A line of ranks without wrap-around: rank 0 has no lower neighbour, the last no upper. */
__attribute__((noinline)) static long neighbours(void)
{
	MPI_Comm ring;
	int dims[1] = {size}, periods[1] = {0};
	int a[16], b[16], sc[2] = {1, 2}, rc[2] = {2, 1}, sd[2] = {0, 1}, rd[2] = {0, 2};
	int rc2[2] = {1, 2}, rd2[2] = {0, 1};
	MPI_Aint sdw[2] = {0, 4}, rdw[2] = {0, 8};
	MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
	MPI_Request q;
	long sum = 0;
	for (int i = 0; i < 16; i++)
		a[i] = rank * 100 + i, b[i] = -1;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Comm_set_name(ring, rank == 0 ? "line of ranks" : "named elsewhere too");
	MPI_Neighbor_allgather(a, 2, MPI_INT, b, 2, MPI_INT, ring);
	sum += b[0] + b[2];
	MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, rc2, rd2, MPI_INT, ring);
	MPI_Neighbor_alltoall(a, 3, MPI_INT, b, 3, MPI_INT, ring);
	sum += b[3];
	MPI_Neighbor_alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ring);
	MPI_Neighbor_alltoallw(a, sc, sdw, ty, b, rc, rdw, ty, ring);
	sum += b[2];
	MPI_Ineighbor_allgather(a, 2, MPI_INT, b, 2, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_allgatherv(a, 1, MPI_INT, b, rc2, rd2, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoall(a, 3, MPI_INT, b, 3, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallw(a, sc, sdw, ty, b, rc, rdw, ty, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	sum += b[0] + b[1];
	MPI_Comm_free(&ring);
	return sum;
}

/* MPI 4: two persistent collectives, started together twice, then freed. */
__attribute__((noinline)) static long persistent(void)
{
	long sum = 0;
#if MPI_VERSION >= 4
	int a[4] = {rank, rank + 1, rank + 2, rank + 3}, b[4] = {0}, c[3] = {0};
	MPI_Request qs[2];
	MPI_Status st[2];
	MPI_Allreduce_init(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &qs[0]);
	MPI_Bcast_init(c, 3, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &qs[1]);
	for (int it = 0; it < 2; it++) {
		if (rank == 0)
			c[0] = c[1] = c[2] = it + 7;
		MPI_Startall(2, qs);
		MPI_Waitall(2, qs, st);
		sum += b[0] + b[1] + c[2];
	}
	MPI_Request_free(&qs[0]);
	MPI_Request_free(&qs[1]);
#endif
	return sum;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long s1 = icollectives(), s2 = neighbours(), s3 = persistent();
	printf("rank %d: %ld %ld %ld persistent=%d\n", rank, s1, s2, s3, MPI_VERSION >= 4);
	MPI_Finalize();
	return 0;
}
