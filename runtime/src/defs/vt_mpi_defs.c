/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of MPI definitions (vt_mpi_defs.h): every table under one lock. */
#include "defs/vt_mpi_defs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The communicator bitmaps of a location hold ids below this (128 KiB at most). */
#define COMMS_USED_MAX (1u << 20)

/* A location's communicators, one bit per local id. */
struct used_row {
	uint64_t *bits;
	uint32_t words;
};

/* Every table grows by append, under lock: definers are the program's threads (communicator
 * and window creation, names), the encoders (communicators used) and MPI_Init/_Finalize
 * (clock offsets); the archive reads at the end. */
static struct {
	pthread_mutex_t lock;
	struct vt_mpi_defs_comm *comms;
	uint32_t n_comms, cap_comms;
	struct vt_mpi_defs_win *wins;
	uint32_t n_wins, cap_wins;
	char **groups;
	uint32_t n_groups, cap_groups;
	struct vt_mpi_defs_io *ios;
	uint32_t n_ios, cap_ios;
	/* The process's own handles by file: open addressing on the file's name, each slot a
	 * file's representative handle (its first; UINT32_MAX: empty) and the head of its
	 * handles given back and free now (linked by next_free). */
	struct free_slot {
		uint32_t rep, head;
	} * free_slots;
	uint32_t n_free_slots, cap_free_slots;
	struct vt_mpi_defs_offset offsets[4];
	int n_offsets;
	struct used_row *used; /* index = location index */
	uint32_t n_used;
} defs = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Appends one element of size to *arr (n, cap); NULL when memory ran out. */
static void *append(void *arr_p, uint32_t *n, uint32_t *cap, size_t size)
{
	void **arr = arr_p;
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 16;
		void *grown = realloc(*arr, c * size);
		if (!grown)
			return NULL;
		*arr = grown;
		*cap = c;
	}
	return (char *)*arr + (*n)++ * size;
}

uint32_t vt_mpi_defs_comm(uint64_t key, uint32_t my_rank, uint32_t size)
{
	pthread_mutex_lock(&defs.lock);
	uint32_t id = defs.n_comms;
	/* World and self are defined once, however often asked. */
	for (uint32_t i = 0; i < defs.n_comms && key <= VT_MPI_KEY_SELF; i++)
		if (defs.comms[i].key == key)
			id = i;
	if (id == defs.n_comms) {
		struct vt_mpi_defs_comm *c =
		    append(&defs.comms, &defs.n_comms, &defs.cap_comms, sizeof(*c));
		if (c)
			*c = (struct vt_mpi_defs_comm){key, my_rank, size, NULL};
		else
			id = 0; /* recorded as MPI_COMM_WORLD: better than nothing */
	}
	pthread_mutex_unlock(&defs.lock);
	return id;
}

/* Sets the name of entry id of a table under the lock (slot: where entry id keeps its name,
 * NULL for no such entry) to a copy of name cut at VT_COMM_NAME_MAX - 1 bytes. */
static void rename_entry(char **(*slot)(uint32_t id), uint32_t id, const char *name)
{
	char *copy = name ? strndup(name, VT_COMM_NAME_MAX - 1) : NULL;
	pthread_mutex_lock(&defs.lock);
	char **at = slot(id);
	if (at) {
		free(*at);
		*at = copy;
		copy = NULL;
	}
	pthread_mutex_unlock(&defs.lock);
	free(copy);
}

static char **comm_name_slot(uint32_t id)
{
	return id < defs.n_comms ? &defs.comms[id].name : NULL;
}

static char **win_name_slot(uint32_t id)
{
	return id < defs.n_wins ? &defs.wins[id].name : NULL;
}

void vt_mpi_defs_comm_name(uint32_t id, const char *name)
{
	rename_entry(comm_name_slot, id, name);
}

