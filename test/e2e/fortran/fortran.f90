! SPDX-License-Identifier: BSD-3-Clause
! e2e "fortran": a module with a subroutine and a function (mixed-case source names) and a
! plain external subroutine; test_fortran.py knows the exact names and call counts.
module Physics
  implicit none
  integer :: total = 0
contains
  subroutine Step(x)
    integer, intent(in) :: x
    total = total + x
  end subroutine Step

  integer function Energy(n)
    integer, intent(in) :: n
    Energy = n * n + total
  end function Energy
end module Physics

subroutine PlainSub(n, acc)
  implicit none
  integer, intent(in) :: n
  integer, intent(inout) :: acc
  acc = acc + 3 * n
end subroutine PlainSub

program FortDemo
  use Physics
  implicit none
  integer :: i, e, acc
  external :: PlainSub

  do i = 1, 6
    call Step(i)
  end do
  e = 0
  do i = 1, 3
    e = e + Energy(i)
  end do
  acc = 0
  do i = 1, 4
    call PlainSub(i, acc)
  end do
  print '(A,I0,A,I0,A,I0)', 'total=', total, ' energy=', e, ' acc=', acc
end program FortDemo
