! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_fortran": MPI through "use mpi" (the mpif.h entry points): ring, non-blocking,
! MPI_ANY_SOURCE, collectives, a split communicator. One line of output per rank.
program fmpi
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, left, right, i, sub, n, total, s, ring
  integer :: buf(4), got(4), reqs(2), st(MPI_STATUS_SIZE)
  double precision :: a(8), b(8)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  ! ring: 4 integers, tag 10
  buf = rank
  if (rank == 0) then
    call MPI_Send(buf, 4, MPI_INTEGER, right, 10, MPI_COMM_WORLD, ierr)
    call MPI_Recv(got, 4, MPI_INTEGER, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(got, 4, MPI_INTEGER, left, 10, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(buf, 4, MPI_INTEGER, right, 10, MPI_COMM_WORLD, ierr)
  end if

  ! what the ring brought, kept before the any-source receives reuse got (their order varies)
  ring = got(1)

  ! non-blocking: 8 doubles from the left, tag 20; both completed by one Waitall
  a = rank
  call MPI_Irecv(b, 8, MPI_DOUBLE_PRECISION, left, 20, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, 8, MPI_DOUBLE_PRECISION, right, 20, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

  ! any source: rank q > 0 sends q integers with tag 40 + q to rank 0
  s = 0
  if (rank == 0) then
    do i = 1, nprocs - 1
      call MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      s = s + got(1)
    end do
  else
    call MPI_Send(buf, rank, MPI_INTEGER, 0, 40 + rank, MPI_COMM_WORLD, ierr)
  end if

  ! collectives on MPI_COMM_WORLD
  n = 7 * (rank + 1)
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! even and odd ranks
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Allreduce(rank, i, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call MPI_Comm_free(sub, ierr)

  print '(7(a,i0))', 'rank ', rank, ' of ', nprocs, ': ring ', ring + int(b(1)), ' any ', s, &
        ' bcast ', n, ' total ', total, ' split ', i
  call MPI_Finalize(ierr)
end program fmpi
