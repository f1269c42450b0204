// SPDX-License-Identifier: BSD-3-Clause
// e2e "basic": a shared library linked into the program (built with vtcc -shared -fPIC).
#include "shared.h"

static volatile int shared_sink;

int shared_fn(int i)
{
	shared_sink += i;
	return shared_sink;
}
