! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_f08", non-blocking collectives through "use mpi_f08" (any number of ranks):
!   MPI_Iallreduce of 3 integers, MPI_Wait; MPI_Ibcast of 5 from rank 0, MPI_Wait;
!   MPI_Ialltoall of 2 integers per rank and MPI_Iallgather of 1, both in flight, completed
!   by one MPI_Waitall.
! One line of output per rank.
program f08_nbc
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ierr
  integer :: a(3), s(3), b(5), one(1)
  integer, allocatable :: sa(:), ra(:), ga(:)
  type(MPI_Request) :: q, qs(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(sa(2 * nprocs), ra(2 * nprocs), ga(nprocs))

  a = rank + 1
  call MPI_Iallreduce(a, s, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  b = 0
  if (rank == 0) b = 7
  call MPI_Ibcast(b, 5, MPI_INTEGER, 0, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)

  sa = rank
  one = rank * 3
  call MPI_Ialltoall(sa, 2, MPI_INTEGER, ra, 2, MPI_INTEGER, MPI_COMM_WORLD, qs(1), ierr)
  call MPI_Iallgather(one, 1, MPI_INTEGER, ga, 1, MPI_INTEGER, MPI_COMM_WORLD, qs(2), ierr)
  call MPI_Waitall(2, qs, MPI_STATUSES_IGNORE, ierr)

  print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'rank ', rank, ': ', s(1), ' ', b(5), ' ', &
        ra(2 * nprocs), ' ', ga(nprocs)
  call MPI_Finalize(ierr)
end program f08_nbc
