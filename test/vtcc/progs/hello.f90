! SPDX-License-Identifier: BSD-3-Clause
! A Fortran program for the vtcc build tests: a module procedure and the main program.
module vtcc_test_mod
contains
  integer function square(x)
    integer, intent(in) :: x
    square = x * x
  end function square
end module vtcc_test_mod

program hello
  use vtcc_test_mod
  print '(a,i0)', 'fortran ', square(12)
end program hello
