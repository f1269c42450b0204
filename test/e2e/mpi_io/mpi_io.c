// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_io": MPI-IO whose events test_mpi_io.py derives by hand (any number of ranks;
// counts are of MPI_INT, 4 bytes). All ranks open ARGV[1] (created, read-write), then:
//   write_at 4 ints at BASE = 2048 + rank * 64 bytes (explicit offset); write_at_all 2
//   ints at BASE + 16; seek to MINE = 512 + rank * 32 (individual pointer, from the start)
//   and write 3 ints; write_shared 1 int; write_ordered 2 ints (the shared pointer, from 0);
//   iwrite_at 5 ints at 1024 + BASE, MPI_Wait; write_all_begin/_end of 2 ints (individual
//   pointer); sync; read_at 4 ints at BASE; read_at_all 2 ints at BASE + 16; seek back to
//   MINE, read 3 ints (status ignored); iread_at 5 ints at 1024 + BASE, MPI_Wait;
//   read_at_all_begin/_end of 4 ints at BASE; seek_shared to 0; read_ordered 1 int;
//   no two ranks write the same bytes, except through the shared pointer (unread);
//   a read past the end of the file (read_at 4 ints at 1 MiB: 0 bytes done); close.
// Last, MPI_File_open of a file in a directory that does not exist: an error MPI returns
// (MPI_ERRORS_RETURN on files), which the program reports. Each rank prints one line.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, out[8], in[8] = {0}, n = 0;
	long sum = 0;
	MPI_File fh, bad;
	MPI_Status st;
	MPI_Request q;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < 8; i++)
		out[i] = rank * 100 + i;
	MPI_Offset base = 2048 + rank * 64, mine = 512 + rank * 32;

	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_write_at(fh, base, out, 4, MPI_INT, &st);
	MPI_File_write_at_all(fh, base + 16, out, 2, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_seek(fh, mine, MPI_SEEK_SET);
	MPI_File_write(fh, out, 3, MPI_INT, &st);
	MPI_File_write_shared(fh, out, 1, MPI_INT, &st);
	MPI_File_write_ordered(fh, out, 2, MPI_INT, &st);
	MPI_File_iwrite_at(fh, 1024 + base, out, 5, MPI_INT, &q);
	MPI_Wait(&q, &st);
	MPI_File_write_all_begin(fh, out, 2, MPI_INT);
	MPI_File_write_all_end(fh, out, &st);
	MPI_File_sync(fh);

	MPI_File_read_at(fh, base, in, 4, MPI_INT, &st);
	sum += in[3];
	MPI_File_read_at_all(fh, base + 16, in, 2, MPI_INT, &st);
	MPI_File_seek(fh, mine, MPI_SEEK_SET);
	MPI_File_read(fh, in, 3, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_iread_at(fh, 1024 + base, in, 5, MPI_INT, &q);
	MPI_Wait(&q, &st);
	sum += in[4];
	MPI_File_read_at_all_begin(fh, base, in, 4, MPI_INT);
	MPI_File_read_at_all_end(fh, in, &st);
	MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
	MPI_File_read_ordered(fh, in, 1, MPI_INT, &st);
	MPI_File_read_at(fh, 1 << 20, in, 4, MPI_INT, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	MPI_File_close(&fh);

	char nowhere[4096];
	snprintf(nowhere, sizeof(nowhere), "%s.no/such/dir/file", argv[1]);
	int err = MPI_File_open(MPI_COMM_WORLD, nowhere, MPI_MODE_RDONLY, MPI_INFO_NULL, &bad);
	printf("rank %d: %ld, %d past the end, bad open %s\n", rank, sum, n,
	       err == MPI_SUCCESS ? "succeeded" : "failed");
	MPI_Finalize();
	return 0;
}
