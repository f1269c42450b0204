# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_ompt": MPI + OpenMP through OMPT (mpicc over clang, libomp), 2 ranks x 2
threads: one unified trace whose OpenMP team communicators are each rank's own, with its
own two locations as members, and every team event of a rank on its own team."""

import collections
import os

import otf2events
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

REPS = 3


def read(path):
    """{(rank group, location): Counter of (event kind, team)} and {team: [member refs]}."""
    otf2 = vttest.otf2
    events = collections.defaultdict(collections.Counter)
    teams, group_of = {}, {}
    with otf2.reader.open(path) as r:
        for c in r.definitions.comms:
            if str(c.group.paradigm).endswith('OPENMP'):
                teams[c.name] = [m._ref for m in c.group.members]
        for l in r.definitions.locations:
            group_of[l._ref] = (l.group.name, l.name)
        for l, ev in otf2events.events(r):
            kind = type(ev).__name__
            if kind.startswith('Thread') and kind not in ('ThreadBegin', 'ThreadEnd'):
                team = getattr(ev, 'thread_team', None)
                events[group_of[l._ref]][(kind, team.name if team else None)] += 1
    return events, teams, group_of


def check(t, run, plain, impl, np, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, _ = vtmpi.trace(t, run, what)
    events, teams, group_of = read(tr.path)
    want_teams = {}
    for rank in range(np):
        name = 'OpenMP team 0 of rank %d' % rank
        want_teams[name] = [('MPI Rank %d' % rank, 'Master thread'),
                            ('MPI Rank %d' % rank, 'Thread 1')]
        t.eq(dict(events[('MPI Rank %d' % rank, 'Master thread')]),
             {('ThreadFork', None): REPS + 1, ('ThreadJoin', None): REPS + 1,
              ('ThreadTeamBegin', name): REPS + 1, ('ThreadTeamEnd', name): REPS + 1,
              ('ThreadAcquireLock', None): 1, ('ThreadReleaseLock', None): 1},
             '%s: rank %d\'s main thread: forks, joins, its team, the critical lock'
             % (what, rank))
        t.eq(dict(events[('MPI Rank %d' % rank, 'Thread 1')]),
             {('ThreadTeamBegin', name): REPS + 1, ('ThreadTeamEnd', name): REPS + 1,
              ('ThreadAcquireLock', None): 1, ('ThreadReleaseLock', None): 1},
             '%s: rank %d\'s worker: its team, the critical lock' % (what, rank))
    got = {n: [group_of.get(ref) for ref in refs] for n, refs in teams.items()}
    t.eq(got, want_teams, '%s: one team communicator per rank, its own threads' % what)


def body(t):
    # mpicc over clang, whose -fopenmp links libomp (the one with the tool interface).
    os.environ['OMPI_CC'] = 'clang'
    os.environ['MPICH_CC'] = 'clang'
    vtmpi.build_and_run(t, 'mpi_ompt', ['mpi_ompt.c'], [(OPENMPI, 2), (MPICH, 2)], check,
                        flags=['-fopenmp'])


vttest.main('mpi_ompt', body)
