/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The OpenMP team definitions (defs/vt_teams.c) and their unification: a team is its list of
 * members, so the same list is one id however often and from however many threads it is
 * asked for, and another order or size is another team; the definitions name the members by
 * location id; the unification gives each process's teams communicators after the MPI
 * lanes, mapped from their local ids, the groups counted before the groups of processes.
 */
#include "base/vt_log.h"
#include "defs/vt_defs.h"
#include "defs/vt_teams.h"
#include "defs/vt_unify.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTS	 64
#define THREADS	 4
#define ROUNDS	 20000
#define MAX_SIZE 8

/* List i: size 1 + i % MAX_SIZE, members i, i + 1, ... (distinct lists). */
static void list(uint32_t i, uint32_t *m, uint32_t *n)
{
	*n = 1 + i % MAX_SIZE;
	for (uint32_t k = 0; k < *n; k++)
		m[k] = i + k;
}

static uint32_t seen[THREADS][LISTS];

static void *hammer(void *arg)
{
	uint32_t self = (uint32_t)(uintptr_t)arg, rng = 12345 + self;
	for (int r = 0; r < ROUNDS; r++) {
		rng = rng * 1103515245 + 12345;
		uint32_t i = (rng >> 8) % LISTS, m[MAX_SIZE], n;
		list(i, m, &n);
		uint32_t id = vt_teams_id(m, n);
		if (seen[self][i] && seen[self][i] != id)
			seen[self][i] = VT_TEAMS_NONE; /* changed: a failure below */
		else
			seen[self][i] = id;
	}
	return NULL;
}

static void table(void)
{
	uint32_t a[] = {0, 1}, b[] = {1, 0}, c[] = {0, 1, 2}, d[] = {0, 1};
	uint32_t ia = vt_teams_id(a, 2);
	CHECK(ia == VT_TEAMS_LOCAL_BASE && vt_teams_count() == 1);
	CHECK(vt_teams_id(d, 2) == ia); /* the same members: the same team */
	uint32_t ib = vt_teams_id(b, 2), ic = vt_teams_id(c, 3);
	CHECK(ib == ia + 1 && ic == ia + 2); /* another order, another size: other teams */
	CHECK(vt_teams_id(c, 2) == ia);	     /* a prefix of c is a */
	CHECK(vt_teams_id(a, 0) == VT_TEAMS_NONE);
	uint32_t n;
	const uint32_t *m = vt_teams_members(2, &n);
	CHECK(n == 3 && m && m[0] == 0 && m[2] == 2);
	CHECK(!vt_teams_members(99, &n) && n == 0);

	/* Many threads asking for the same lists agree on every id, and each list is one team. */
	pthread_t th[THREADS];
	uint32_t before = vt_teams_count();
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, hammer, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	int agree = 0, defined = 0;
	for (uint32_t i = 0; i < LISTS; i++) {
		bool same = seen[0][i] != VT_TEAMS_NONE && seen[0][i] != 0;
		for (int t = 1; t < THREADS; t++)
			same = same && seen[t][i] == seen[0][i];
		agree += same;
		uint32_t mm[MAX_SIZE], nn;
		list(i, mm, &nn);
		const uint32_t *got = vt_teams_members(seen[0][i] - VT_TEAMS_LOCAL_BASE, &n);
		defined += got && n == nn && memcmp(got, mm, nn * sizeof(*mm)) == 0;
	}
	CHECK(agree == LISTS && defined == LISTS);
	/* lists 0 ({0}) and 1 ({1, 2}) are not a, b or c: every list is new but none twice */
	CHECK(vt_teams_count() == before + LISTS);
}

static uint64_t ref_of(uint32_t index)
{
	return (uint64_t)index << 32 | 7; /* rank 7's location index */
}

