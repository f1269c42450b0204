/* SPDX-License-Identifier: BSD-3-Clause */
/* e2e mpi_requests: Isend/Irecv requests completed by every Wait and Test, on two threads. */
// Two ranks, each the same with the other as its peer; every message 1 double. The
// requests of each pattern (tag base B): K Irecv from the peer (tags B..B+K-1), K Isend to
// it, then their completion:
//   Waitall of 16 (K 8, B 100), Waitany one at a time (K 4, B 200), Waitsome (K 4, B 300),
//   Testsome (K 4, B 400), Test of each (K 1, B 500), Wait of each (K 1, B 600), a Waitall
//   by another thread than the one that made them (K 4, B 700), and an Irecv that no
//   message matches (tag 999), cancelled and waited for.
// Prints one line per rank: the sum of what it received.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { MAXK = 8 };
static double in[2 * MAXK], out[MAXK];
static MPI_Request q[2 * MAXK];
static MPI_Status sts[2 * MAXK];
static int peer;

static void post(int k, int base)
{
	for (int i = 0; i < k; i++)
		MPI_Irecv(&in[i], 1, MPI_DOUBLE, peer, base + i, MPI_COMM_WORLD, &q[i]);
	for (int i = 0; i < k; i++) {
		out[i] = base + i;
		MPI_Isend(&out[i], 1, MPI_DOUBLE, peer, base + i, MPI_COMM_WORLD, &q[k + i]);
	}
}

static double sum(int k)
{
	double s = 0;
	for (int i = 0; i < k; i++)
		s += in[i];
	return s;
}

static void *waiter(void *arg)
{
	MPI_Waitall(2 * *(int *)arg, q, MPI_STATUSES_IGNORE);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, idx, n, done, flag, indices[2 * MAXK];
	double total = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;

	post(8, 100);
	MPI_Waitall(16, q, sts);
	total += sum(8);

	post(4, 200);
	for (int i = 0; i < 8; i++)
		MPI_Waitany(8, q, &idx, MPI_STATUS_IGNORE);
	total += sum(4);

	post(4, 300);
	for (done = 0; done < 8; done += n)
		MPI_Waitsome(8, q, &n, indices, sts);
	total += sum(4);

	post(4, 400);
	for (done = 0; done < 8; done += n)
		MPI_Testsome(8, q, &n, indices, MPI_STATUSES_IGNORE);
	total += sum(4);

	post(1, 500);
	for (int i = 0; i < 2; i++)
		for (flag = 0; !flag;)
			MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
	total += sum(1);

	post(1, 600);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	MPI_Wait(&q[1], MPI_STATUS_IGNORE);
	total += sum(1);

	int k = 4;
	post(k, 700);
	pthread_t th;
	if (provided == MPI_THREAD_MULTIPLE && pthread_create(&th, NULL, waiter, &k) == 0)
		pthread_join(th, NULL);
	else
		waiter(&k);
	total += sum(4);

	MPI_Request c;
	MPI_Irecv(&in[0], 1, MPI_DOUBLE, peer, 999, MPI_COMM_WORLD, &c);
	MPI_Cancel(&c);
	MPI_Status st;
	MPI_Wait(&c, &st);
	MPI_Test_cancelled(&st, &flag);

	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d received %.0f, cancelled %d, threads %d\n", rank, total, flag,
	       provided == MPI_THREAD_MULTIPLE);
	MPI_Finalize();
	return 0;
}
