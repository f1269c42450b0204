# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_selftest": the MPI checks of vtmpi.py on traces written here with python3-otf2,
so that they are known to pass on a right trace and to fail on each planted fault (a receive
early by more than its clock offsets' uncertainty, not within it), and that python3-otf2
applies the ClockOffset definitions they rely on. Needs no MPI and no vt."""

import os
import socket

import _otf2
import otf2

import vtmpi
import vttest
from vtmpi import ANY, ROOT_NONE, Var

HOST = socket.gethostname()
# Rank 1's clock runs SKEW ticks behind rank 0's; its ClockOffset definitions say +SKEW.
SKEW = 100


class Recorder:
    """Stands in for a vttest.Test in checks expected to fail: records, prints nothing."""

    def __init__(self):
        self.results = []  # (ok, what, detail)

    def check(self, cond, what, detail=''):
        self.results.append((bool(cond), what, detail))
        return bool(cond)

    def eq(self, got, want, what):
        return self.check(got == want, what, 'expected %r, got %r' % (want, got))

    def fail(self, what, detail=''):
        return self.check(False, what, detail)

    def failed(self):
        return [(what, detail) for ok, what, detail in self.results if not ok]


def write(path, faults=()):
    """A 2-rank trace as the runtime should write it (true times in the comments), with
    the faults named in faults planted. Returns the anchor file's path."""
    f = set(faults)
    with otf2.writer.open(path, archive_name='prog.vt', timer_resolution=10**9) as trace:
        d = trace.definitions
        machine = d.system_tree_node('machine')
        host = d.system_tree_node(HOST, parent=machine)
        groups = [d.location_group('MPI Rank %d' % r, system_tree_parent=host)
                  for r in range(2)]
        locs = [d.location('Master thread', group=g) for g in groups]
        d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.MPI, members=locs)
        wg = d.group('MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
                     paradigm=otf2.Paradigm.MPI, members=[0, 1])
        world = d.comm('MPI_COMM_WORLD', group=wg)
        sg = d.group('MPI_COMM_SELF', group_type=otf2.GroupType.COMM_SELF,
                     paradigm=otf2.Paradigm.MPI, members=[])
        d.comm('MPI_COMM_SELF', group=sg)
        reg = {}
        for name, role in [('MPI_Send', 'POINT2POINT'), ('MPI_Recv', 'POINT2POINT'),
                           ('MPI_Isend', 'POINT2POINT'), ('MPI_Irecv', 'POINT2POINT'),
                           ('MPI_Wait', 'POINT2POINT'), ('MPI_Waitall', 'POINT2POINT'),
                           ('MPI_Barrier', 'BARRIER'), ('MPI_Bcast', 'COLL_ONE2ALL')]:
            reg[name] = d.region(name, paradigm=otf2.Paradigm.MPI,
                                 region_role=getattr(otf2.RegionRole, role))
        reg['main'] = d.region('main')
        E, L, ev = otf2.events.Enter, otf2.events.Leave, otf2.events

        w = trace.event_writer_from_location(locs[0])
        w(E(100, reg['main']))
        w(E(200, reg['MPI_Send']))
        w(ev.MpiSend(210, 1, world, 10, 4))
        w(L(300, reg['MPI_Send']))
        if 'lone send' in f:
            w(E(310, reg['MPI_Send']))
            w(ev.MpiSend(311, 1, world, 11, 4))
            w(L(312, reg['MPI_Send']))
        w(E(400, reg['MPI_Irecv']))
        w(ev.MpiIrecvRequest(410, 7))
        w(L(420, reg['MPI_Irecv']))
        w(E(500, reg['MPI_Waitall']))
        w(ev.MpiIrecv(900, 1, world, 20, 64, 8 if 'wrong request' in f else 7))
        w(L(910, reg['MPI_Waitall']))
        w(E(1000, reg['MPI_Barrier']))
        # vt stamps a collective's Begin with its call's Enter (one clock read).
        w(ev.MpiCollectiveBegin(1001 if 'late begin' in f else 1000))
        w(ev.MpiCollectiveEnd(1200, otf2.CollectiveOp.BARRIER, world, ROOT_NONE, 0, 0))
        w(L(1201, reg['MPI_Barrier']))
        w(E(1300, reg['MPI_Bcast']))
        w(ev.MpiCollectiveBegin(1300))
        w(ev.MpiCollectiveEnd(1400, otf2.CollectiveOp.BCAST, world, 0, 40, 0))
        w(L(1401, reg['MPI_Bcast']))
        w(L(2000, reg['main']))

        # Rank 1: raw = true - SKEW.
        w = trace.event_writer_from_location(locs[1])
        s = SKEW
        w(E(150 - s, reg['main']))
        w(E(160 - s, reg['MPI_Recv']))
        recv_at = 205 if f & {'early receive', 'early within', 'early beyond'} else 250
        w(ev.MpiRecv(recv_at - s, 0, world, 10, 8 if 'length' in f else 4))
        w(L(260 - s, reg['MPI_Recv']))
        w(E(300 - s, reg['MPI_Isend']))
        w(ev.MpiIsend(310 - s, 0, world, 20, 64, 3))
        w(L(320 - s, reg['MPI_Isend']))
        w(E(330 - s, reg['MPI_Wait']))
        w(ev.MpiIsendComplete(600 - s, 3))
        w(L(610 - s, reg['MPI_Wait']))
        w(E(700 - s, reg['MPI_Barrier']))
        w(ev.MpiCollectiveBegin(700 - s))
        end = 990 if 'early barrier' in f else 1150
        w(ev.MpiCollectiveEnd(end - s, otf2.CollectiveOp.BARRIER, world, ROOT_NONE, 0, 0))
        w(L(end + 1 - s, reg['MPI_Barrier']))
        w(E(1350 - s, reg['MPI_Bcast']))
        w(ev.MpiCollectiveBegin(1350 - s))
        w(ev.MpiCollectiveEnd(1450 - s, otf2.CollectiveOp.BCAST, world, 0, 0, 40))
        w(L(1451 - s, reg['MPI_Bcast']))
        w(L(1900 - s, reg['main']))
        if 'no offsets' not in f:
            # A measured offset's uncertainty allows a receive that early (5 ticks), not more.
            sd = 5.0 if 'early within' in f else 4.0 if 'early beyond' in f else 0.0
            _otf2.DefWriter_WriteClockOffset(w._def_handle, 0, SKEW, sd)
            _otf2.DefWriter_WriteClockOffset(w._def_handle, 2000, SKEW, 0.0)
    return os.path.join(path, 'prog.vt.otf2')


