# SPDX-License-Identifier: BSD-3-Clause
# vt_instrument(TARGET ...): a target's compiles and link run through vtcc, vtcxx or vtfort.
#
#   vt_instrument(<target> [INST <method>] [FILTER <file>] [MT] [MPI | MPICH]
#                 [OPTIONS <-vt:option> ...])
#
# Each compile and link of <target> is run by vt's compiler driver, as a compiler launcher:
# "vtcc -vt:cc <the compiler> <arguments>" (vtcxx -vt:cxx for C++, vtfort -vt:fc for
# Fortran), so the flags are vtcc's own (instrumentation, -DVTRACE and vt's include folder
# when compiling, libvt when linking) and nothing here repeats them.
#   INST     -vt:inst <method>: auto (default), gcc, llvm, compinst, manual or none
#   FILTER   -vt:filter <file>: the compile-time filter of the compiler plugins
#   MT       -vt:mt: -pthread when compiling and linking
#   MPI      links vt::mpi (Open MPI's wrappers) first, MPICH vt::mpich: before the target's
#            MPI library, wherever that was named, so that vt's wrappers see its calls (an
#            executable's: the first library that defines MPI_Send is the one called)
#   OPTIONS  further -vt: options, as vtcc takes them (docs/vtcc.md)
# A launcher the target already has (ccache) runs vtcc. A static or object library gets
# the compile side, and its users link libvt (vt::vt).

function(vt_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 _vt "MT;MPI;MPICH" "INST;FILTER" "OPTIONS")
  if(_vt_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "vt_instrument(${target}): unknown arguments ${_vt_UNPARSED_ARGUMENTS}; "
            "expected INST <method>, FILTER <file>, MT, MPI, MPICH or OPTIONS <-vt:option>...")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "vt_instrument(${target}): no such target; expected one made by "
            "add_executable or add_library")
  endif()
  if(_vt_MPI AND _vt_MPICH)
    message(FATAL_ERROR "vt_instrument(${target}): MPI and MPICH contradict each other; give one")
  endif()

  set(_vt_args ${_vt_OPTIONS})
  if(DEFINED _vt_INST)
    list(APPEND _vt_args -vt:inst ${_vt_INST})
  endif()
  if(DEFINED _vt_FILTER)
    get_filename_component(_vt_filter "${_vt_FILTER}" ABSOLUTE)
    list(APPEND _vt_args -vt:filter "${_vt_filter}")
  endif()
  if(_vt_MT)
    list(APPEND _vt_args -vt:mt)
  endif()

  get_target_property(_vt_type ${target} TYPE)
  get_filename_component(_vt_bindir "${vt_VTCC}" DIRECTORY)
  get_property(_vt_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(_vt_lang IN ITEMS C CXX Fortran)
    if(NOT _vt_lang IN_LIST _vt_languages)
      continue()
    endif()
    if(_vt_lang STREQUAL "C")
      set(_vt_driver "${_vt_bindir}/vtcc" -vt:cc)
    elseif(_vt_lang STREQUAL "CXX")
      set(_vt_driver "${_vt_bindir}/vtcxx" -vt:cxx)
    else()
      set(_vt_driver "${_vt_bindir}/vtfort" -vt:fc)
    endif()
    # The compiler CMake runs comes right after the launcher: the value of -vt:cc.
    if(_vt_args)
      list(INSERT _vt_driver 1 ${_vt_args})
    endif()
    get_target_property(_vt_before ${target} ${_vt_lang}_COMPILER_LAUNCHER)
    if(_vt_before)
      set_property(TARGET ${target} PROPERTY ${_vt_lang}_COMPILER_LAUNCHER
                   ${_vt_before} ${_vt_driver})
    else()
      set_property(TARGET ${target} PROPERTY ${_vt_lang}_COMPILER_LAUNCHER ${_vt_driver})
    endif()
    if(_vt_type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      set_property(TARGET ${target} PROPERTY ${_vt_lang}_LINKER_LAUNCHER ${_vt_driver})
    endif()
  endforeach()

  # (the property, not target_link_libraries: that would fix which of its signatures the
  # project may use for the target)
  if(_vt_type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY)$")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES vt::vt)
  endif()

  # vt's MPI wrappers must come before the MPI library in the link, or the program's calls
  # go straight to MPI: first in the target's libraries.
  if(_vt_MPI OR _vt_MPICH)
    if(_vt_MPI)
      set(_vt_wrappers vt::mpi)
    else()
      set(_vt_wrappers vt::mpich)
    endif()
    if(NOT TARGET ${_vt_wrappers})
      message(FATAL_ERROR "vt_instrument(${target}): ${_vt_wrappers} is not installed "
              "(vt was built without that MPI); installed: ${vt_MPI_TARGETS}")
    endif()
    get_target_property(_vt_libs ${target} LINK_LIBRARIES)
    if(NOT _vt_libs)
      set(_vt_libs "")
    endif()
    set_property(TARGET ${target} PROPERTY LINK_LIBRARIES ${_vt_wrappers} ${_vt_libs})
  endif()
endfunction()
