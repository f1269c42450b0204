! SPDX-License-Identifier: BSD-3-Clause
! The user API in Fortran (vt_user.inc): regions by name (the same name from two call sites is
! one region, and the same as C's), an integer and a floating-point counter, a marker, and
! recording switched off and on.
#include "vt/vt_user.inc"

subroutine step(i, total)
  implicit none
  integer, intent(in) :: i
  integer, intent(inout) :: total
  VT_USER_START('step')
  total = total + i
  VT_USER_END('step')
end subroutine step

program user
  implicit none
  integer :: i, total, items, residual
  total = 0
  VT_USER_COUNTER_DEF(items, 'items', '#', VT_USER_COUNTER_INTEGER)
  VT_USER_COUNTER_DEF(residual, 'residual', '1', VT_USER_COUNTER_DOUBLE)
  VT_USER_MARKER('phase', 'fortran start')
  VT_USER_START('solve')
  do i = 1, 10
    call step(i, total)
    VT_USER_COUNTER_SET_INT(items, i * 3)
    VT_USER_COUNTER_SET_DOUBLE(residual, 1.0d0 / i)
  end do
  VT_USER_END('solve')
  VT_USER_TRACE_OFF()
  call step(100, total)
  VT_USER_TRACE_ON()
  VT_USER_START('step')
  VT_USER_END('step')
  VT_USER_FLUSH()
  print '(a,i0)', 'total ', total
end program user
