// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_cxx": MPI's C bindings called from the methods of a C++ class. A Channel sends
// ROUNDS messages around the ring (round k: k + 1 ints, tag 70 + k; rank 0 sends first, the
// others receive first), checks each received message with a function template, and the
// ranks sum their checksums with MPI_Allreduce. Before main (so before MPI_Init), a
// constructor function checks a table with the same template. test_mpi_cxx.py counts regions
// and events (noinline: the compiler plugins record what remains a call after inlining).
//
// Open MPI's mpi.h brings in its (deprecated) C++ bindings, whose inline functions live
// outside /usr/include and would be instrumented too; the program uses the C bindings only.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>

#define ROUNDS 4
#define TAG 70
#define MAXN 16

namespace ring {

template <typename T> __attribute__((noinline)) T checksum(const T *p, int n)
{
	T s = 0;
	for (int i = 0; i < n; i++)
		s += p[i] * (i + 1);
	return s;
}

class Channel {
public:
	__attribute__((noinline)) Channel(int rank, int size);
	__attribute__((noinline)) void send_right(const int *buf, int n, int tag) const;
	__attribute__((noinline)) int recv_left(int *buf, int max, int tag) const;
	long exchange(int rounds) const;

private:
	int rank_, left_, right_;
};

Channel::Channel(int rank, int size)
	: rank_(rank), left_((rank + size - 1) % size), right_((rank + 1) % size)
{
}

void Channel::send_right(const int *buf, int n, int tag) const
{
	MPI_Send(buf, n, MPI_INT, right_, tag, MPI_COMM_WORLD);
}

int Channel::recv_left(int *buf, int max, int tag) const
{
	MPI_Status st;
	int n = 0;
	MPI_Recv(buf, max, MPI_INT, left_, tag, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	return n;
}

long Channel::exchange(int rounds) const
{
	int out[MAXN], in[MAXN];
	long sum = 0;
	for (int k = 0; k < rounds; k++) {
		for (int i = 0; i < k + 1; i++)
			out[i] = rank_ * 100 + k * 10 + i;
		int n;
		if (rank_ == 0) {
			send_right(out, k + 1, TAG + k);
			n = recv_left(in, MAXN, TAG + k);
		} else {
			n = recv_left(in, MAXN, TAG + k);
			send_right(out, k + 1, TAG + k);
		}
		sum += checksum<int>(in, n);
	}
	return sum;
}

} // namespace ring

static int table[3] = {1, 2, 3};
static int early;

__attribute__((constructor)) static void before_main()
{
	early = ring::checksum<int>(table, 3);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ring::Channel ch(rank, size);
	long mine = ch.exchange(ROUNDS), all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	std::printf("rank %d of %d: early %d mine %ld all %ld\n", rank, size, early, mine, all);
	MPI_Finalize();
	return 0;
}
