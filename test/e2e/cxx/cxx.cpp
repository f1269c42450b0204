// SPDX-License-Identifier: BSD-3-Clause
// e2e "cxx": a namespace, a class with a constructor, methods (one const), a function
// template with two instantiations and an overloaded function; test_cxx.py knows the exact
// demangled names and call counts. No standard library headers, so nothing else is
// instrumented.
#include <stdio.h>

namespace ns {

class Widget {
public:
	explicit Widget(int v) : v_(v)
	{
	}
	__attribute__((noinline)) int poke(int d);
	__attribute__((noinline)) int value() const;

private:
	int v_;
};

int Widget::poke(int d)
{
	v_ += d;
	return v_;
}

int Widget::value() const
{
	return v_;
}

} // namespace ns

template <typename T> __attribute__((noinline)) T twice(T x)
{
	return x + x;
}

__attribute__((noinline)) int over(int x)
{
	return x + 1;
}

__attribute__((noinline)) double over(double x)
{
	return x / 2.0;
}

static volatile int vsink = 1;

int main()
{
	ns::Widget w(vsink);
	ns::Widget w2(2 * vsink);
	for (int i = 0; i < 6; i++)
		w.poke(i);
	printf("value = %d %d\n", w.value(), w2.value());

	int ti = 0;
	for (int i = 0; i < 3; i++)
		ti += twice(i + vsink);
	double td = twice(1.25 * vsink);
	printf("twice = %d %.2f\n", ti, td);

	int oi = 0;
	double od = 0;
	for (int i = 0; i < 4; i++)
		oi += over(i + vsink);
	for (int i = 0; i < 5; i++)
		od += over(i * 1.0 * vsink);
	printf("over = %d %.2f\n", oi, od);
	return 0;
}
