// SPDX-License-Identifier: BSD-3-Clause
// The user API in C++: a scoped region per loop iteration, ended by the scope, also when the
// scope is left by an exception.
#include <cstdio>
#include <stdexcept>
#include <vt/vt_user.h>

static int check(int i)
{
	VT_USER_SCOPE("check");
	if (i == 3)
		throw std::runtime_error("three");
	return i;
}

int main()
{
	int sum = 0, caught = 0;
	for (int i = 0; i < 10; i++) {
		VT_USER_SCOPE("iteration");
		try {
			sum += check(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::printf("sum %d caught %d\n", sum, caught);
	return 0;
}
