/* SPDX-License-Identifier: BSD-3-Clause */
/* Known allocations (malloc, calloc, realloc growth, the aligned forms) and what they add up to. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the program itself counts, as vt should: usable sizes, every block returned. */
static long now, high, allocs;

static void *got(void *p, size_t old)
{
	if (!p)
		exit(1);
	now += (long)malloc_usable_size(p) - (long)old;
	allocs++;
	if (now > high)
		high = now;
	return p;
}

static void gone(void *p)
{
	now -= (long)malloc_usable_size(p);
	free(p);
}

int main(void)
{
	char *a = got(malloc(1000), 0);
	char *b = got(calloc(10, 100), 0);
	char *c = got(realloc(NULL, 24), 0);
	for (size_t n = 4000; n <= 400000; n *= 10) {
		size_t old = malloc_usable_size(c);
		c = got(realloc(c, n), old);
		memset(c, 1, n);
	}
	void *d;
	if (posix_memalign(&d, 64, 5000) != 0)
		return 1;
	got(d, 0);
	void *e = got(aligned_alloc(256, 1024), 0);
	void *f = got(memalign(128, 3000), 0);
	void *g = got(valloc(8192), 0);
	gone(b);
	gone(a);
	gone(c);
	char *h = got(malloc(50), 0);
	gone(d);
	gone(e);
	gone(f);
	gone(g);
	strcpy(h, "kept");
	/* With write, not stdio: stdio would allocate its buffer behind the program's back. */
	char line[128];
	int n =
	    snprintf(line, sizeof(line), "allocs %ld high_water %ld now %ld\n", allocs, high, now);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
