/* SPDX-License-Identifier: BSD-3-Clause */
/* What the generated Fortran wrappers need besides the C hooks. */
/*
 * What the generated Fortran wrappers (gen-fortran.py) need besides the C hooks: Fortran
 * statuses, sentinels and handles seen from C, and MPI's own Fortran entry points.
 */
#ifndef VT_MPI_FORTRAN_H
#define VT_MPI_FORTRAN_H

#include "vt_mpi_hooks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The binding a wrapper serves: mpif.h and "use mpi" (VTF_FH), or "use mpi_f08". */
enum { VTF_FH = 0, VTF_F08 = 1 };

/* Room for one Fortran status of either binding, in MPI_Fint words. */
#define VTF_STATUS_MAX 16

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

/*
 * Open MPI's f08 TYPE(MPI_Status) has the layout of the mpif.h INTEGER status (its f08
 * wrappers hand it to the mpif.h code unchanged); MPICH's f08 status is MPI_F08_status.
 */
static inline size_t vtf_status_words(int binding)
{
#ifdef MPICH_VERSION
	if (binding == VTF_F08)
		return sizeof(MPI_F08_status) / sizeof(MPI_Fint);
#endif
	(void)binding;
	return sizeof(MPI_Status) / sizeof(MPI_Fint);
}

/* MPI_STATUS(ES)_IGNORE as the caller's binding passes it. */
static inline int vtf_status_ignored(int binding, const void *st)
{
#ifdef MPICH_VERSION
	if (binding == VTF_F08)
		return st == (const void *)MPI_F08_STATUS_IGNORE ||
		       st == (const void *)MPI_F08_STATUSES_IGNORE;
#endif
	(void)binding;
	return st == (const void *)MPI_F_STATUS_IGNORE || st == (const void *)MPI_F_STATUSES_IGNORE;
}

/* The i-th status of a Fortran status array as a C status. */
static inline void vtf_status_f2c(int binding, const void *st, size_t i, MPI_Status *c)
{
	const MPI_Fint *f = (const MPI_Fint *)st + i * vtf_status_words(binding);
#ifdef MPICH_VERSION
	if (binding == VTF_F08) {
		/* Field by field: MPI_Status_f082c lives in libmpichfort, which vt does not link.
		 */
		const MPI_F08_status *s = (const MPI_F08_status *)(const void *)f;
		c->count_lo = s->count_lo;
		c->count_hi_and_cancelled = s->count_hi_and_cancelled;
		c->MPI_SOURCE = s->MPI_SOURCE;
		c->MPI_TAG = s->MPI_TAG;
		c->MPI_ERROR = s->MPI_ERROR;
		return;
	}
#endif
	PMPI_Status_f2c(f, c);
}

/* Where statuses go when the caller ignores them but recording needs them (NULL: no
 * memory; the wrapper then passes the caller's and records no message). */
struct vtf_statuses {
	MPI_Fint small[4 * VTF_STATUS_MAX];
	void *st;
};

static inline void *vtf_statuses_begin(struct vtf_statuses *s, int binding, void *caller, int n)
{
	s->st = caller;
	if (!vtf_status_ignored(binding, caller))
		return caller;
	size_t words = (size_t)(n > 0 ? n : 1) * vtf_status_words(binding);
	s->st = words <= sizeof(s->small) / sizeof(s->small[0]) ? s->small
								: malloc(words * sizeof(MPI_Fint));
	return s->st;
}

static inline void vtf_statuses_end(struct vtf_statuses *s, void *caller)
{
	if (s->st && s->st != s->small && s->st != caller)
		free(s->st);
}

/*
 * Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are common blocks, one address per process
 * (the first definition wins, as for every default-visibility symbol); weak, so that nothing
 * else of Open MPI's Fortran support is needed. MPICH's buffers reach vt through its C entry
 * points, which see the C sentinels.
 */
#ifdef OPEN_MPI
extern char mpi_fortran_in_place_[] __attribute__((weak));
extern char mpi_fortran_bottom_[] __attribute__((weak));
#endif

static inline void *vtf_buf(void *p)
{
#ifdef OPEN_MPI
	if (p && p == (void *)mpi_fortran_in_place_)
		return MPI_IN_PLACE;
	if (p && p == (void *)mpi_fortran_bottom_)
		return MPI_BOTTOM;
#endif
	return p;
}

/* The bits of a Fortran request's C handle, as vt_mpi_req.c keys requests. */
static inline uint64_t vtf_req_bits(MPI_Fint f)
{
	MPI_Request r = MPI_Request_f2c(f);
	uint64_t h = 0;
	memcpy(&h, &r, sizeof(r) < sizeof(h) ? sizeof(r) : sizeof(h));
	return h;
}

/* Copies of the C handles of n Fortran requests before a completion call. */
struct vtf_handles {
	uint64_t small[16];
	uint64_t *h;
};

static inline int vtf_handles_begin(struct vtf_handles *c, int n, const void *reqs)
{
	c->h = n <= 16 ? c->small : malloc((size_t)n * sizeof(*c->h));
	if (!c->h)
		return -1;
	for (int i = 0; i < n; i++)
		c->h[i] = vtf_req_bits(((const MPI_Fint *)reqs)[i]);
	return 0;
}

static inline void vtf_handles_end(struct vtf_handles *c)
{
	if (c->h != c->small)
		free(c->h);
}

/* Arrays of Fortran handles as C arrays (MPI_Startall, MPI_Alltoallw); NULL: no memory. */
static inline MPI_Request *vtf_requests(int n, const void *f)
{
	MPI_Request *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(*c));
	for (int i = 0; c && i < n; i++)
		c[i] = MPI_Request_f2c(((const MPI_Fint *)f)[i]);
	return c;
}

static inline MPI_Datatype *vtf_types(int n, const void *f)
{
	MPI_Datatype *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(*c));
	for (int i = 0; c && i < n; i++)
		c[i] = MPI_Type_f2c(((const MPI_Fint *)f)[i]);
	return c;
}

/*
 * MPI's own Fortran entry point `name`: the next definition after vt's, else the one in
 * `soname`, loaded now (a linker with --as-needed drops MPI's Fortran library from a
 * program whose MPI calls vt all defines). Without it the call cannot be made at all, so vt
 * says why and stops the process.
 */
static inline void *vtf_next(const char *name, const char *soname)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		void *lib = dlopen(soname, RTLD_LAZY | RTLD_GLOBAL);
		p = lib ? dlsym(lib, name) : NULL;
	}
	if (!p) {
		char msg[256];
		int n = snprintf(msg, sizeof(msg), "vt[%d]: error: %s: not found in %s; aborting\n",
				 (int)getpid(), name, soname);
		ssize_t w = write(2, msg, n > 0 && n < (int)sizeof(msg) ? (size_t)n : 0);
		(void)w;
		abort();
	}
	return p;
}

#endif