bool vt_mpi_defs_comm_name_get(uint32_t id, char *buf, size_t len)
{
	if (!len)
		return false;
	pthread_mutex_lock(&defs.lock);
	const char *name = id < defs.n_comms ? defs.comms[id].name : NULL;
	size_t n = name ? strnlen(name, len - 1) : 0;
	memcpy(buf, name ? name : "", n);
	buf[n] = 0;
	pthread_mutex_unlock(&defs.lock);
	return name != NULL;
}

uint32_t vt_mpi_defs_win(uint64_t key, uint32_t comm, const char *name)
{
	char *copy = name ? strndup(name, VT_COMM_NAME_MAX - 1) : NULL;
	pthread_mutex_lock(&defs.lock);
	uint32_t id = defs.n_wins;
	struct vt_mpi_defs_win *w = append(&defs.wins, &defs.n_wins, &defs.cap_wins, sizeof(*w));
	if (w)
		*w = (struct vt_mpi_defs_win){key, comm, copy};
	pthread_mutex_unlock(&defs.lock);
	if (!w)
		free(copy);
	return w ? id : UINT32_MAX;
}

void vt_mpi_defs_win_name(uint32_t id, const char *name)
{
	rename_entry(win_name_slot, id, name);
}

static uint32_t define_io(uint64_t key, uint32_t comm, uint32_t paradigm, const char *file)
{
	pthread_mutex_lock(&defs.lock);
	uint32_t id = defs.n_ios;
	char *copy = strdup(file ? file : "");
	struct vt_mpi_defs_io *h =
	    copy ? append(&defs.ios, &defs.n_ios, &defs.cap_ios, sizeof(*h)) : NULL;
	if (h)
		*h = (struct vt_mpi_defs_io){key, comm, paradigm, copy, UINT32_MAX, UINT32_MAX};
	else
		free(copy);
	pthread_mutex_unlock(&defs.lock);
	return h ? id : UINT32_MAX;
}

static uint64_t name_hash(uint32_t paradigm, const char *s)
{
	uint64_t h = 1469598103934665603ull ^ paradigm;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The free-list slot of file and paradigm, under the lock: its index, or the empty slot where
 * it would go (cap_free_slots is a power of two, at most half used; 0: no table). */
static uint32_t free_slot_locked(uint32_t paradigm, const char *file)
{
	uint32_t mask = defs.cap_free_slots - 1;
	for (uint32_t i = (uint32_t)name_hash(paradigm, file) & mask;; i = (i + 1) & mask) {
		uint32_t rep = defs.free_slots[i].rep;
		if (rep == UINT32_MAX ||
		    (defs.ios[rep].paradigm == paradigm && strcmp(defs.ios[rep].file, file) == 0))
			return i;
	}
}

/* Room for one more file in the free-list table, under the lock; false: out of memory. */
static bool free_slots_room_locked(void)
{
	if (2 * (defs.n_free_slots + 1) <= defs.cap_free_slots)
		return true;
	uint32_t cap = defs.cap_free_slots ? 2 * defs.cap_free_slots : 64;
	struct free_slot *old = defs.free_slots, *grown = malloc(cap * sizeof(*grown));
	if (!grown)
		return false;
	for (uint32_t i = 0; i < cap; i++)
		grown[i] = (struct free_slot){UINT32_MAX, UINT32_MAX};
	uint32_t old_cap = defs.cap_free_slots;
	defs.free_slots = grown;
	defs.cap_free_slots = cap;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].rep != UINT32_MAX) {
			const struct vt_mpi_defs_io *r = &defs.ios[old[i].rep];
			grown[free_slot_locked(r->paradigm, r->file)] = old[i];
		}
	free(old);
	return true;
}

/* A handle of file given back before, taken again; UINT32_MAX: none. */
static uint32_t take_free(uint32_t paradigm, const char *file)
{
	uint32_t id = UINT32_MAX;
	pthread_mutex_lock(&defs.lock);
	if (defs.cap_free_slots) {
		struct free_slot *s = &defs.free_slots[free_slot_locked(paradigm, file)];
		if (s->rep != UINT32_MAX && s->head != UINT32_MAX) {
			id = s->head;
			s->head = defs.ios[id].next_free;
			defs.ios[id].next_free = UINT32_MAX;
		}
	}
	pthread_mutex_unlock(&defs.lock);
	return id;
}

