// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": what the objects of the mixed program share.
#ifndef MIXED_H
#define MIXED_H

#ifdef __cplusplus
extern "C" {
#endif
int lib_compinst(int x); // mixed_compinst.c
int lib_gcc(int x);      // mixed_gcc.c
int lib_llvm(int x);     // mixed_llvm.c
#ifdef __cplusplus
}

// An inline function every C++ object of the program has a copy of: one region however
// many objects instrument it.
__attribute__((noinline)) inline int shared_inline(int x)
{
	return x * 5;
}

int cxx_one(int x); // mixed_one.cpp
int cxx_two(int x); // mixed_two.cpp
#endif

#endif
