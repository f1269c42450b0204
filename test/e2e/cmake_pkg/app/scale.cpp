// SPDX-License-Identifier: BSD-3-Clause
// The C++ part of app.c: scale (a C name) and twice, recorded by its demangled name twice(int).
__attribute__((noinline)) static int twice(int x)
{
	return 2 * x;
}

extern "C" int scale(int x);

int scale(int x)
{
	return twice(x) + 1;
}