void vt_mpi_defs_io_free(uint32_t id)
{
	pthread_mutex_lock(&defs.lock);
	if (id < defs.n_ios && defs.ios[id].key == 0 && defs.ios[id].comm == UINT32_MAX &&
	    free_slots_room_locked()) {
		const struct vt_mpi_defs_io *h = &defs.ios[id];
		struct free_slot *s = &defs.free_slots[free_slot_locked(h->paradigm, h->file)];
		if (s->rep == UINT32_MAX) {
			*s = (struct free_slot){id, UINT32_MAX};
			defs.n_free_slots++;
		}
		if (s->head != id) {
			defs.ios[id].next_free = s->head;
			s->head = id;
		}
	}
	pthread_mutex_unlock(&defs.lock);
}

uint32_t vt_mpi_defs_io(uint64_t key, uint32_t comm, const char *file)
{
	return define_io(key, comm, VT_IO_PARADIGM_MPI, file);
}

/* A new handle of the process's own on file: its slot made, with it as the file's
 * representative if it is the first (out of memory: not known by vt_mpi_defs_io_file). */
static void known_file(uint32_t id)
{
	pthread_mutex_lock(&defs.lock);
	if (free_slots_room_locked()) {
		const struct vt_mpi_defs_io *h = &defs.ios[id];
		struct free_slot *s = &defs.free_slots[free_slot_locked(h->paradigm, h->file)];
		if (s->rep == UINT32_MAX) {
			*s = (struct free_slot){id, UINT32_MAX};
			defs.n_free_slots++;
		}
	}
	pthread_mutex_unlock(&defs.lock);
}

uint32_t vt_mpi_defs_io_local(uint32_t paradigm, const char *file)
{
	file = file ? file : "";
	uint32_t id = take_free(paradigm, file);
	if (id != UINT32_MAX)
		return id;
	id = define_io(0, UINT32_MAX, paradigm, file);
	if (id != UINT32_MAX)
		known_file(id);
	return id;
}

uint32_t vt_mpi_defs_io_file(uint32_t paradigm, const char *file)
{
	uint32_t id = UINT32_MAX;
	pthread_mutex_lock(&defs.lock);
	if (defs.cap_free_slots)
		id = defs.free_slots[free_slot_locked(paradigm, file)].rep;
	pthread_mutex_unlock(&defs.lock);
	return id;
}

uint32_t vt_mpi_defs_io_child(uint32_t paradigm, const char *file, uint32_t parent)
{
	file = file ? file : "";
	uint32_t id = take_free(paradigm, file);
	pthread_mutex_lock(&defs.lock);
	bool same = id != UINT32_MAX && defs.ios[id].parent == parent;
	pthread_mutex_unlock(&defs.lock);
	if (id != UINT32_MAX && !same) {
		vt_mpi_defs_io_free(id); /* another parent's: back where it was */
		id = UINT32_MAX;
	}
	if (id == UINT32_MAX) {
		id = define_io(0, UINT32_MAX, paradigm, file);
		pthread_mutex_lock(&defs.lock);
		if (id != UINT32_MAX)
			defs.ios[id].parent = parent;
		pthread_mutex_unlock(&defs.lock);
	}
	return id;
}

uint32_t vt_mpi_defs_io_dup(uint32_t id)
{
	pthread_mutex_lock(&defs.lock);
	char *copy = id < defs.n_ios ? strdup(defs.ios[id].file) : NULL;
	uint32_t paradigm = id < defs.n_ios ? defs.ios[id].paradigm : 0;
	pthread_mutex_unlock(&defs.lock);
	uint32_t dup = copy ? vt_mpi_defs_io_local(paradigm, copy) : UINT32_MAX;
	free(copy);
	return dup;
}

