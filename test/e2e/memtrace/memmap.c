/* SPDX-License-Identifier: BSD-3-Clause */
/* Anonymous mappings made, resized and unmapped whole and in part, and a file's, which is not
 * memory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	char *a = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(argv[0], O_RDONLY);
	char *f = fd >= 0 ? mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (a == MAP_FAILED || b == MAP_FAILED || f == MAP_FAILED)
		return 1;
	a[0] = b[0] = 1;
	/* high water: 8 pages; then 5; then 3 (two pages out of b's middle: b's first page and
	 * its last two stay) */
	int rc = munmap(a, 3 * page) | munmap(b + page, 2 * page) | munmap(f, page);
	/* b's last two pages grow to 9 (high water 10 pages), then shrink to 4: 5 pages left */
	char *c = mremap(b + 3 * page, 2 * page, 9 * page, MREMAP_MAYMOVE);
	if (c == MAP_FAILED)
		return 1;
	c[8 * page] = 1;
	if (mremap(c, 9 * page, 4 * page, 0) != c)
		return 1;
	/* A file's mapping resized: still no memory */
	f = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f == MAP_FAILED || (f = mremap(f, page, page, MREMAP_MAYMOVE)) == MAP_FAILED)
		return 1;
	rc |= munmap(f, page);
	close(fd);
	char line[128];
	int n = snprintf(line, sizeof(line), "maps 4 high_water %ld now %ld rc %d\n", 10 * page,
			 5 * page, rc);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
