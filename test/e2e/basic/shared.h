// SPDX-License-Identifier: BSD-3-Clause
// e2e "basic": the function of the linked shared library libshared.so.
#ifndef VT_E2E_SHARED_H
#define VT_E2E_SHARED_H

int shared_fn(int i);

#endif
