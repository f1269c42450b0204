/* SPDX-License-Identifier: BSD-3-Clause */
/* This process's MPI communicators, windows, groups, I/O handles, names and clock offsets. */
#ifndef VT_MPI_DEFS_H
#define VT_MPI_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The one owner of what MPI mode defines: the adapter (through mpi/vt_mpi_iface.h) writes
 * into it while the program runs, the archive reads it at the end (vt_otf2_close.c), when
 * nothing defines any more. Local ids are the order of definition. The constants below are
 * shared with the adapter, which sees them through vt_mpi_iface.h.
 */

/* The longest name kept, terminator included (MPI_MAX_OBJECT_NAME is 64 in Open MPI, 128
 * in MPICH): longer names are cut. */
#define VT_COMM_NAME_MAX 128

/* Communicator keys: the same on every member. 1 is MPI_COMM_WORLD, 2 MPI_COMM_SELF, others
 * (creator's world rank << 32 | counter). */
enum { VT_MPI_KEY_WORLD = 1, VT_MPI_KEY_SELF = 2 };

struct vt_mpi_defs_comm {
	uint64_t key;
	uint32_t my_rank, size;
	char *name; /* NULL: none */
};

struct vt_mpi_defs_win {
	uint64_t key;
	uint32_t comm; /* local id */
	char *name;    /* NULL: none */
};

/* The I/O paradigms of handles (an IoParadigm definition each, by this number). */
enum vt_io_paradigm {
	VT_IO_PARADIGM_MPI = 0,
	VT_IO_PARADIGM_POSIX = 1,
	VT_IO_PARADIGM_ISOC = 2,
	VT_IO_PARADIGM_MAX
};

struct vt_mpi_defs_io {
	uint64_t key;	   /* MPI-IO: the same on every rank that opened it; POSIX: 0 (own) */
	uint32_t comm;	   /* local id; UINT32_MAX: none (a POSIX handle is the process's) */
	uint32_t paradigm; /* enum vt_io_paradigm */
	char *file;
	uint32_t next_free; /* a process's own handle, destroyed: the next such of its file */
	uint32_t parent;    /* local id of the handle it works on (ISO C: the POSIX one), or
			       UINT32_MAX */
};

/* At local time t: global = local + offset (ticks), uncertain by stddev. */
struct vt_mpi_defs_offset {
	uint64_t t;
	int64_t offset;
	double stddev;
};

/* A communicator's local id; world and self are defined once however often asked. Out of
 * memory: 0 (recorded as MPI_COMM_WORLD, better than nothing). */
uint32_t vt_mpi_defs_comm(uint64_t key, uint32_t my_rank, uint32_t size);
/* Names communicator id (a copy of name, cut at VT_COMM_NAME_MAX - 1 bytes); the last wins. */
void vt_mpi_defs_comm_name(uint32_t id, const char *name);
/* Copies communicator id's name into buf (len bytes, cut); false (buf "") when it has none. */
bool vt_mpi_defs_comm_name_get(uint32_t id, char *buf, size_t len);
/* RMA windows (key as a communicator's, comm its local id), groups of processes (world
 * ranks "0,2,5"; the same members, the same id) and MPI-IO handles (file: the name the
 * program opened): their local ids, UINT32_MAX when memory ran out. */
uint32_t vt_mpi_defs_win(uint64_t key, uint32_t comm, const char *name);
void vt_mpi_defs_win_name(uint32_t id, const char *name);
uint32_t vt_mpi_defs_group(const char *members);
uint32_t vt_mpi_defs_io(uint64_t key, uint32_t comm, const char *file);
/* A handle of this process alone (POSIX I/O, io/): no key, no communicator; one of the same
 * paradigm and file that was given back is taken again (a program that opens a file a
 * million times has as many handles of it as it had open at once). */
uint32_t vt_mpi_defs_io_local(uint32_t paradigm, const char *file);
/* A handle of this process on another (parent: an ISO C stream on its POSIX descriptor's
 * handle), the same way; one given back is taken again only if it had the same parent. */
uint32_t vt_mpi_defs_io_child(uint32_t paradigm, const char *file, uint32_t parent);
/* A handle of this process of that paradigm on file, as a name of the file: its local id
 * (mapped to the global file by the unification's IO_FILE table), UINT32_MAX when the
 * process never had one. */
uint32_t vt_mpi_defs_io_file(uint32_t paradigm, const char *file);
/* A handle of this process on handle id's file and paradigm (POSIX dup), the same way. */
uint32_t vt_mpi_defs_io_dup(uint32_t id);
/* Handle id (from vt_mpi_defs_io_local or _dup) was destroyed: it may be taken again. */
void vt_mpi_defs_io_free(uint32_t id);
/* A clock offset measurement (at MPI_Init and at MPI_Finalize; the first four are kept). */
void vt_mpi_defs_clock_offset(uint64_t t, int64_t offset, double stddev);
/* Location loc (its index) names communicator comm in an MPI event: for the unification's
 * communicator lanes of threads. The master thread (index 0) is not recorded: its
 * communicators are the process's own. */
void vt_mpi_defs_comm_used(uint32_t loc, uint32_t comm);

/* At the end: the tables as defined (index = local id). */
const struct vt_mpi_defs_comm *vt_mpi_defs_comms(uint32_t *n);
const struct vt_mpi_defs_win *vt_mpi_defs_wins(uint32_t *n);
char *const *vt_mpi_defs_groups(uint32_t *n);
const struct vt_mpi_defs_io *vt_mpi_defs_ios(uint32_t *n);
/* The clock offsets, an uncertain one settled to the most certain one's offset first. */
const struct vt_mpi_defs_offset *vt_mpi_defs_clock_offsets(int *n);
/* The communicators location loc used, one bit per local id, in *words 64-bit words. */
const uint64_t *vt_mpi_defs_comms_used(uint32_t loc, uint32_t *words);

#endif