W = Var('comm:WORLD')
RANK0 = vtmpi.steps_of(
    vtmpi.send('MPI_Send', 1, W, 10, 4),
    vtmpi.irecv_request('MPI_Irecv', Var('req:a')),
    vtmpi.irecv('MPI_Waitall', 1, W, 20, 64, Var('req:a')),
    [vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0)],
    [vtmpi.coll('MPI_Bcast', 'BCAST', W, 0, 40, 0)])
RANK1 = vtmpi.steps_of(
    vtmpi.recv('MPI_Recv', 0, W, 10, 4),
    vtmpi.isend('MPI_Isend', 0, W, 20, 64, Var('req:b')),
    vtmpi.isend_complete('MPI_Wait', Var('req:b')),
    [vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0)],
    [vtmpi.coll('MPI_Bcast', 'BCAST', W, 0, ANY, 40)])


def all_checks(t, mt, what):
    vtmpi.check_messages(t, mt, what, count=2)
    vtmpi.check_collective_pairs(t, mt, what)
    vtmpi.check_collective_times(t, mt, what)


def failures_of(path, what):
    r = Recorder()
    mt = vtmpi.read_mpi(path)
    all_checks(r, mt, what)
    for rank, steps in ((0, RANK0), (1, RANK1)):
        vtmpi.match_sequence(r, mt.sequence(rank), steps, '%s: rank %d' % (what, rank))
    return r.failed()


