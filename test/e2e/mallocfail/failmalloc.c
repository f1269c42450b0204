/* SPDX-License-Identifier: BSD-3-Clause */
/* A failing allocator for LD_PRELOAD: malloc's family fails from call FAILMALLOC_AT on. */
/*
 * FAILMALLOC_AT=N: the N-th call (counting from 0) of malloc, calloc, realloc,
 * posix_memalign, aligned_alloc or memalign and every later one fails with ENOMEM; a
 * process made by fork or clone goes on counting from its parent's count. free is libc's.
 * FAILMALLOC_COUNT=FILE: nothing fails; FILE's first 8 bytes (a native long) hold the most
 * calls any process of the run made: FILE is mapped shared, so the figure is there without
 * an exit handler (which could run before libvt's), and a child's calls, which continue
 * its parent's count, are in it too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static struct {
	int ready;
	long fail_at; /* -1: never */
	long calls;
	long *most; /* shared between the processes of a run (counting mode) */
} fm = {.fail_at = -1};

static void setup(void)
{
	const char *at = getenv("FAILMALLOC_AT");
	fm.fail_at = at && *at ? atol(at) : -1;
	const char *count_file = getenv("FAILMALLOC_COUNT");
	int fd = count_file ? open(count_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (fd >= 0 && ftruncate(fd, sizeof(long)) == 0) {
		void *p = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		fm.most = p == MAP_FAILED ? NULL : p;
	}
	if (fd >= 0)
		close(fd);
	fm.ready = 1;
}

/* Whether this call fails. */
static int fails(void)
{
	if (!fm.ready)
		setup();
	long n = __atomic_fetch_add(&fm.calls, 1, __ATOMIC_RELAXED);
	if (fm.most) {
		long m = __atomic_load_n(fm.most, __ATOMIC_RELAXED);
		while (n + 1 > m && !__atomic_compare_exchange_n(
					fm.most, &m, n + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	if (fm.fail_at >= 0 && n >= fm.fail_at) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	return fails() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	return fails() ? NULL : __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
	return fails() ? NULL : __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return fails() ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (fails())
		return ENOMEM;
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
