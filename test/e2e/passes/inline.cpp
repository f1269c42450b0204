// SPDX-License-Identifier: BSD-3-Clause
// e2e "passes": in-class methods, one the optimiser inlines, one noinline (issue 30).
#include <cstdio>

static volatile int vs;

class Counter
{
      public:
	// Declared inline (in its class), inlined at -O2.
	int get() const
	{
		return n + vs;
	}
	// Declared inline (in its class), never inlined: a call at every -O level.
	__attribute__((noinline)) void bump(int by)
	{
		n += by + vs;
	}

      private:
	int n = 0;
};

int main()
{
	Counter c;
	long s = 0;

	for (int i = 0; i < 7; i++)
		c.bump(i);
	for (int i = 0; i < 5; i++)
		s += c.get();
	std::printf("s = %ld\n", s);
	return 0;
}
