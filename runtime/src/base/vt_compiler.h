/* SPDX-License-Identifier: BSD-3-Clause */
/* The compiler hints every layer uses (branch weights), and nothing else. */
#ifndef VT_COMPILER_H
#define VT_COMPILER_H

#define vt_likely(x)   __builtin_expect(!!(x), 1)
#define vt_unlikely(x) __builtin_expect(!!(x), 0)

#endif
