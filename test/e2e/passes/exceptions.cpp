// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": C++ exceptions thrown through instrumented frames (caught one and three
// frames up, rethrown, through a destructor); test_passes.py knows the exact counts.
#include <cstdio>
#include <stdexcept>

static volatile int vs = 1;

__attribute__((noinline)) void thrower(int n)
{
	if (n > 0 && vs)
		throw std::runtime_error("boom");
}

__attribute__((noinline)) void middle(int n)
{
	thrower(n);
}

__attribute__((noinline)) int catcher(int n)
{
	try {
		middle(n);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

struct Guard {
	__attribute__((noinline)) ~Guard()
	{
		vs = vs + 0;
	}
};

__attribute__((noinline)) void with_guard(int n)
{
	Guard g;
	middle(n);
}

__attribute__((noinline)) int rethrower(int n)
{
	try {
		with_guard(n);
	} catch (...) {
		throw;
	}
	return 0;
}

int main()
{
	int c = 0;
	for (int i = 0; i < 4; i++)
		c += catcher(i % 2);
	for (int i = 0; i < 3; i++) {
		try {
			rethrower(1);
		} catch (const std::runtime_error &) {
			c++;
		}
	}
	std::printf("c = %d\n", c);
	return 0;
}
