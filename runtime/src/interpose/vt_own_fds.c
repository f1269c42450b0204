/* SPDX-License-Identifier: BSD-3-Clause */
/* closefrom and close_range, which spare vt's own descriptors (the archive's open files). */
#include "interpose/vt_own_fds.h"
#include "interpose/vt_interpose.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

/* The program's close, dup2 and dup3 come here, also before AddressSanitizer's runtime has
 * set up its shadow memory when libvt is loaded ahead of it (a library's constructor that
 * closes a descriptor, as UCX's under MPICH): nothing here is instrumented by it. */
#define VT_NOSAN  __attribute__((no_sanitize("address"), no_instrument_function))
#define VT_EXPORT __attribute__((visibility("default"))) VT_NOSAN

/* Room for the event files of this many threads; beyond it a closefrom closes them, and
 * the archive's check at the next flush stops recording with its line (archive/vt_fds.c). */
#define OWN_MAX 1024

typedef int (*close_range_fn)(unsigned int, unsigned int, int);
typedef void (*closefrom_fn)(int);

static struct {
	int lock; /* a spin lock: taken for a few instructions, also by vt's own threads */
	int n;
	struct own {
		int fd;
		dev_t dev;
		ino_t ino;
	} fds[OWN_MAX];
	close_range_fn close_range;
	closefrom_fn closefrom;
	/* Writes through vt's descriptors under way, and takes of one waiting for them. */
	int writing, taking;
} own;

/* The calling thread's nesting of write_begin, and whether it left the process's descriptor
 * table for one of its own (vt_own_fds_leave_table). */
static __thread struct {
	int write_depth;
	bool own_table;
} tl;