def body(t):
    good = write(os.path.join(t.work, 'good'))
    mt = vtmpi.read_mpi(good)
    t.eq([(e.kind, e.time) for e in mt.loc_of_rank(1).events[:1]], [('MpiRecv', 250)],
         'python3-otf2 applies the ClockOffset definitions (rank 1\'s receive at 250)')
    tr = vttest.read_trace(good)
    vtmpi.check_layout(t, tr, mt, 'good trace', 2)
    vtmpi.check_regions(t, mt, 'good trace', ['MPI_Send', 'MPI_Recv', 'MPI_Barrier',
                                              'MPI_Bcast', 'MPI_Wait'])
    all_checks(t, mt, 'good trace')
    b0 = vtmpi.match_sequence(t, mt.sequence(0), RANK0, 'good trace: rank 0')
    b1 = vtmpi.match_sequence(t, mt.sequence(1), RANK1, 'good trace: rank 1')
    t.eq((b0.get('comm:WORLD'), b1.get('comm:WORLD')), (0, 0),
         'good trace: both ranks bind comm:WORLD to the same communicator')
    t.eq(mt.comm(0).members, (0, 1), 'good trace: MPI_COMM_WORLD\'s members in world ranks')
    t.eq((mt.comm(1).group_type, mt.comm(1).members), ('COMM_SELF', None),
         'good trace: MPI_COMM_SELF read as a COMM_SELF group')
    t.eq(vtmpi.kind_counts(mt.sequence(0)), vtmpi.pattern_kinds(RANK0),
         'good trace: kind counts of events and patterns agree')
    pairs, _, _, _ = vtmpi.messages(mt)
    t.eq(sorted((s[:5], r[:5]) for s, r in pairs),
         [((0, 1, 0, 10, 4), (0, 1, 0, 10, 4)), ((1, 0, 0, 20, 64), (1, 0, 0, 20, 64))],
         'good trace: the two messages paired (src, dst, comm, tag, length)')

    # Each planted fault makes exactly the checks that should see it fail.
    cases = [
        ('no offsets', ['no receive before its send began']),
        ('lone send', ['every send has its receive', 'rank 0: MPI events']),
        ('early receive', ['no receive before its send began']),
        ('early within', []),
        ('early beyond', ['no receive before its send began']),
        ('length', ['same length at both ends', 'rank 1: MPI events']),
        ('early barrier', ['collectives agree across ranks, in time']),
        ('late begin', ['collective Begin/End pairs well formed']),
        ('wrong request', ['rank 0: MPI events',
                           'message events name defined communicators and ranks']),
    ]
    for fault, expect in cases:
        path = write(os.path.join(t.work, fault.replace(' ', '-')), [fault])
        failed = failures_of(path, fault)
        got = sorted(set(e for e in expect for what, _ in failed if e in what))
        t.eq((got, len(failed)), (sorted(expect), len(expect)),
             'fault "%s" is seen by exactly: %s' % (fault, '; '.join(expect)))
        if len(failed) != len(expect):
            for what, detail in failed:
                t.note('%s: %s' % (what, detail))

    # The sequence matcher: order within a step is free, across steps it is not; unbound
    # variables of one namespace take different values.
    got = [('R', 'MpiIsendComplete', 5), ('R', 'MpiIsendComplete', 6)]
    b, p = vtmpi.match_steps([[('R', 'MpiIsendComplete', Var('req:y')),
                               ('R', 'MpiIsendComplete', 6)]], got, {'req:y': 5})
    t.eq(p, None, 'matcher: a step matches in any order')
    b, p = vtmpi.match_steps([[('R', 'MpiIsendComplete', Var('req:x'))],
                              [('R', 'MpiIsendComplete', Var('req:y'))]],
                             [got[0], got[0]])
    t.check(p is not None, 'matcher: two variables of a namespace never bind one value')
    b, p = vtmpi.match_steps([[('R', 'MpiIsendComplete', 6)], [('R', 'MpiIsendComplete', 5)]],
                             got)
    t.check(p is not None, 'matcher: steps keep their order')
    b, p = vtmpi.match_steps([[('R', 'MpiIsendComplete', 5)]], got)
    t.check(p is not None and 'then 1 more' in p, 'matcher: extra events are a mismatch', p)


vttest.main('mpi_selftest', body)
