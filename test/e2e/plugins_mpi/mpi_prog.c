/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI program of "plugins_mpi": every rank calls work() K times, naps (so that the
 * asynchronous test plugins' samplers finish while it runs), and takes part in a barrier
 * and an allreduce. After MPI_Init each rank appends "prog rank PID TID r=R host=HOST" to
 * $TP_LOG (the plugins' log), so the test knows which process is which rank on which host.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define K 6
#define NAP_MS 12

static long sink;

static void log_rank(int rank)
{
	const char *path = getenv("TP_LOG");
	char host[256] = "?", line[512];
	if (!path || !*path)
		return;
	gethostname(host, sizeof(host) - 1);
	int n = snprintf(line, sizeof(line), "prog rank %d %ld r=%d host=%s\n", (int)getpid(),
			 (long)syscall(SYS_gettid), rank, host);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n)
			perror("write");
		close(fd);
	}
}

__attribute__((noinline)) void work(long i)
{
	sink += i;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, NAP_MS * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int rank, size, sum;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	log_rank(rank);
	for (long i = 0; i < K; i++)
		work(i);
	MPI_Barrier(MPI_COMM_WORLD);
	nap();
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d: sum %d, sink %ld\n", rank, size, sum, sink);
	MPI_Finalize();
	return 0;
}
