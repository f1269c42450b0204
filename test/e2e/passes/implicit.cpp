// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": functions the compiler writes (implicit constructor and destructor, the
// static initialiser) and one marked no_instrument_function; test_passes.py knows which
// regions each method records.
#include <cstdio>

static volatile int vs;

struct Member {
	__attribute__((noinline)) Member()
	{
		vs = vs + 1;
	}
	__attribute__((noinline)) ~Member()
	{
		vs = vs - 1;
	}
};

// Outer's constructor and destructor are implicit: the compiler writes them.
struct Outer {
	Member m;
};

// Constructed by the static initialiser the compiler writes, destroyed at exit.
static Outer global;

__attribute__((noinline, no_instrument_function)) int quiet(int x)
{
	return x + vs;
}

int main()
{
	Outer local;
	std::printf("quiet = %d\n", quiet(2));
	return 0;
}
