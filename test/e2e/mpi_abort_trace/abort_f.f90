! SPDX-License-Identifier: BSD-3-Clause
! e2e "mpi_abort_trace", Fortran: rank 1 calls work() 5 times, then MPI_ABORT with
! errorcode 4 while rank 0 waits in MPI_RECV.
program abort_f
  use mpi_f08
  implicit none
  integer :: rank, i, x
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 1) then
    do i = 1, 5
      call work(i)
    end do
    call MPI_Abort(MPI_COMM_WORLD, 4)
  else
    call MPI_Recv(x, 1, MPI_INTEGER, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
  call MPI_Finalize()
contains
  subroutine work(i)
    integer, intent(in) :: i
    x = x + i
  end subroutine work
end program abort_f
