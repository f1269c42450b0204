/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program with phases A, B, C of known calls; B and C each wait for a file the test makes. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void phase_a(int i)
{
	sink += i;
}

__attribute__((noinline)) void phase_b(int i)
{
	sink += 2 * i;
}

__attribute__((noinline)) void phase_c(int i)
{
	sink += 3 * i;
}

/* Waits until path exists: the test makes it when vt-ctl has answered. */
static void wait_file(const char *path)
{
	struct timespec step = {0, 10 * 1000 * 1000};
	while (access(path, F_OK) != 0)
		nanosleep(&step, NULL);
}

int main(int argc, char **argv)
{
	int rank;
	char go1[4096], go2[4096];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	snprintf(go1, sizeof(go1), "%s/go1", argv[1]);
	snprintf(go2, sizeof(go2), "%s/go2", argv[1]);
	for (int i = 0; i < 100; i++)
		phase_a(i);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("A done %d\n", rank);
	fflush(stdout);
	wait_file(go1);
	for (int i = 0; i < 200; i++)
		phase_b(i);
	printf("B done %d\n", rank);
	fflush(stdout);
	wait_file(go2);
	for (int i = 0; i < 300; i++)
		phase_c(i);
	MPI_Finalize();
	return 0;
}
