/* SPDX-License-Identifier: BSD-3-Clause */
/* The library of the vtcc CMake test project. */
#ifndef VTCC_PROJ_GREET_H
#define VTCC_PROJ_GREET_H

int vtcc_proj_greet(int n);

#endif
