// SPDX-License-Identifier: BSD-3-Clause
// e2e "basic": recursion, a static function, an inlinable function, a function in a linked
// shared library and one in a dlopen()ed library; test_basic.py knows the exact call counts.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "shared.h"

static volatile int sink;

int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) void helper(int i)
{
	sink += i;
}

// Inlined at -O2 by both compilers; -finstrument-functions still reports every call.
static inline int square(int x)
{
	return x * x;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}

	printf("fib(10) = %d\n", fib(10));

	for (int i = 0; i < 7; i++)
		helper(i);

	int sq = 0;
	for (int i = 0; i < 3; i++)
		sq += square(i + sink);
	printf("squares = %d\n", sq);

	int sh = 0;
	for (int i = 0; i < 5; i++)
		sh += shared_fn(i);
	printf("shared = %d\n", sh);

	void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!plugin) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	int (*plugin_fn)(int) = (int (*)(int))dlsym(plugin, "plugin_fn");
	if (!plugin_fn) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	int pl = 0;
	for (int i = 0; i < 4; i++)
		pl += plugin_fn(i);
	printf("plugin = %d\n", pl);
	dlclose(plugin);

	return 0;
}
