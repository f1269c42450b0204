// SPDX-License-Identifier: BSD-3-Clause
// e2e filter_inline as C++: skip.c, with a filtered function an exception passes through.
#include "skip.c"
