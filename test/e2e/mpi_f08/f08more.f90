! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_f08": the features of issue 15 through "use mpi_f08" (any number of ranks):
!   non-blocking collectives: MPI_Iallreduce of 3 integers and MPI_Ibcast of 5 from rank 0,
!     each completed by MPI_Wait;
!   one-sided: MPI_Win_create over 4 integers (named "f08 window"), a fence, MPI_Put of 2
!     integers to the next rank, a fence, MPI_Win_free;
!   MPI-IO: MPI_File_open of "f08.dat" (created, read-write), MPI_File_write_at of 4
!     integers at rank * 16 bytes, MPI_File_iread_at of the same, MPI_Wait, MPI_File_close.
! One line of output per rank.
program f08more
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ierr, nxt
  integer :: a(3), s(3), b(5), w(4), src(4), got(4)
  type(MPI_Request) :: q
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nxt = mod(rank + 1, nprocs)

  a = rank + 1
  call MPI_Iallreduce(a, s, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  b = 0
  if (rank == 0) b = 7
  call MPI_Ibcast(b, 5, MPI_INTEGER, 0, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)

  w = -1
  src = rank * 10
  wsize = 16
  call MPI_Win_create(w, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_set_name(win, "f08 window", ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(src, 2, MPI_INTEGER, nxt, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)

  call MPI_File_open(MPI_COMM_WORLD, "f08.dat", ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                     MPI_INFO_NULL, fh, ierr)
  off = rank * 16
  call MPI_File_write_at(fh, off, src, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  got = 0
  call MPI_File_iread_at(fh, off, got, 4, MPI_INTEGER, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)

  print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'rank ', rank, ': ', s(1), ' ', b(5), ' ', w(1), &
        ' ', got(4)
  call MPI_Finalize(ierr)
end program f08more
