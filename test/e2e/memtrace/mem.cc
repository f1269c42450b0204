// SPDX-License-Identifier: BSD-3-Clause
// Known C++ allocations: new[] twice, an over-aligned object, one object kept to the end.
#include <cstdio>
#include <malloc.h>
#include <new>
#include <unistd.h>

// What the program itself counts, as vt should: usable sizes, every block returned.
static long now, high, allocs;

template <typename T> static T *got(T *p)
{
	now += (long)malloc_usable_size(p);
	allocs++;
	if (now > high)
		high = now;
	return p;
}

static void gone(void *p)
{
	now -= (long)malloc_usable_size(p);
}

struct alignas(64) Line {
	char bytes[200];
};

struct Point {
	double x, y, z;
};

int main()
{
	char *text = got(new char[1000]);
	int *numbers = got(new int[300]);
	Line *line = got(new Line);
	Point *point = got(new Point());
	text[0] = 1;
	numbers[0] = 2;
	line->bytes[0] = 3;
	gone(text);
	delete[] text;
	gone(numbers);
	delete[] numbers;
	gone(line);
	delete line;
	char line_out[128];
	int n = snprintf(line_out, sizeof(line_out), "allocs %ld high_water %ld now %ld\n", allocs,
			 high, now);
	return write(1, line_out, (size_t)n) == n && point->x == 0 ? 0 : 1;
}
