/* SPDX-License-Identifier: BSD-3-Clause */
/* The compiler hints every layer uses (branch weights, sanitizer exemptions), and nothing else. */
#ifndef VT_COMPILER_H
#define VT_COMPILER_H

#define vt_likely(x)   __builtin_expect(!!(x), 1)
#define vt_unlikely(x) __builtin_expect(!!(x), 0)

/*
 * Not instrumented by AddressSanitizer: the libc functions vt defines and what they run
 * before vt has started. Another library's constructor may call them (libucs opens files
 * and locks mutexes in its own) before ASan's runtime has set up its shadow memory, where
 * an instrumented load faults.
 */
#define VT_NO_ASAN __attribute__((no_sanitize("address")))

#endif
