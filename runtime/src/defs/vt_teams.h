/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenMP thread teams of this process: one communicator per distinct list of member threads. */
#ifndef VT_TEAMS_H
#define VT_TEAMS_H

#include "defs/vt_defs.h"

#include <stdint.h>

/*
 * A team is the list of its members' locations (location indices, by thread number in the
 * team). Its identity is that list: a team that forks 10^5 times with the same threads is
 * one communicator. Local communicator ids of teams start at VT_TEAMS_LOCAL_BASE, above
 * the MPI communicators' and below the process's thread team (VT_UNIFY_THREAD_COMM_LOCAL).
 */
#define VT_TEAMS_LOCAL_BASE 0xF0000000u
#define VT_TEAMS_MAX	    4096u	/* distinct teams per process */
#define VT_TEAMS_NONE	    0xFFFFFFFFu /* more teams than that: not recorded */
/* A member that has no location (a thread vt does not record). */
#define VT_TEAMS_NO_LOCATION 0xFFFFFFFFu

/* The local communicator id of the team of n members (n >= 1): lock-free when the team is
 * known, under a lock (and with an allocation) the first time; VT_TEAMS_NONE when the
 * table is full or memory ran out. Safe from any thread. */
uint32_t vt_teams_id(const uint32_t *members, uint32_t n);

/* Teams defined so far; the members of team i (its id: VT_TEAMS_LOCAL_BASE + i). */
uint32_t vt_teams_count(void);
const uint32_t *vt_teams_members(uint32_t i, uint32_t *n);

/* Appends this process's teams to its definitions (VT_DEF_TEAM), members named by their
 * OTF2 location ids (ref_of: a location index's id). */
void vt_teams_put_defs(struct vt_defs_buf *b, uint64_t (*ref_of)(uint32_t index));

#endif
