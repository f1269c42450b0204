/* SPDX-License-Identifier: BSD-3-Clause */
/* Anonymous mappings made and unmapped whole and in part, and a file's, which is not memory. */
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
	/* high water: 8 pages; then 5; then 3 (two pages out of b's middle) */
	int rc = munmap(a, 3 * page) | munmap(b + page, 2 * page) | munmap(f, page);
	close(fd);
	char line[128];
	int n = snprintf(line, sizeof(line), "maps 2 high_water %ld now %ld rc %d\n", 8 * page,
			 3 * page, rc);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
