/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugins_config program: five steps, each writing 10 * its number to the file named by
 * argv[1] before it runs, and touching 64 fresh pages of a mapping of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGES 64

__attribute__((noinline)) static void step(int i)
{
	/* A mapping of its own: fresh pages, whatever malloc would reuse. */
	char *p =
	    mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		memset(p, i, PAGES * 4096);
		__asm__ volatile("" ::"r"(p) : "memory");
		munmap(p, PAGES * 4096);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 1; i <= 5; i++) {
		FILE *f = fopen(argv[1], "w");
		if (!f)
			return 1;
		fprintf(f, "%d\n", 10 * i);
		fclose(f);
		step(i);
	}
	printf("done\n");
	return 0;
}
