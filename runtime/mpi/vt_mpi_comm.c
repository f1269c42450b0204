/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI adapter's communicators (handle to local id, keys, names) and datatype sizes. */
#include "vt_mpi_adapter.h"
#include "vt_mpi_maps.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/*
 * map: MPI_Comm handle -> local id + 1 (a map value is never NULL). Handles are pointers
 * (Open MPI) or ints (MPICH): keyed by their bits. Written under the lock, by the thread
 * that creates or frees a communicator. counter: the creator's part of new keys (of
 * communicators, windows and files); low values are reserved.
 */
static struct {
	struct vt_u64map map;
	uint32_t counter;
	pthread_mutex_t lock;
} comms = {.counter = 16, .lock = PTHREAD_MUTEX_INITIALIZER};
/* Each thread's last look-up and when the map changed last: read inline by the hooks on
 * every call (vtw_comm, vt_mpi_hooks.h), so not in the struct above. */
uint32_t vtw_comm_generation;
__thread struct vtw_comm_last vtw_comm_last = {0, 0, UINT32_MAX};

/* The local id of handle h, or UINT32_MAX; caller holds comms.lock. */
static uint32_t comm_find(uint64_t h)
{
	uintptr_t v = (uintptr_t)vt_u64map_get(&comms.map, h);
	return v ? (uint32_t)(v - 1) : UINT32_MAX;
}

/* "FN of NAME" (sep "of") or "FN on NAME": what a communicator or window made by function fn
 * over communicator id is called until the program names it; "?" where id has no name. */
void vtw_comm_derived_name(char *buf, size_t len, const char *fn, const char *sep, uint32_t id)
{
	char parent[VT_COMM_NAME_MAX];
	if (!vt_mpi_comm_name_get(id, parent, sizeof(parent)))
		strcpy(parent, "?");
	snprintf(buf, len, "%s %s %s", fn, sep, parent);
}

uint64_t vtw_key_new(enum vtw_key_space space)
{
	return ((uint64_t)vtw_world_rank() << 32) | space |
	       __atomic_fetch_add(&comms.counter, 1, __ATOMIC_RELAXED);
}

void vtw_comm_add(MPI_Comm c, uint64_t key, const char *name)
{
	int rank = 0, size = 1;
	PMPI_Comm_rank(c, &rank);
	PMPI_Comm_size(c, &size);
	uint32_t id = vt_mpi_comm_define(key, (uint32_t)rank, (uint32_t)size);
	if (name)
		vt_mpi_comm_name(id, name);
	pthread_mutex_lock(&comms.lock);
	/* Out of memory, the handle stays unknown and is recorded as MPI_COMM_WORLD (id 0). */
	vt_u64map_set(&comms.map, VTW_BITS(c), (void *)((uintptr_t)id + 1));
	__atomic_add_fetch(&vtw_comm_generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comms.lock);
}

/* Not the thread's last look-up (vtw_comm, vt_mpi_hooks.h): the map, under its lock. */
uint32_t vtw_comm_lookup(MPI_Comm c)
{
	uint64_t h = VTW_BITS(c);
	pthread_mutex_lock(&comms.lock);
	uint32_t id = comm_find(h);
	uint32_t gen = vtw_comm_generation;
	pthread_mutex_unlock(&comms.lock);
	if (id != UINT32_MAX) {
		vtw_comm_last.handle = h;
		vtw_comm_last.id = id;
		vtw_comm_last.generation = gen;
		return id;
	}
	/* Made by a function vt does not wrap: known to this rank only (not unified). */
	vtw_comm_add(c, vtw_key_new(VTW_KEY_LOCAL), NULL);
	pthread_mutex_lock(&comms.lock);
	id = comm_find(VTW_BITS(c));
	pthread_mutex_unlock(&comms.lock);
	return id == UINT32_MAX ? 0 : id;
}

int vtw_comm_rank(MPI_Comm c)
{
	int r = 0;
	PMPI_Comm_rank(c, &r);
	return r;
}

int vtw_comm_size(MPI_Comm c)
{
	int n = 1;
	PMPI_Comm_size(c, &n);
	return n;
}

