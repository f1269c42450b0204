/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of OpenMP thread teams by their members (vt_teams.h): lock-free look-ups. */
#include "defs/vt_teams.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (2 * VT_TEAMS_MAX) /* open addressing, at most half full */

struct team {
	uint32_t n;
	uint32_t *members;
};

/*
 * Readers probe slots without a lock: a slot's hash is published last (release), after its
 * team's index and the team itself, and never changes after. Inserts are serialised by the
 * lock; a team's members are copied once and never freed while the process runs.
 */
static struct {
	pthread_mutex_t lock;
	struct {
		uint64_t hash; /* 0: empty */
		uint32_t team;
	} slots[SLOTS];
	struct team teams[VT_TEAMS_MAX];
	uint32_t n_teams;
} tm = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t hash_of(const uint32_t *members, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n; /* FNV-1a over the members' words */
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ members[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static bool same(const struct team *t, const uint32_t *members, uint32_t n)
{
	return t->n == n && memcmp(t->members, members, n * sizeof(*members)) == 0;
}

/* The slot of the team, or of the first empty slot on its path (hash 0 there). */
static uint32_t probe(uint64_t h, const uint32_t *members, uint32_t n, bool locked)
{
	uint32_t i = (uint32_t)(h >> 40) & (SLOTS - 1);
	for (;;) {
		uint64_t k = locked ? tm.slots[i].hash
				    : __atomic_load_n(&tm.slots[i].hash, __ATOMIC_ACQUIRE);
		if (!k || (k == h && same(&tm.teams[tm.slots[i].team], members, n)))
			return i;
		i = (i + 1) & (SLOTS - 1);
	}
}

uint32_t vt_teams_id(const uint32_t *members, uint32_t n)
{
	if (!n)
		return VT_TEAMS_NONE;
	uint64_t h = hash_of(members, n);
	uint32_t i = probe(h, members, n, false);
	/* Found (an empty slot ends the probe, and may be taken meanwhile by another team:
	 * that is for the locked look-up to see). */
	if (__atomic_load_n(&tm.slots[i].hash, __ATOMIC_ACQUIRE) == h &&
	    same(&tm.teams[tm.slots[i].team], members, n))
		return VT_TEAMS_LOCAL_BASE + tm.slots[i].team;
	int saved = errno;
	uint32_t id = VT_TEAMS_NONE;
	pthread_mutex_lock(&tm.lock);
	i = probe(h, members, n, true);
	if (tm.slots[i].hash) {
		id = VT_TEAMS_LOCAL_BASE + tm.slots[i].team;
	} else if (tm.n_teams < VT_TEAMS_MAX) {
		uint32_t *copy = malloc(n * sizeof(*copy));
		if (copy) {
			memcpy(copy, members, n * sizeof(*copy));
			uint32_t t = tm.n_teams;
			tm.teams[t] = (struct team){n, copy};
			tm.slots[i].team = t;
			__atomic_store_n(&tm.n_teams, t + 1, __ATOMIC_RELEASE);
			__atomic_store_n(&tm.slots[i].hash, h, __ATOMIC_RELEASE);
			id = VT_TEAMS_LOCAL_BASE + t;
		}
	}
	pthread_mutex_unlock(&tm.lock);
	errno = saved;
	return id;
}

uint32_t vt_teams_count(void)
{
	return __atomic_load_n(&tm.n_teams, __ATOMIC_ACQUIRE);
}

const uint32_t *vt_teams_members(uint32_t i, uint32_t *n)
{
	*n = i < vt_teams_count() ? tm.teams[i].n : 0;
	return *n ? tm.teams[i].members : NULL;
}

void vt_teams_put_defs(struct vt_defs_buf *b, uint64_t (*ref_of)(uint32_t index))
{
	uint32_t n_teams = vt_teams_count();
	for (uint32_t t = 0; t < n_teams; t++) {
		const struct team *tt = &tm.teams[t];
		/* "REF,REF,...": the members' location ids in thread order ("-" for a thread
		 * without a location) */
		size_t cap = (size_t)tt->n * 21 + 1, len = 0;
		char *s = malloc(cap);
		if (!s) {
			b->failed = true;
			return;
		}
		s[0] = '\0';
		for (uint32_t m = 0; m < tt->n; m++) {
			if (tt->members[m] == VT_TEAMS_NO_LOCATION)
				len += (size_t)snprintf(s + len, cap - len, "%s-", m ? "," : "");
			else
				len += (size_t)snprintf(s + len, cap - len, "%s%" PRIu64,
							m ? "," : "", ref_of(tt->members[m]));
		}
		union vt_def d = {.team = {VT_TEAMS_LOCAL_BASE + t, s}};
		vt_defs_put(b, VT_DEF_TEAM, &d);
		free(s);
	}
}
