// SPDX-License-Identifier: BSD-3-Clause
// A C++ program for the vtcc build tests: a class, a template and iostream.
#include <iostream>
#include <string>

namespace vtcc_test {
class Counter {
public:
	void add(int n) { total_ += n; }
	int total() const { return total_; }

private:
	int total_ = 0;
};

template <typename T> T twice(T x) { return x + x; }
} // namespace vtcc_test

int main()
{
	vtcc_test::Counter c;
	for (int i = 1; i <= 4; i++)
		c.add(i);
	std::cout << "c++ " << c.total() << " " << vtcc_test::twice(std::string("ab")) << "\n";
	return 0;
}