/* Collective over the new communicator: its rank 0 makes the key, the others learn it, so
 * every member names the same communicator the same way. */
void vtw_comm_created(MPI_Comm c, const char *fn, MPI_Comm parent)
{
	if (c == MPI_COMM_NULL)
		return;
	int inter = 0;
	PMPI_Comm_test_inter(c, &inter);
	/* An intercommunicator: defined per rank, not unified. */
	uint64_t key = vtw_key_new(inter ? VTW_KEY_LOCAL : VTW_KEY_COMM);
	if (!inter)
		PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, c);
	/* "MPI_Comm_split of MPI_COMM_WORLD": the same on every member, as long as the
	 * program named the parent alike on all of them. */
	char name[VT_COMM_NAME_MAX];
	vtw_comm_derived_name(name, sizeof(name), fn, "of", vtw_comm(parent));
	vtw_comm_add(c, key, name);
}

void vtw_comm_named(MPI_Comm c, const char *name)
{
	if (c != MPI_COMM_NULL && name)
		vt_mpi_comm_name(vtw_comm(c), name);
}

void vtw_comm_freed(MPI_Comm c)
{
	pthread_mutex_lock(&comms.lock);
	vt_u64map_del(&comms.map, VTW_BITS(c));
	__atomic_add_fetch(&vtw_comm_generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&comms.lock);
}

/*
 * Sizes of datatypes: most calls use a predefined type, the same as the call before, so
 * each thread keeps the size of the last predefined one it measured (PMPI_Type_size: ~6 ns
 * on Open MPI 4.1 and MPICH 4.0, a compare here). Only predefined types: they are never
 * freed, so no handle comes back for another type with another size.
 */
static const MPI_Datatype predefined_types[] = {
    MPI_CHAR,
    MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR,
    MPI_BYTE,
    MPI_SHORT,
    MPI_UNSIGNED_SHORT,
    MPI_INT,
    MPI_UNSIGNED,
    MPI_LONG,
    MPI_UNSIGNED_LONG,
    MPI_LONG_LONG,
    MPI_UNSIGNED_LONG_LONG,
    MPI_FLOAT,
    MPI_DOUBLE,
    MPI_LONG_DOUBLE,
    MPI_C_BOOL,
    MPI_INT8_T,
    MPI_INT16_T,
    MPI_INT32_T,
    MPI_INT64_T,
    MPI_UINT8_T,
    MPI_UINT16_T,
    MPI_UINT32_T,
    MPI_UINT64_T,
    MPI_C_DOUBLE_COMPLEX,
    MPI_DOUBLE_INT,
    MPI_2INT,
    MPI_FLOAT_INT,
    MPI_LONG_INT,
    MPI_AINT,
    MPI_OFFSET,
    MPI_COUNT,
    MPI_INTEGER,
    MPI_REAL,
    MPI_DOUBLE_PRECISION,
    MPI_COMPLEX,
    MPI_DOUBLE_COMPLEX,
    MPI_LOGICAL,
    MPI_CHARACTER,
};
__thread struct vtw_type_last vtw_type_last;

uint64_t vtw_bytes_lookup(MPI_Count count, MPI_Datatype type)
{
	if (count <= 0 || type == MPI_DATATYPE_NULL)
		return 0;
	uint64_t h = VTW_BITS(type);
	int size = 0;
	if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
		return 0;
	for (size_t i = 0; i < sizeof(predefined_types) / sizeof(*predefined_types); i++)
		if (VTW_BITS(predefined_types[i]) == h) {
			vtw_type_last.handle = h;
			vtw_type_last.size = (uint64_t)size;
			vtw_type_last.valid = true;
			break;
		}
	return (uint64_t)count * (uint64_t)size;
}

uint64_t vtw_sum_bytes(int n, const int counts[], MPI_Datatype type)
{
	uint64_t total = 0;
	for (int i = 0; counts && i < n; i++)
		total += (uint64_t)(counts[i] > 0 ? counts[i] : 0);
	return total ? vtw_bytes(1, type) * total : 0;
}
