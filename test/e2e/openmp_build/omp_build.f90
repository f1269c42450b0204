! SPDX-License-Identifier: BSD-3-Clause
! e2e "openmp_build": a deterministic OpenMP program in Fortran (use omp_lib, !$omp), 2 threads.
module ompwork
  use omp_lib
  implicit none
  integer :: total = 0
contains
  subroutine work(i)
    integer, intent(in) :: i
    !$omp atomic
    total = total + i
  end subroutine work

  integer function iter(i)
    integer, intent(in) :: i
    iter = 2 * i + 1
  end function iter

  subroutine task_body(k)
    integer, intent(in) :: k
    !$omp atomic
    total = total + 10 * k
  end subroutine task_body
end module ompwork

program ompbuild
  use omp_lib
  use ompwork
  implicit none
  integer :: i, k, t, team, loop
  team = 0
  loop = 0
  ! One region: thread t calls work (t + 1) * 2 times, an explicit barrier, a static loop
  ! of 8 iterations (4 per thread, implicit barrier), then the primary thread creates 3
  ! tasks and waits for them; the region ends with its implicit barrier.
  !$omp parallel num_threads(2) private(i, k, t)
  t = omp_get_thread_num()
  do i = 1, (t + 1) * 2
    call work(i)
  end do
  !$omp barrier
  !$omp do schedule(static) reduction(+:loop)
  do i = 1, 8
    loop = loop + iter(i)
  end do
  !$omp end do
  !$omp master
  team = omp_get_num_threads()
  do k = 1, 3
    !$omp task firstprivate(k)
    call task_body(k)
    !$omp end task
  end do
  !$omp taskwait
  !$omp end master
  !$omp end parallel
  print '(a,i0,a,i0,a,i0)', 'team ', team, ', total ', total, ', loop ', loop
  if (team /= 2) stop 1
end program ompbuild