static void defs(void)
{
	struct vt_defs_buf b = {0};
	uint32_t none[] = {3, VT_TEAMS_NO_LOCATION};
	uint32_t id = vt_teams_id(none, 2);
	vt_teams_put_defs(&b, ref_of);
	CHECK(!b.failed);
	struct vt_defs_reader r = {b.p, b.p + b.n, false};
	enum vt_def_kind k;
	union vt_def d;
	uint32_t n = 0;
	bool first = false, last = false;
	while (vt_defs_next(&r, &k, &d) > 0 && k == VT_DEF_TEAM) {
		if (d.team.id == VT_TEAMS_LOCAL_BASE)
			first = strcmp(d.team.members, "7,4294967303") == 0; /* {0, 1} */
		if (d.team.id == id)
			last = strcmp(d.team.members, "12884901895,-") == 0;
		n++;
	}
	CHECK(!r.bad && r.p == r.end && n == vt_teams_count());
	CHECK(first && last);
	free(b.p);
}

/* A process's stream: itself, its locations, one MPI communicator (world) and its teams. */
static void stream(struct vt_defs_buf *b, uint32_t rank, const char *teams[], uint32_t n_teams)
{
	union vt_def d = {.process = {rank, 100 + rank, "h", 1000000000, 1, 1, 9, 0}};
	vt_defs_put(b, VT_DEF_PROCESS, &d);
	for (uint64_t t = 0; t < 3; t++) {
		d = (union vt_def){.location = {t << 32 | rank, t ? "Thread" : "Master thread", 4}};
		vt_defs_put(b, VT_DEF_LOCATION, &d);
	}
	d = (union vt_def){.comm = {0, 1, rank, 2, ""}};
	vt_defs_put(b, VT_DEF_COMM, &d);
	for (uint32_t t = 0; t < n_teams; t++) {
		d = (union vt_def){.team = {VT_TEAMS_LOCAL_BASE + t, teams[t]}};
		vt_defs_put(b, VT_DEF_TEAM, &d);
	}
}

static void unify(void)
{
	/* rank 0: teams {0, 1} and {0, 2}; rank 1: {0, 1} (its own locations: another team) */
	const char *t0[] = {"0,4294967296", "0,8589934592"}, *t1[] = {"1,4294967297"};
	struct vt_defs_buf b[2] = {{0}};
	stream(&b[0], 0, t0, 2);
	stream(&b[1], 1, t1, 1);
	size_t sizes[2] = {b[0].n, b[1].n};
	char *all = malloc(b[0].n + b[1].n);
	memcpy(all, b[0].p, b[0].n);
	memcpy(all + b[0].n, b[1].p, b[1].n);
	struct vt_unified u;
	CHECK(vt_unify_merge(&u, all, sizes, 2, true) == 0);
	/* comms: world, the two thread teams ("Threads"); then the three OpenMP teams */
	CHECK(u.n_comms == 3 && u.n_lanes == 0 && u.n_teams == 3);
	CHECK(u.teams[0].rank == 0 && u.teams[2].rank == 1 &&
	      u.teams[2].local == VT_TEAMS_LOCAL_BASE && strcmp(u.teams[1].members, t0[1]) == 0);
	/* groups: MPI, Threads, one per comm, then OpenMP's locations and one per team */
	CHECK(vt_unify_group_base(&u) == 1 + 1 + 3 + 1 + 3);
	struct vt_unify_maps m;
	char want[128], got[128];
	for (uint32_t r = 0; r < 2; r++) {
		CHECK(vt_unify_maps_read(u.maps[r].p, u.maps[r].n, &m) == 0);
		size_t at = 0;
		for (uint32_t i = 0; i < m.n_comms; i++)
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%x:%u", i ? " " : "",
					       m.comms[2 * i], m.comms[2 * i + 1]);
		if (r == 0)
			snprintf(want, sizeof(want), "0:0 ffffff00:1 f0000000:3 f0000001:4");
		else
			snprintf(want, sizeof(want), "0:0 ffffff00:2 f0000000:5");
		CHECK(strcmp(got, want) == 0);
		if (strcmp(got, want) != 0)
			fprintf(stderr, "rank %u: comm map %s, want %s\n", r, got, want);
		vt_unify_maps_free(&m);
	}
	vt_unify_free(&u);
	free(all);
	free(b[0].p);
	free(b[1].p);
}

int main(void)
{
	vt_log_level = -1;
	table();
	defs();
	unify();
	return unit_done();
}
