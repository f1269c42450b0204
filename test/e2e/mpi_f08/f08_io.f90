! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_f08", MPI-IO through "use mpi_f08" (any number of ranks): MPI_File_open of
! "f08.dat" (created, read-write), MPI_File_write_at of 4 integers at rank * 16 bytes,
! MPI_File_write_at_all of 2 integers at 1024 + rank * 8, MPI_File_iread_at of the first 4,
! MPI_Wait, MPI_File_read_at_all of the 2, MPI_File_close.
! One line of output per rank.
program f08_io
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ierr
  integer :: src(4), got(4), two(2), back(2)
  type(MPI_Request) :: q
  type(MPI_File) :: fh
  integer(kind=MPI_OFFSET_KIND) :: off, off2

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  src = rank * 10
  two = rank + 100
  call MPI_File_open(MPI_COMM_WORLD, "f08.dat", ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                     MPI_INFO_NULL, fh, ierr)
  off = rank * 16
  off2 = 1024 + rank * 8
  call MPI_File_write_at(fh, off, src, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_write_at_all(fh, off2, two, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  got = 0
  call MPI_File_iread_at(fh, off, got, 4, MPI_INTEGER, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  back = 0
  call MPI_File_read_at_all(fh, off2, back, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)

  print '(a,i0,a,i0,a,i0)', 'rank ', rank, ': ', got(4), ' ', back(2)
  call MPI_Finalize(ierr)
end program f08_io
