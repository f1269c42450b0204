// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_abort_trace": rank 1 calls work() WORK times, sends MSGS messages to rank 0 and
// receives one reply, all completed, then calls MPI_Abort(MPI_COMM_WORLD, 3) from give_up().
// Rank 0 receives those messages, replies, and waits in MPI_Recv for a message that never
// comes; the other ranks wait in MPI_Recv from the start. MPI ends every rank.
// With the argument "term", rank 1 waits too instead of aborting, and rank 0, once it has
// replied, has a timer send it SIGTERM while it waits: it ends by that signal.
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WORK 7
#define MSGS 3

static volatile double sink;

__attribute__((noinline)) static void work(int i)
{
	sink += i * 0.5;
}

__attribute__((noinline)) static void give_up(int rank)
{
	printf("rank %d: aborting\n", rank);
	fflush(stdout);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

__attribute__((noinline)) static void wait_forever(int from)
{
	int x;
	MPI_Recv(&x, 1, MPI_INT, from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("never printed\n");
}

/* SIGTERM to this process in 300 ms, as a launcher would send it. */
__attribute__((noinline)) static void arm_sigterm(void)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGTERM;
	timer_t timer;
	struct itimerspec in = {{0, 0}, {0, 300000000}};
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 || timer_settime(timer, 0, &in, NULL))
		perror("timer");
}

int main(int argc, char **argv)
{
	int rank, buf[MSGS + 1] = {0};
	int term = argc > 1 && strcmp(argv[1], "term") == 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d: started\n", rank);
	fflush(stdout);
	if (rank == 1) {
		for (int i = 0; i < WORK; i++)
			work(i);
		/* message i: i + 1 ints, tag 10 + i */
		for (int i = 0; i < MSGS; i++)
			MPI_Send(buf, i + 1, MPI_INT, 0, 10 + i, MPI_COMM_WORLD);
		MPI_Recv(buf, 2, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (term)
			wait_forever(0);
		give_up(rank);
	} else if (rank == 0) {
		for (int i = 0; i < MSGS; i++)
			MPI_Recv(buf, i + 1, MPI_INT, 1, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, 2, MPI_INT, 1, 20, MPI_COMM_WORLD);
		if (term)
			arm_sigterm();
		wait_forever(1);
	} else {
		wait_forever(0);
	}
	MPI_Finalize();
	return 0;
}
