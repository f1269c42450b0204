/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mini-app pattern of bench/run-score.py: tiny functions called tens of millions of
 * times (as LULESH's accessors are) inside real work. ARG scales the calls (default 1).
 */
#include <stdio.h>
#include <stdlib.h>

static double grid[1 << 16];

__attribute__((noinline)) double get(long i)
{
	return grid[i & ((1 << 16) - 1)];
}

__attribute__((noinline)) void put(long i, double v)
{
	grid[i & ((1 << 16) - 1)] = v;
}

/* Real work per step: a sweep over the grid through the accessors, plus arithmetic. */
__attribute__((noinline)) double sweep(int step)
{
	double s = 0;
	for (long i = 0; i < (1 << 16); i++) {
		double v = get(i) * 0.5 + get(i + 1) * 0.25 + step;
		for (int k = 0; k < 20; k++)
			v = v * 0.999 + 0.001 * k;
		put(i, v);
		s += v;
	}
	return s;
}

int main(int argc, char **argv)
{
	int steps = 100 * (argc > 1 ? atoi(argv[1]) : 1);
	double s = 0;
	for (int i = 0; i < steps; i++)
		s += sweep(i);
	printf("%.6e\n", s);
	return 0;
}
