# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_ompt": MPI + OpenMP through OMPT (mpicc over clang, libomp), 2 ranks x 2
threads: one unified trace whose OpenMP team communicators are each rank's own, with its
own two locations as members, and every team event of a rank on its own team. Under
MPI_THREAD_FUNNELED (MPI on the main thread), and under MPI_THREAD_MULTIPLE with both
threads of a parallel region in MPI_Allreduce at once, each on its own communicator: the
worker's collective is on its own location, on the communicator it used."""

import collections
import os

import otf2events
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

REPS = 3


def read(path):
    """{(rank group, location): Counter of (event kind, team)}, {team: [member refs]} and
    {(rank group, location): [communicator of each MpiCollectiveEnd]}."""
    otf2 = vttest.otf2
    events = collections.defaultdict(collections.Counter)
    colls = collections.defaultdict(list)
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
            elif kind == 'MpiCollectiveEnd' and str(ev.collective_op).endswith('ALLREDUCE'):
                colls[group_of[l._ref]].append(ev.communicator.name)
    return events, teams, group_of, colls


def check(t, run, plain, impl, np, what, multiple=False):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    t.eq(sorted(l.split(', ok ')[-1] for l in run.lines), ['1'] * np,
         '%s: the program\'s own checks hold' % what)
    tr, _ = vtmpi.trace(t, run, what)
    events, teams, group_of, colls = read(tr.path)
    regions = REPS + 1 + multiple
    want_teams = {}
    for rank in range(np):
        master, worker = ('MPI Rank %d' % rank, 'Master thread'), ('MPI Rank %d' % rank,
                                                                   'Thread 1')
        if multiple:
            t.eq(len(colls[master]), 2, '%s: rank %d\'s main thread: two MPI_Allreduce'
                 % (what, rank))
            t.eq(len(colls[worker]), 1, '%s: rank %d\'s worker: its MPI_Allreduce' % (what, rank))
            t.check(colls[worker] and colls[master] and colls[worker][0] != colls[master][0]
                    and colls[master][-1] == 'MPI_COMM_WORLD',
                    '%s: rank %d: the threads\' MPI_Allreduce on two communicators, then one '
                    'on MPI_COMM_WORLD' % (what, rank), repr((colls[master], colls[worker])))
        else:
            t.eq((colls[master], colls[worker]), (['MPI_COMM_WORLD'], []),
                 '%s: rank %d: one MPI_Allreduce, on the main thread' % (what, rank))
        name = 'OpenMP team 0 of rank %d' % rank
        want_teams[name] = [('MPI Rank %d' % rank, 'Master thread'),
                            ('MPI Rank %d' % rank, 'Thread 1')]
        t.eq(dict(events[('MPI Rank %d' % rank, 'Master thread')]),
             {('ThreadFork', None): regions, ('ThreadJoin', None): regions,
              ('ThreadTeamBegin', name): regions, ('ThreadTeamEnd', name): regions,
              ('ThreadAcquireLock', None): 1, ('ThreadReleaseLock', None): 1},
             '%s: rank %d\'s main thread: forks, joins, its team, the critical lock'
             % (what, rank))
        t.eq(dict(events[('MPI Rank %d' % rank, 'Thread 1')]),
             {('ThreadTeamBegin', name): regions, ('ThreadTeamEnd', name): regions,
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
    vtmpi.build_and_run(t, 'mpi_ompt', ['mpi_ompt.c'], [(OPENMPI, 2), (MPICH, 2)],
                        lambda *a: check(*a[:5], a[5] + ' MULTIPLE', multiple=True),
                        flags=['-fopenmp'], env={'MPI_OMPT_MULTIPLE': '1'})


vttest.main('mpi_ompt', body)
