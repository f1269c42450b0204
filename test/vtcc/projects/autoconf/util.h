/* SPDX-License-Identifier: BSD-3-Clause */
/* A helper of the vtcc autoconf-style test project. */
#ifndef VTCC_PROJ_UTIL_H
#define VTCC_PROJ_UTIL_H

int vtcc_proj_root(int n);

#endif