uint32_t vt_mpi_defs_group(const char *members)
{
	pthread_mutex_lock(&defs.lock);
	uint32_t id = 0;
	while (id < defs.n_groups && strcmp(defs.groups[id], members) != 0)
		id++;
	if (id == defs.n_groups) {
		char *copy = strdup(members);
		char **slot =
		    copy ? append(&defs.groups, &defs.n_groups, &defs.cap_groups, sizeof(*slot))
			 : NULL;
		if (slot)
			*slot = copy;
		else {
			free(copy);
			id = UINT32_MAX;
		}
	}
	pthread_mutex_unlock(&defs.lock);
	return id;
}

void vt_mpi_defs_clock_offset(uint64_t t, int64_t offset, double stddev)
{
	pthread_mutex_lock(&defs.lock);
	if (defs.n_offsets < (int)(sizeof(defs.offsets) / sizeof(defs.offsets[0])))
		defs.offsets[defs.n_offsets++] = (struct vt_mpi_defs_offset){t, offset, stddev};
	pthread_mutex_unlock(&defs.lock);
}

void vt_mpi_defs_comm_used(uint32_t loc, uint32_t comm)
{
	if (loc == 0 || comm >= COMMS_USED_MAX)
		return;
	pthread_mutex_lock(&defs.lock);
	if (loc >= defs.n_used) {
		uint32_t n = loc + 16;
		struct used_row *grown = realloc(defs.used, n * sizeof(*grown));
		if (grown) {
			memset(grown + defs.n_used, 0, (n - defs.n_used) * sizeof(*grown));
			defs.used = grown;
			defs.n_used = n;
		}
	}
	struct used_row *row = loc < defs.n_used ? &defs.used[loc] : NULL;
	uint32_t word = comm / 64;
	if (row && word >= row->words) {
		uint32_t n = word + 4;
		uint64_t *bits = realloc(row->bits, n * sizeof(*bits));
		if (bits) {
			memset(bits + row->words, 0, (n - row->words) * sizeof(*bits));
			row->bits = bits;
			row->words = n;
		}
	}
	if (row && word < row->words)
		row->bits[word] |= UINT64_C(1) << (comm % 64);
	pthread_mutex_unlock(&defs.lock);
}

const struct vt_mpi_defs_comm *vt_mpi_defs_comms(uint32_t *n)
{
	*n = defs.n_comms;
	return defs.comms;
}

const struct vt_mpi_defs_win *vt_mpi_defs_wins(uint32_t *n)
{
	*n = defs.n_wins;
	return defs.wins;
}

char *const *vt_mpi_defs_groups(uint32_t *n)
{
	*n = defs.n_groups;
	return defs.groups;
}

const struct vt_mpi_defs_io *vt_mpi_defs_ios(uint32_t *n)
{
	*n = defs.n_ios;
	return defs.ios;
}

const uint64_t *vt_mpi_defs_comms_used(uint32_t loc, uint32_t *words)
{
	*words = loc < defs.n_used ? defs.used[loc].words : 0;
	return *words ? defs.used[loc].bits : NULL;
}

/*
 * A measurement whose round trips were all slow (both ends seldom ran at once: ranks
 * outnumber cores, a scheduler tick between the legs) is uncertain by milliseconds, and
 * interpolating through it would move every event of the rank by as much. Drift between two
 * hosts' clocks over one run is far smaller than that, so such a measurement takes the offset
 * of the most certain one. The uncertainty (stddev) is half the width of the interval the
 * round trips bound the offset to (vt_mpi_clock.c).
 */
static void settle_offsets(void)
{
	int best = 0;
	for (int i = 1; i < defs.n_offsets; i++)
		if (defs.offsets[i].stddev < defs.offsets[best].stddev)
			best = i;
	for (int i = 0; i < defs.n_offsets; i++)
		if (defs.offsets[i].stddev > 4 * defs.offsets[best].stddev + 1.0)
			defs.offsets[i].offset = defs.offsets[best].offset;
}

const struct vt_mpi_defs_offset *vt_mpi_defs_clock_offsets(int *n)
{
	pthread_mutex_lock(&defs.lock);
	settle_offsets();
	*n = defs.n_offsets;
	pthread_mutex_unlock(&defs.lock);
	return defs.offsets;
}
