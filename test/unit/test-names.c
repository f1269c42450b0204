/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions by the content of their name (vt_region_of_string: perfstubs' string timers,
 * Fortran's names): the same text from any buffer, NUL-terminated or not, is one region,
 * the same as the user API's region of that name; different texts are different regions;
 * four threads looking up the same names at once agree on every id.
 */
#include "regions/vt_region.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NAMES	1000
#define THREADS 4

static uint32_t ids[THREADS][NAMES];

static void *look_up(void *arg)
{
	int k = (int)(intptr_t)arg;
	char buf[64];
	/* Each thread in another order, from a buffer of its own. */
	for (int j = 0; j < NAMES; j++) {
		/* 7919 is prime to NAMES: j -> i is a permutation; odd threads go backwards. */
		int i = ((k % 2 ? NAMES - 1 - j : j) * 7919 + k * 257) % NAMES;
		int n = snprintf(buf, sizeof(buf), "name %d", i);
		ids[k][i] = vt_region_of_string(buf, (size_t)n) & VT_REGION_ID_MASK;
	}
	return NULL;
}

int main(void)
{
	char text[] = "solve_step_extra"; /* "solve" as its first 5 bytes, not NUL-terminated */
	uint32_t a = vt_region_of_string(text, 5) & VT_REGION_ID_MASK;
	uint32_t b = vt_region_of_string("solve", 5) & VT_REGION_ID_MASK;
	char copy[] = "solve";
	uint32_t c = vt_region_of_string(copy, strlen(copy)) & VT_REGION_ID_MASK;
	CHECK(a == b && b == c);
	CHECK(strcmp(vt_region_at(a)->name, "solve") == 0);
	/* The user API's region of the same name (vt_region_of_name keys by address). */
	CHECK((vt_region_of_name("solve") & VT_REGION_ID_MASK) == a);
	uint32_t d = vt_region_of_string(text, 10) & VT_REGION_ID_MASK;
	CHECK(d != a);
	CHECK(strcmp(vt_region_at(d)->name, "solve_step") == 0);

	pthread_t th[THREADS];
	for (int k = 0; k < THREADS; k++)
		pthread_create(&th[k], NULL, look_up, (void *)(intptr_t)k);
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	int agree = 0, named = 0, distinct = 1;
	for (int i = 0; i < NAMES; i++) {
		int same = 1;
		for (int k = 1; k < THREADS; k++)
			same &= ids[k][i] == ids[0][i];
		agree += same;
		char want[64];
		snprintf(want, sizeof(want), "name %d", i);
		named += vt_region_at(ids[0][i])->name &&
			 strcmp(vt_region_at(ids[0][i])->name, want) == 0;
		for (int j = 0; j < i; j++)
			distinct &= ids[0][j] != ids[0][i];
	}
	CHECK(agree == NAMES);
	CHECK(named == NAMES);
	CHECK(distinct);
	return unit_done();
}
