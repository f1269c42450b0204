/* SPDX-License-Identifier: BSD-3-Clause */
/* vt's own memory mappings, by system call: never seen by the program's interposed mmap. */
#ifndef VT_SYS_H
#define VT_SYS_H

#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * libvt defines mmap and munmap for the program (I/O of mapped files, the memory counters
 * of anonymous mappings): a call of them inside libvt would come back to those wrappers and
 * be counted as the program's. vt's own buffers and tables are mapped with these instead.
 * Same results as mmap and munmap (MAP_FAILED or -1 with errno).
 */
static inline void *vt_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static inline int vt_sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

#endif
