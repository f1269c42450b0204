// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": the program's own functions use the C++ library's templates, whose code is
// instantiated here but declared in system headers (/usr/include/c++/...).
#include <algorithm>
#include <cstdio>
#include <vector>

static int total(const std::vector<int> &v)
{
	int s = 0;
	for (int x : v)
		s += x;
	return s;
}

static void fill(std::vector<int> &v, int n)
{
	for (int i = 0; i < n; i++)
		v.push_back(n - i);
	std::sort(v.begin(), v.end());
}

int main()
{
	std::vector<int> v;
	fill(v, 20);
	std::printf("%d %d\n", total(v), v.front());
	return 0;
}
