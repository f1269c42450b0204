// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_p2p": point-to-point MPI in six phases whose messages test_mpi_p2p.py derives
// by hand (any number of ranks >= 2): a ring of blocking sends (MPI_Send, MPI_Ssend) and
// receives, non-blocking sends and receives completed by one MPI_Waitall, MPI_Sendrecv,
// MPI_Probe before MPI_Recv, sends and receives with MPI_PROC_NULL, and receives with
// MPI_ANY_SOURCE / MPI_ANY_TAG into a larger buffer. The any-source phase comes last so that
// its wildcard receives can match no other phase's message. Each rank prints one line of
// what it received.
#include <mpi.h>
#include <stdio.h>

#define K 3
// Ring message k: TAG_RING + k, counts[k] ints (the last one is large: a rendezvous send).
#define TAG_RING 10
static const int ring_counts[K] = {1, 100, 25000};
#define TAG_NB_RIGHT 20 // non-blocking, to the right neighbour: NB_RIGHT_N doubles
#define NB_RIGHT_N 8
#define TAG_NB_LEFT 21 // non-blocking, to the left neighbour: NB_LEFT_N doubles
#define NB_LEFT_N 2
#define TAG_SR 30 // MPI_Sendrecv: SR_N ints to the right, from the left
#define SR_N 5
#define TAG_ANY 40 // rank r > 0 sends r ints with tag TAG_ANY + r to rank 0
#define ANY_MAX 64
#define TAG_PROBE 50 // rank 1 sends PROBE_N doubles to rank 0
#define PROBE_N 7
#define TAG_NULL 60

static int rank, size, left, right;
static int big[25000], inbuf[25000];

__attribute__((noinline)) static long ring(void)
{
	long sum = 0;
	for (int k = 0; k < K; k++) {
		int n = ring_counts[k];
		for (int i = 0; i < n; i++)
			big[i] = rank * 1000 + k * 100 + i % 100;
		if (rank == 0) {
			if (k == 1)
				MPI_Ssend(big, n, MPI_INT, right, TAG_RING + k, MPI_COMM_WORLD);
			else
				MPI_Send(big, n, MPI_INT, right, TAG_RING + k, MPI_COMM_WORLD);
			MPI_Recv(inbuf, n, MPI_INT, left, TAG_RING + k, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(inbuf, n, MPI_INT, left, TAG_RING + k, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (k == 1)
				MPI_Ssend(big, n, MPI_INT, right, TAG_RING + k, MPI_COMM_WORLD);
			else
				MPI_Send(big, n, MPI_INT, right, TAG_RING + k, MPI_COMM_WORLD);
		}
		for (int i = 0; i < n; i++)
			sum += inbuf[i];
	}
	return sum;
}

__attribute__((noinline)) static double nonblocking(void)
{
	double to_right[NB_RIGHT_N], to_left[NB_LEFT_N], from_left[NB_RIGHT_N],
		from_right[NB_LEFT_N];
	MPI_Request req[4];
	MPI_Status st[4];
	for (int i = 0; i < NB_RIGHT_N; i++)
		to_right[i] = rank + 0.5 * i;
	for (int i = 0; i < NB_LEFT_N; i++)
		to_left[i] = -rank - 0.25 * i;
	MPI_Irecv(from_left, NB_RIGHT_N, MPI_DOUBLE, left, TAG_NB_RIGHT, MPI_COMM_WORLD, &req[0]);
	MPI_Irecv(from_right, NB_LEFT_N, MPI_DOUBLE, right, TAG_NB_LEFT, MPI_COMM_WORLD, &req[1]);
	MPI_Isend(to_right, NB_RIGHT_N, MPI_DOUBLE, right, TAG_NB_RIGHT, MPI_COMM_WORLD, &req[2]);
	MPI_Isend(to_left, NB_LEFT_N, MPI_DOUBLE, left, TAG_NB_LEFT, MPI_COMM_WORLD, &req[3]);
	MPI_Waitall(4, req, st);
	double sum = 0;
	for (int i = 0; i < NB_RIGHT_N; i++)
		sum += from_left[i];
	for (int i = 0; i < NB_LEFT_N; i++)
		sum += from_right[i];
	return sum;
}

__attribute__((noinline)) static int exchange(void)
{
	int out[SR_N], in[SR_N], sum = 0;
	for (int i = 0; i < SR_N; i++)
		out[i] = rank * 10 + i;
	MPI_Sendrecv(out, SR_N, MPI_INT, right, TAG_SR, in, SR_N, MPI_INT, left, TAG_SR,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; i < SR_N; i++)
		sum += in[i];
	return sum;
}

__attribute__((noinline)) static int probe_then_recv(void)
{
	double buf[PROBE_N];
	int count = -1;
	if (rank == 1) {
		for (int i = 0; i < PROBE_N; i++)
			buf[i] = i;
		MPI_Send(buf, PROBE_N, MPI_DOUBLE, 0, TAG_PROBE, MPI_COMM_WORLD);
	} else if (rank == 0) {
		MPI_Status st;
		MPI_Probe(1, TAG_PROBE, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &count);
		MPI_Recv(buf, count, MPI_DOUBLE, 1, TAG_PROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	return count;
}

__attribute__((noinline)) static int proc_null(void)
{
	int out[3] = {1, 2, 3}, in[3] = {0, 0, 0};
	MPI_Status st;
	MPI_Send(out, 3, MPI_INT, MPI_PROC_NULL, TAG_NULL, MPI_COMM_WORLD);
	MPI_Recv(in, 3, MPI_INT, MPI_PROC_NULL, TAG_NULL, MPI_COMM_WORLD, &st);
	return st.MPI_SOURCE == MPI_PROC_NULL && in[0] == 0;
}

// Rank 0: the sum over messages of source * 1000 + tag * 10 + count, checked by the printout.
__attribute__((noinline)) static long any_source(void)
{
	int buf[ANY_MAX];
	long seen = 0;
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Status st;
			int count;
			MPI_Recv(buf, ANY_MAX, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				 &st);
			MPI_Get_count(&st, MPI_INT, &count);
			seen += st.MPI_SOURCE * 1000L + st.MPI_TAG * 10L + count;
		}
	} else {
		for (int i = 0; i < rank; i++)
			buf[i] = i;
		MPI_Send(buf, rank, MPI_INT, 0, TAG_ANY + rank, MPI_COMM_WORLD);
	}
	return seen;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	long r = ring();
	double nb = nonblocking();
	int sr = exchange();
	int pr = probe_then_recv();
	int pn = proc_null();
	long any = any_source();
	printf("rank %d of %d: ring %ld nonblocking %.2f sendrecv %d probe %d procnull %d "
	       "any %ld\n",
	       rank, size, r, nb, sr, pr, pn, any);
	MPI_Finalize();
	return 0;
}
