! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_f08", one-sided communication through "use mpi_f08" (any number of ranks):
!   MPI_Win_create over 4 integers (named "f08 window"), a fence, MPI_Put of 2 integers to
!   the next rank, a fence; then a passive-target epoch: MPI_Win_lock (exclusive) on the
!   next rank, MPI_Get of 3 integers from it, MPI_Win_unlock; MPI_Win_free.
! One line of output per rank.
program f08_rma
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ierr, nxt
  integer :: w(4), src(4), got(3)
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nxt = mod(rank + 1, nprocs)

  w = -1
  src = rank * 10
  wsize = 16
  call MPI_Win_create(w, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_set_name(win, "f08 window", ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(src, 2, MPI_INTEGER, nxt, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)

  got = 0
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, nxt, 0, win, ierr)
  call MPI_Get(got, 3, MPI_INTEGER, nxt, disp, 3, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(nxt, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_free(win, ierr)

  print '(a,i0,a,i0,a,i0)', 'rank ', rank, ': ', w(1), ' ', got(3)
  call MPI_Finalize(ierr)
end program f08_rma
