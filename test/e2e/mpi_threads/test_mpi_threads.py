# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_threads": MPI calls from threads other than the master (MPI_THREAD_MULTIPLE,
two pthreads each on its own communicator while the master works on MPI_COMM_WORLD, then
OpenMP thread 1 on a third one), on 4 ranks of Open MPI and 2 of MPICH. OTF2 finds the
location of a communicator's member through the MPI COMM_LOCATIONS group, so each thread
that makes MPI calls must be listed there and be the member of the communicator its events
name. Checked as OTF2 readers see it: with python3-otf2 (every collective's participants
are exactly its communicator's member locations, each member the same operations in the
same order; every message's receiver is the location the communicator names), with
otf2-snapshots (which matches collectives and messages that way: no warning), and with
vt's own readers."""

import collections
import os
import shutil
import subprocess

import otf2

import otf2events
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

ROUNDS, WORKERS, OMP_ROUNDS = 5, 2, 3


def enum(v):
    return str(v).rsplit('.', 1)[-1]


def otf2_model(t, path, size, what):
    """The trace as an OTF2 reader that knows nothing of vt sees it; returns
    {location name: {comm name: [ops]}} of rank 0 for the exact counts."""
    with otf2.reader.open(path) as rd:
        defs = rd.definitions
        comm_locs = [g for g in defs.groups if enum(g.group_type) == 'COMM_LOCATIONS'
                     and enum(g.paradigm) == 'MPI']
        t.eq(len(comm_locs), 1, '%s: one MPI COMM_LOCATIONS group' % what)
        listed = [m._ref for m in comm_locs[0].members]
        t.eq(listed[:size], list(range(size)),
             '%s: the MPI locations start with the ranks\' master threads' % what)
        # each comm's members as locations
        members = {}
        for c in defs.comms:
            if enum(c.group.paradigm) != 'MPI':
                continue
            if enum(c.group.group_type) == 'COMM_SELF':
                continue
            members[c._ref] = [m._ref for m in c.group.members]
        names = {c._ref: c.name for c in defs.comms}
        loc_name = {l._ref: l.name for l in defs.locations}
        colls = collections.defaultdict(lambda: collections.defaultdict(list))
        sends = collections.defaultdict(list)
        recvs = collections.defaultdict(list)
        callers = set()
        for loc, ev in otf2events.events(rd):
            kind = type(ev).__name__
            if kind == 'MpiCollectiveEnd':
                colls[ev.communicator._ref][loc._ref].append(
                    (enum(ev.collective_op), ev.root, ev.size_sent, ev.size_received))
                callers.add(loc._ref)
            elif kind in ('MpiSend', 'MpiRecv'):
                c = ev.communicator._ref
                callers.add(loc._ref)
                mem = members.get(c, [])
                me = mem.index(loc._ref) if loc._ref in mem else None
                t.check(me is not None, '%s: %s on location %d: a member of communicator %r'
                        % (what, kind, loc._ref, names.get(c)))
                if kind == 'MpiSend':
                    peer = mem[ev.receiver] if ev.receiver < len(mem) else None
                    sends[(loc._ref, peer, c, ev.msg_tag)].append((ev.time, ev.msg_length))
                else:
                    peer = mem[ev.sender] if ev.sender < len(mem) else None
                    recvs[(peer, loc._ref, c, ev.msg_tag)].append((ev.time, ev.msg_length))
    t.eq(sorted(set(listed) - callers - set(range(size))), [],
         '%s: every thread listed among the MPI locations makes MPI calls' % what)
    t.eq(sorted(callers - set(listed)), [],
         '%s: every location that makes MPI calls is listed among the MPI locations' % what)
    # collectives: exactly the members take part, alike
    for c, by_loc in colls.items():
        want = members.get(c)
        if not t.check(want is not None, '%s: collectives on defined communicator %r'
                       % (what, names.get(c))):
            continue
        t.eq(sorted(by_loc), sorted(want), '%s: the locations in the collectives of %r are '
             'its members' % (what, names.get(c)))
        ops = {loc: [o[0] for o in seq] for loc, seq in by_loc.items()}
        t.check(len(set(map(tuple, ops.values()))) == 1,
                '%s: every member of %r has the same collectives in the same order'
                % (what, names.get(c)), repr(ops))
    # messages: FIFO per (sender, receiver, comm, tag), the receive never before the send
    t.eq(sorted(sends), sorted(recvs), '%s: sends and receives name the same location pairs'
         % what)
    n, early = 0, []
    for key in sends:
        for s, r in zip(sends[key], recvs.get(key, [])):
            n += 1
            if r[0] < s[0] or r[1] != s[1]:
                early.append((key, s, r))
            t.eq(len(sends[key]), len(recvs.get(key, [])), '%s: %r sends = receives'
                 % (what, key))
    t.eq(n, size * WORKERS * ROUNDS, '%s: %d messages matched by location'
         % (what, size * WORKERS * ROUNDS))
    t.eq(early, [], '%s: no receive before its send, lengths agree' % what)
    # rank 0's view for the exact counts
    out = collections.defaultdict(dict)
    for c, by_loc in colls.items():
        for loc, seq in by_loc.items():
            if loc & 0xffffffff == 0:
                out[loc_name[loc]][names[c]] = [o[0] for o in seq]
    return out


def snapshots(t, path, what):
    """otf2-snapshots over a copy: it matches collectives and messages through the
    communicators' member locations and warns of any it cannot match."""
    dst = os.path.join(os.path.dirname(path) + '-snap')
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.dirname(path), dst)
    p = subprocess.run(['otf2-snapshots', os.path.join(dst, os.path.basename(path))],
                       capture_output=True, text=True, timeout=120)
    t.check(p.returncode == 0, '%s: otf2-snapshots succeeds' % what, p.stderr[-400:])
    warnings = [l for l in (p.stdout + p.stderr).splitlines() if 'warning' in l]
    t.eq(warnings[:5], [], '%s: otf2-snapshots matches every collective and message' % what)