VT_NOSAN static void own_lock(void)
{
	while (__atomic_exchange_n(&own.lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

VT_NOSAN static void own_unlock(void)
{
	__atomic_store_n(&own.lock, 0, __ATOMIC_RELEASE);
}

VT_NOSAN void vt_own_fd_add(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	own_lock();
	int i = 0;
	while (i < own.n && own.fds[i].fd != fd)
		i++;
	if (i < OWN_MAX) {
		own.fds[i] = (struct own){.fd = fd, .dev = st.st_dev, .ino = st.st_ino};
		if (i == own.n)
			own.n++;
	}
	own_unlock();
}

VT_NOSAN void vt_own_fd_remove(int fd)
{
	own_lock();
	for (int i = 0; i < own.n; i++)
		if (own.fds[i].fd == fd)
			own.fds[i] = own.fds[--own.n];
	own_unlock();
}

/* Whether fd is one of vt's descriptors, still referring to its file. */
VT_NOSAN static bool is_own(int fd)
{
	if (fd < 0 || !__atomic_load_n(&own.n, __ATOMIC_ACQUIRE))
		return false;
	bool found = false;
	struct own o;
	own_lock();
	for (int i = 0; i < own.n && !found; i++)
		if (own.fds[i].fd == fd) {
			o = own.fds[i];
			found = true;
		}
	own_unlock();
	struct stat st;
	return found && fstat(fd, &st) == 0 && st.st_dev == o.dev && st.st_ino == o.ino;
}

VT_NOSAN void vt_own_fds_write_begin(void)
{
	if (tl.write_depth++ > 0)
		return;
	for (;;) {
		while (__atomic_load_n(&own.taking, __ATOMIC_ACQUIRE))
			sched_yield();
		__atomic_add_fetch(&own.writing, 1, __ATOMIC_ACQ_REL);
		if (!__atomic_load_n(&own.taking, __ATOMIC_ACQUIRE))
			return;
		__atomic_sub_fetch(&own.writing, 1, __ATOMIC_ACQ_REL);
	}
}

VT_NOSAN void vt_own_fds_write_end(void)
{
	if (tl.write_depth > 0 && --tl.write_depth == 0)
		__atomic_sub_fetch(&own.writing, 1, __ATOMIC_ACQ_REL);
}

VT_NOSAN bool vt_own_fd_take_begin(int fd)
{
	if (!is_own(fd))
		return false;
	int saved = errno;
	__atomic_add_fetch(&own.taking, 1, __ATOMIC_ACQ_REL);
	/* A thread of vt's that writes (not this one: vt's own calls come here only outside
	 * its writes) ends that write in a while. */
	while (tl.write_depth == 0 && __atomic_load_n(&own.writing, __ATOMIC_ACQUIRE))
		sched_yield();
	errno = saved;
	return true;
}

VT_NOSAN void vt_own_fd_take_end(void)
{
	__atomic_sub_fetch(&own.taking, 1, __ATOMIC_ACQ_REL);
}

VT_NOSAN void vt_own_fds_forked(void)
{
	own.lock = 0;
	own.n = 0;
	own.writing = own.taking = 0;
	tl.write_depth = 0;
}

/* vt's descriptors in [first, last] that still refer to their files, ascending; their
 * number (at most max). */
VT_NOSAN static int spared(unsigned int first, unsigned int last, int *out, int max)
{
	struct own copy[OWN_MAX];
	own_lock();
	int n = own.n;
	for (int i = 0; i < n; i++)
		copy[i] = own.fds[i];
	own_unlock();
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		struct stat st;
		unsigned int fd = (unsigned int)copy[i].fd;
		if (fd < first || fd > last || fstat(copy[i].fd, &st) != 0 ||
		    st.st_dev != copy[i].dev || st.st_ino != copy[i].ino)
			continue;
		int j = k++;
		for (; j > 0 && (unsigned int)out[j - 1] > fd; j--)
			out[j] = out[j - 1];
		out[j] = copy[i].fd;
	}
	return k;
}

VT_NOSAN static close_range_fn real_close_range(void)
{
	close_range_fn f = __atomic_load_n(&own.close_range, __ATOMIC_ACQUIRE);
	if (!f) {
		*(void **)&f = vt_interpose_next("close_range");
		__atomic_store_n(&own.close_range, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* Closes [first, last] but vt's descriptors: the ranges between them, in order. */
VT_NOSAN static int close_around(unsigned int first, unsigned int last)
{
	int keep[OWN_MAX];
	int n = spared(first, last, keep, OWN_MAX);
	close_range_fn f = real_close_range();
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	unsigned int from = first;
	for (int i = 0; i < n; i++) {
		unsigned int k = (unsigned int)keep[i]; /* an int: k + 1 does not wrap */
		if (k > from && f(from, k - 1, 0) != 0)
			return -1;
		from = k + 1;
	}
	return from <= last ? f(from, last, 0) : 0;
}

VT_NOSAN bool vt_own_fds_leave_table(void)
{
	close_range_fn f = real_close_range();
	/* Without close_range (kernels before 5.9) the copy could not be emptied. */
	if (!f || f(~0U, ~0U, 0) != 0 || unshare(CLONE_FILES) != 0)
		return false;
	f(0, 1, 0);
	close_around(3, ~0U);
	tl.own_table = true;
	return true;
}

VT_NOSAN bool vt_own_fds_in_own_table(void)
{
	return tl.own_table;
}

VT_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	close_range_fn f = real_close_range();
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	/* Close-on-exec for the range: vt's descriptors have it already. */
	if ((flags & CLOSE_RANGE_CLOEXEC) || first > last)
		return f(first, last, flags);
	if (flags & ~CLOSE_RANGE_UNSHARE) {
		errno = EINVAL;
		return -1;
	}
	if ((flags & CLOSE_RANGE_UNSHARE) && unshare(CLONE_FILES) != 0)
		return -1;
	return close_around(first, last);
}

VT_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	int saved = errno;
	if (close_around((unsigned int)lowfd, ~0U) != 0 && errno == ENOSYS) {
		/* No close_range (an old kernel): libc's closefrom has its own ways; vt's
		 * descriptors go with the rest, and its flushes say so. */
		closefrom_fn f = __atomic_load_n(&own.closefrom, __ATOMIC_ACQUIRE);
		if (!f) {
			*(void **)&f = vt_interpose_next("closefrom");
			__atomic_store_n(&own.closefrom, f, __ATOMIC_RELEASE);
		}
		if (f)
			f(lowfd);
	}
	errno = saved;
}
