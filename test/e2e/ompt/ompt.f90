! SPDX-License-Identifier: BSD-3-Clause
! e2e "ompt": ompt.c's constructs in Fortran (gfortran's code on libomp), the same counts.
! omp_set_num_threads(2): REPS parallel loops with a reduction; one region with sections,
! critical sections, an omp lock, an explicit barrier, a single that makes tied tasks and
! an untied one with dependences and waits for them; then one nested region (2 x 2
! threads, all four at once).
module omptwork
  implicit none
  integer(8), volatile :: sink = 0, locked = 0
contains
  integer(8) function work(i)
    integer(8), intent(in) :: i
    work = i * 2
  end function work

  subroutine section(i)
    integer(8), intent(in) :: i
    ! the two sections may run at once, and at once with the other's critical sections
    !$omp atomic
    sink = sink + i
  end subroutine section
end module omptwork

program ompt
  use omp_lib
  use omptwork
  implicit none
  integer, parameter :: reps = 3, iters = 16, crit = 4, tasks = 4
  integer(8) :: total, chain, i
  integer :: r, k, inner, seen
  integer(omp_lock_kind) :: lock

  total = 0
  chain = 0
  inner = 0
  call omp_init_lock(lock)
  call omp_set_num_threads(2)
  call omp_set_max_active_levels(2)
  do r = 1, reps
    !$omp parallel do schedule(static) reduction(+:total)
    do i = 0, iters - 1
      total = total + work(i)
    end do
    !$omp end parallel do
  end do
  !$omp parallel private(k)
  !$omp sections
  !$omp section
  call section(1_8)
  !$omp section
  call section(2_8)
  !$omp end sections
  do k = 1, crit
    !$omp critical
    sink = sink + 1
    !$omp end critical
  end do
  call omp_set_lock(lock)
  locked = locked + 1
  call omp_unset_lock(lock)
  !$omp barrier
  !$omp single
  do k = 1, tasks
    !$omp task depend(inout: chain) firstprivate(k)
    chain = chain * 10 + k
    !$omp end task
  end do
  !$omp task untied depend(inout: chain)
  chain = chain * 10 + tasks + 1
  !$omp end task
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  !$omp parallel num_threads(2) private(seen)
  !$omp parallel num_threads(2) private(seen)
  ! all four at once, so that the inner teams are four threads
  !$omp atomic
  inner = inner + 1
  do
    !$omp atomic read
    seen = inner
    if (seen >= 4) exit
  end do
  !$omp end parallel
  !$omp end parallel
  call omp_destroy_lock(lock)
  print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'sum = ', total, ', sink = ', sink, ', locked = ', &
    locked, ', chain = ', chain, ', inner = ', inner
  if (total /= reps * iters * (iters - 1) .or. chain /= 12345 .or. inner /= 4) stop 1
end program ompt