def check(t, run, plain, impl, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_messages(t, mt, what, count=size * WORKERS * ROUNDS)
    view = otf2_model(t, tr.path, size, what)
    worker = ('ALLREDUCE',) * ROUNDS + ('BCAST', 'BARRIER')
    # Threads are numbered by their first event, so which worker is "Thread 1" varies from
    # rank to rank; a communicator used by threads of the same name is named after them.
    dup = 'MPI_Comm_dup of MPI_COMM_WORLD on '
    t.eq(view.pop('Master thread', None), {'MPI_COMM_WORLD': ['BARRIER', 'ALLREDUCE', 'BARRIER']},
         '%s: rank 0\'s master: its collectives on MPI_COMM_WORLD' % what)
    got = sorted((tuple(ops) for comms in view.values() for ops in comms.values()))
    t.eq(got, sorted([worker, worker, ('ALLREDUCE',) * OMP_ROUNDS]),
         '%s: rank 0\'s threads: each its collectives on its communicator' % what)
    t.eq(sorted(len(comms) for comms in view.values()), [1, 1, 1],
         '%s: rank 0\'s threads: one communicator each' % what)
    bad = [n for comms in view.values() for n in comms if not n.startswith(dup)]
    t.eq(bad, [], '%s: the threads\' communicators are named after their duplicate' % what)
    snapshots(t, tr.path, what)


def body(t):
    impls = [OPENMPI, MPICH]
    exes = vtmpi.build_all(t, 'mpi_threads', ['mpi_threads.c'], impls,
                           flags=['-fopenmp', '-pthread'])
    for impl, np in ((OPENMPI, 4), (MPICH, 2)):
        vtmpi.require_runtime(impl)
        env = {'OMP_NUM_THREADS': '2'}
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], env=env,
                             label='plain-%s' % impl)
        if plain.status == 77:
            t.note('%s gives less than MPI_THREAD_MULTIPLE; skipped' % impl)
            continue
        t.eq(plain.status, 0, '%s uninstrumented: exit status 0' % impl)
        run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], env=env, label='%s' % impl)
        check(t, run, plain, impl, np, '%s np %d' % (impl, np))


vttest.main('mpi_threads', body)
