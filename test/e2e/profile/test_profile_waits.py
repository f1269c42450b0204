# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile --waits: exact wait states of a trace written here with python3-otf2 (each
pattern's waiting time worked out by hand), bad input and usage, then a vtcc-built MPI program
(Open MPI, 2 ranks) whose rank 1 sleeps before the send rank 0 waits for."""
import csv
import io
import os

import omptrace
import otf2events
import vtmpi
import vttest
from vtmpi import OPENMPI, ROOT_NONE
from vttest import otf2
from waittrace import profile, profile_json

MS = 10**6  # ticks: the traces here count nanoseconds


# ---------------------------------------------------------------------------------------------
# Three MPI ranks (one location each) and an OpenMP thread beside rank 2's. Times in ms:
#   late sender:   rank 0 in main>exchange>MPI_Recv from 1 to 12; rank 1 enters MPI_Send at 11
#                  -> rank 0 waits 11 - 1 = 10
#   late receiver: rank 2 in main>MPI_Ssend 11.5..15 (to rank 0); rank 0 enters MPI_Recv at
#                  13 and receives at 16 -> rank 2 waits 13 - 11.5 = 1.5 (its call left before
#                  the receive ended: the Leave comes first). Sent after 11, it does not make
#                  the late sender above a Wrong Order.
#   wrong order:   rank 1 sends tag 5 at 70, tag 6 at 75; rank 0 receives tag 6 in MPI_Recv
#                  71..76, then tag 5 -> a Late Sender of 4, a Wrong Order (tag 5, sent
#                  earlier, was there)
#   barrier:       ranks 0, 1 enter at 20, rank 2 at 25 -> 5 + 5
#   allreduce:     in main>solve, entered at 30, 31, 37 -> 7 + 6
#   bcast, root 1: entered at 40, 44 (root), 41 -> rank 0: 4, rank 2: 3
#   reduce, root 0: entered at 50 (root), 53, 52 -> rank 0 waits 2
#   OpenMP team of rank 2's master and thread 1: '!$omp barrier' entered at 61 and 66 ->
#                  master 5; the implicit barrier at 68.5 and 68.2 -> thread 1: 0.3
PAR, BAR, IBAR = '!$omp parallel @w.c:5', '!$omp barrier @w.c:7', '!$omp implicit barrier @w.c:5'


def write_waits(path, unmatched=False):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        host = d.system_tree_node('host')
        groups = [d.location_group('MPI Rank %d' % r, system_tree_parent=host)
                  for r in range(3)]
        locs = [d.location('Master thread', group=g) for g in groups]
        thread = d.location('OpenMP thread 1', group=groups[2])
        d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.MPI, members=locs)
        wg = d.group('MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
                     paradigm=otf2.Paradigm.MPI, members=[0, 1, 2])
        world = d.comm('MPI_COMM_WORLD', group=wg)
        d.group('OpenMP threads', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.OPENMP, members=[locs[2], thread])
        tg = d.group('OpenMP team', group_type=otf2.GroupType.COMM_GROUP,
                     paradigm=otf2.Paradigm.OPENMP, members=[0, 1])
        team = d.comm('OpenMP team 1', group=tg)

        def region(name, paradigm=otf2.Paradigm.USER, role=otf2.RegionRole.FUNCTION):
            return d.region(name, source_file='w.c', region_role=role, paradigm=paradigm)
        R = {n: region(n) for n in ('main', 'exchange', 'solve')}
        for n in ('MPI_Recv', 'MPI_Send', 'MPI_Ssend', 'MPI_Barrier', 'MPI_Allreduce',
                  'MPI_Bcast', 'MPI_Reduce'):
            R[n] = region(n, otf2.Paradigm.MPI, otf2.RegionRole.POINT2POINT)
        R[PAR] = region(PAR, otf2.Paradigm.OPENMP, otf2.RegionRole.PARALLEL)
        R[BAR] = region(BAR, otf2.Paradigm.OPENMP, otf2.RegionRole.BARRIER)
        R[IBAR] = region(IBAR, otf2.Paradigm.OPENMP, otf2.RegionRole.IMPLICIT_BARRIER)
        op = otf2.CollectiveOp

        def ms(x):
            return int(round(x * MS))

        def call(w, name, begin, end, *events):
            w(ev.Enter(ms(begin), R[name]))
            for e in events:
                w(e)
            w(ev.Leave(ms(end), R[name]))

        def coll(w, name, begin, end, kind, root=ROOT_NONE):
            call(w, name, begin, end, ev.MpiCollectiveBegin(ms(begin)),
                 ev.MpiCollectiveEnd(ms(end), kind, world, root, 8, 8))

        w = trace.event_writer_from_location(locs[0])
        w(ev.Enter(0, R['main']))
        w(ev.Enter(ms(1), R['exchange']))
        call(w, 'MPI_Recv', 1, 12, ev.MpiRecv(ms(12), 1, world, 1, 8))
        w(ev.Leave(ms(12), R['exchange']))
        call(w, 'MPI_Recv', 13, 16, ev.MpiRecv(ms(16), 2, world, 2, 8))
        coll(w, 'MPI_Barrier', 20, 25.1, op.BARRIER)
        w(ev.Enter(ms(29), R['solve']))
        coll(w, 'MPI_Allreduce', 30, 37.5, op.ALLREDUCE)
        w(ev.Leave(ms(38), R['solve']))
        coll(w, 'MPI_Bcast', 40, 44.5, op.BCAST, 1)
        coll(w, 'MPI_Reduce', 50, 53.5, op.REDUCE, 0)
        call(w, 'MPI_Recv', 71, 76, ev.MpiRecv(ms(76), 1, world, 6, 8))
        call(w, 'MPI_Recv', 77, 77.5, ev.MpiRecv(ms(77.5), 1, world, 5, 8))
        w(ev.Leave(ms(100), R['main']))

        w = trace.event_writer_from_location(locs[1])
        w(ev.Enter(0, R['main']))
        w(ev.Enter(0, R['solve']))
        w(ev.Leave(ms(11), R['solve']))
        call(w, 'MPI_Send', 11, 11.5, ev.MpiSend(ms(11), 0, world, 1, 8))
        coll(w, 'MPI_Barrier', 20, 25.1, op.BARRIER)
        w(ev.Enter(ms(29), R['solve']))
        coll(w, 'MPI_Allreduce', 31, 37.5, op.ALLREDUCE)
        w(ev.Leave(ms(38), R['solve']))
        coll(w, 'MPI_Bcast', 44, 44.5, op.BCAST, 1)
        coll(w, 'MPI_Reduce', 53, 53.2, op.REDUCE, 0)
        call(w, 'MPI_Send', 70, 70.1, ev.MpiSend(ms(70), 0, world, 5, 8))
        call(w, 'MPI_Send', 75, 75.1, ev.MpiSend(ms(75), 0, world, 6, 8))
        if unmatched:
            call(w, 'MPI_Send', 80, 80.1, ev.MpiSend(ms(80), 0, world, 99, 8))
        w(ev.Leave(ms(100), R['main']))

        w = trace.event_writer_from_location(locs[2])
        w(ev.Enter(0, R['main']))
        call(w, 'MPI_Ssend', 11.5, 15, ev.MpiSend(ms(11.5), 0, world, 2, 8))
        coll(w, 'MPI_Barrier', 25, 25.1, op.BARRIER)
        w(ev.Enter(ms(29), R['solve']))
        coll(w, 'MPI_Allreduce', 37, 37.5, op.ALLREDUCE)
        w(ev.Leave(ms(38), R['solve']))
        coll(w, 'MPI_Bcast', 41, 44.5, op.BCAST, 1)
        coll(w, 'MPI_Reduce', 52, 53.2, op.REDUCE, 0)
        w(ev.ThreadTeamBegin(ms(60), team))
        w(ev.Enter(ms(60), R[PAR]))
        call(w, BAR, 61, 68)
        call(w, IBAR, 68.5, 69)
        w(ev.Leave(ms(69), R[PAR]))
        w(ev.ThreadTeamEnd(ms(69), team))
        w(ev.Leave(ms(100), R['main']))

        w = trace.event_writer_from_location(thread)
        w(ev.ThreadTeamBegin(ms(60), team))
        w(ev.Enter(ms(60), R[PAR]))
        call(w, BAR, 66, 68)
        call(w, IBAR, 68.2, 69)
        w(ev.Leave(ms(69), R[PAR]))
        w(ev.ThreadTeamEnd(ms(69), team))


M, T = 'Master thread', 'OpenMP thread 1'
WORLD, TEAM = 'MPI_COMM_WORLD', 'OpenMP team 1'
# pattern: (instances, ticks)
PATTERNS = {'late_sender': (2, 14 * MS), 'wrong_order': (1, 4 * MS),
            'late_receiver': (1, 1500000),
            'wait_barrier': (2, 10 * MS), 'wait_nxn': (2, 13 * MS),
            'late_broadcast': (2, 7 * MS), 'early_reduce': (1, 2 * MS),
            'omp_barrier': (2, 5 * MS + 300000)}
# (pattern, path, instances, ticks), per pattern the largest first
PATHS = [('late_sender', ['main', 'exchange', 'MPI_Recv'], 1, 10 * MS),
         ('late_sender', ['main', 'MPI_Recv'], 1, 4 * MS),
         ('wrong_order', ['main', 'MPI_Recv'], 1, 4 * MS),
         ('late_receiver', ['main', 'MPI_Ssend'], 1, 1500000),
         ('wait_barrier', ['main', 'MPI_Barrier'], 2, 10 * MS),
         ('wait_nxn', ['main', 'solve', 'MPI_Allreduce'], 2, 13 * MS),
         ('late_broadcast', ['main', 'MPI_Bcast'], 2, 7 * MS),
         ('early_reduce', ['main', 'MPI_Reduce'], 1, 2 * MS),
         ('omp_barrier', ['main', PAR, BAR], 1, 5 * MS),
         ('omp_barrier', [PAR, IBAR], 1, 300000)]
# (pattern, rank, location name, instances, ticks)
LOCATIONS = [('late_sender', 0, M, 2, 14 * MS), ('wrong_order', 0, M, 1, 4 * MS),
             ('late_receiver', 2, M, 1, 1500000),
             ('wait_barrier', 0, M, 1, 5 * MS), ('wait_barrier', 1, M, 1, 5 * MS),
             ('wait_nxn', 0, M, 1, 7 * MS), ('wait_nxn', 1, M, 1, 6 * MS),
             ('late_broadcast', 0, M, 1, 4 * MS), ('late_broadcast', 2, M, 1, 3 * MS),
             ('early_reduce', 0, M, 1, 2 * MS),
             ('omp_barrier', 2, M, 1, 5 * MS), ('omp_barrier', 2, T, 1, 300000)]
COMMS = [('late_sender', WORLD, 2, 14 * MS), ('wrong_order', WORLD, 1, 4 * MS),
         ('late_receiver', WORLD, 1, 1500000),
         ('wait_barrier', WORLD, 2, 10 * MS), ('wait_nxn', WORLD, 2, 13 * MS),
         ('late_broadcast', WORLD, 2, 7 * MS), ('early_reduce', WORLD, 1, 2 * MS),
         ('omp_barrier', TEAM, 2, 5 * MS + 300000)]
NAMES = ['Late Sender', 'Late Sender, Wrong Order', 'Late Receiver', 'Wait at Barrier', 'Wait at NxN', 'Late Broadcast',
         'Early Reduce', 'OpenMP barrier wait']


def check_by_hand(t, path):
    code, w, err = profile_json(t, '--waits', 'by hand', path)
    t.eq((code, err), (0, ''), 'by hand: exit 0, nothing on stderr')
    if not w:
        return
    t.eq({p['pattern']: (p['instances'], p['time_ticks']) for p in w['patterns']}, PATTERNS,
         'by hand: per pattern the instances and time')
    t.eq([p['name'] for p in w['patterns']], NAMES, 'by hand: the patterns in their order')
    t.eq(w['total_ticks'], sum(v[1] for k, v in PATTERNS.items() if k != 'wrong_order'),
         'by hand: the total, without Wrong Order (a part of Late Sender)')
    t.eq([(c['pattern'], c['path'], c['instances'], c['time_ticks']) for c in w['call_paths']],
         PATHS, 'by hand: per call path')
    t.eq([(c['pattern'], c['rank'], c['name'], c['instances'], c['time_ticks'])
          for c in w['locations']], LOCATIONS, 'by hand: per location')
    t.eq([(c['pattern'], c['name'], c['instances'], c['time_ticks'])
          for c in w['communicators']], COMMS, 'by hand: per communicator')
    # Text: one line per pattern with its name and time, then the three breakdowns.
    code, out, err = profile('--waits', path)
    t.eq((code, err), (0, ''), 'by hand, text: exit 0')
    lines = out.splitlines()
    want = [('Late Sender', '14.000 ms'), ('Late Sender, Wrong Order', '4.000 ms'),
            ('Late Receiver', '1.500 ms'),
            ('Wait at Barrier', '10.000 ms'), ('Wait at NxN', '13.000 ms'),
            ('Late Broadcast', '7.000 ms'), ('Early Reduce', '2.000 ms'),
            ('OpenMP barrier wait', '5.300 ms')]
    for name, time in want:
        first = next((l for l in lines if l.startswith('  %s  ' % name)), '')
        t.check(time in first, 'by hand, text: the pattern line %s, %s' % (name, time), out)
    t.check('Wait states of %s: 52.800 ms waiting in all' % path in out,
            'by hand, text: the summary line', out)
    t.check(any('Late Sender' in l and 'main > exchange > MPI_Recv' in l for l in lines)
            and any('Early Reduce' in l and 'MPI_COMM_WORLD' in l for l in lines)
            and any('OpenMP barrier wait' in l and 'OpenMP thread 1 (MPI Rank 2)' in l
                    for l in lines),
            'by hand, text: the breakdowns name path, location and communicator', out)
    # CSV: the same numbers.
    code, out, err = profile('--waits', '--format', 'csv', path)
    rows = list(csv.reader(io.StringIO(out)))
    t.eq((code, rows[0] if rows else None),
         (0, ['section', 'pattern', 'path', 'location', 'rank', 'communicator', 'instances',
              'time_ticks', 'time_s']), 'by hand, CSV: exit 0, the header')
    t.eq({r[1]: (int(r[6]), int(r[7])) for r in rows[1:] if r[0] == 'pattern'}, PATTERNS,
         'by hand, CSV: per pattern')
    t.eq([(r[1], r[2].split(';'), int(r[6]), int(r[7])) for r in rows if r[0] == 'path'],
         PATHS, 'by hand, CSV: per call path')
    t.eq([(r[1], int(r[4]), int(r[6]), int(r[7])) for r in rows if r[0] == 'location'],
         [(p, r, n, x) for p, r, _, n, x in LOCATIONS], 'by hand, CSV: per location')


def check_unmatched(t, path):
    code, w, err = profile_json(t, '--waits', 'unmatched send', path)
    t.check(code == 1 and len(err.splitlines()) == 1 and 'has no matching receive' in err,
            'unmatched send: one warning line, exit 1', repr((code, err)))
    t.check(w and w['problems'] == 1 and {p['pattern']: (p['instances'], p['time_ticks'])
                                          for p in w['patterns']} == PATTERNS,
            'unmatched send: one problem, the same waits', repr(w))


def check_omptrace(t, d):
    """test/lib/omptrace.py's trace (vt's OMPT names, two threads): IB1 entered at 260 and
    180 (thread 1 waits 80), B2 at 620 and 680 (the master waits 60), IB2 at 700 and 710 (the
    master waits 10)."""
    path = omptrace.write(os.path.join(d, 'omp'))
    code, w, err = profile_json(t, '--waits', 'omptrace', path)
    t.eq((code, err), (0, ''), 'omptrace: exit 0')
    if not w:
        return
    t.eq([(c['pattern'], c['path'], c['instances'], c['time_ticks']) for c in w['call_paths']],
         [('omp_barrier', [omptrace.P1, omptrace.IB1], 1, 80),
          ('omp_barrier', ['main', omptrace.P2, omptrace.B2], 1, 60),
          ('omp_barrier', ['main', omptrace.P2, omptrace.IB2], 1, 10)],
         'omptrace: per barrier the thread that waited until the other entered')
    t.eq([(c['name'], c['instances'], c['time_ticks']) for c in w['locations']],
         [(omptrace.MASTER, 2, 70), (omptrace.WORKER, 1, 80)], 'omptrace: per thread')


def write_plain(path):
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        g = d.location_group('Process', system_tree_parent=d.system_tree_node('host'))
        w = trace.event_writer_from_location(d.location('Master thread', group=g))
        main = d.region('main')
        w(otf2.events.Enter(0, main))
        w(otf2.events.Leave(100, main))


def write_no_mpi_regions(path):
    """Rank 1 sends at 3 ms, rank 0 receives at 5 ms, both only inside main (no MPI region
    around the events): no call waited (main's Enter at 0 is not the receive's)."""
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        host = d.system_tree_node('host')
        locs = [d.location('Master thread', group=d.location_group(
            'MPI Rank %d' % r, system_tree_parent=host)) for r in range(2)]
        d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.MPI, members=locs)
        world = d.comm('MPI_COMM_WORLD', group=d.group(
            'MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
            paradigm=otf2.Paradigm.MPI, members=[0, 1]))
        main = d.region('main')
        for loc, e in ((locs[0], ev.MpiRecv(5 * MS, 1, world, 0, 4)),
                       (locs[1], ev.MpiSend(3 * MS, 0, world, 0, 4))):
            w = trace.event_writer_from_location(loc)
            w(ev.Enter(0, main))
            w(e)
            w(ev.Leave(10 * MS, main))


def check_bad_input(t, plain, by_hand):
    code, out, err = profile('--waits', plain)
    t.check(code == 0 and err == '' and out.startswith('Wait states of %s: none' % plain)
            and len(out.splitlines()) == 1,
            'no MPI: says there are no waits, exit 0', repr((code, out, err)))
    code, w, err = profile_json(t, '--waits', 'no MPI', plain)
    t.check(code == 0 and w and w['total_ticks'] == 0 and not w['call_paths']
            and not w['locations'] and not w['communicators']
            and all(p['time_ticks'] == 0 for p in w['patterns']),
            'no MPI, JSON: every pattern 0, no rows', repr((code, w, err)))
    for args, text in [(['--waits', '--mpi'], 'exclude each other'),
                       (['--threads', '--waits'], 'exclude each other'),
                       (['--waits', '--per-location'], 'do not go with --waits'),
                       (['--waits', '--top', '3'], 'do not go with --waits')]:
        code, out, err = profile(*(args + [by_hand]))
        t.check(code == 2 and out == '' and len(err.splitlines()) == 1 and text in err,
                'usage: %s: one line, exit 2' % ' '.join(args), repr((code, out, err)))
    bare = os.path.join(os.path.dirname(os.path.dirname(plain)), 'bare')
    write_no_mpi_regions(bare)
    code, w, err = profile_json(t, '--waits', 'no MPI regions', os.path.join(bare, 'traces.otf2'))
    t.check(code == 0 and w and w['total_ticks'] == 0 and not w['locations'],
            'messages outside MPI regions: the events\' own times, no wait',
            repr((code, w, err)))
    code, out, err = profile('--waits', '/nonexistent/x.otf2')
    t.check(code == 2 and len(err.splitlines()) == 1 and '/nonexistent/x.otf2' in err,
            'waits on a missing trace: one line naming it, exit 2', repr((code, err)))


def check_mpi_program(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'waits_prog', [t.source('waits_prog.c')], opt='-O0')
    r = vtmpi.mpirun(t, OPENMPI, 2, exe)
    vtmpi.clean_run(t, r, 'mpi program')
    tr = t.trace(r, 'mpi program')
    code, w, err = profile_json(t, '--waits', 'mpi program', tr.path)
    t.eq((code, err), (0, ''), 'mpi program: exit 0')
    if not w:
        return
    # What python3-otf2 reads: rank 0's MPI_Recv Enter, rank 1's late_work and MPI_Send Enters.
    enters = {}
    with otf2.reader.open(tr.path) as reader:
        res = reader.timer_resolution
        rank_of = {l._ref: int(l.group.name.rsplit(' ', 1)[-1]) for l in
                   reader.definitions.locations if l.group.name.startswith('MPI Rank')}
        for loc, ev in otf2events.events(reader):
            if isinstance(ev, otf2.events.Enter) and loc._ref in rank_of:
                enters.setdefault((rank_of[loc._ref], ev.region.name), ev.time)
    sleep = res * 300 // 1000  # the program's 300 ms
    if not ((0, 'MPI_Recv') in enters and (1, 'MPI_Send') in enters
            and (1, 'late_work') in enters):
        t.fail('mpi program: the Enters are there', repr(enters))
        return
    want = enters[(1, 'MPI_Send')] - enters[(0, 'MPI_Recv')]
    ls = [c for c in w['call_paths'] if c['pattern'] == 'late_sender']
    t.eq([(c['path'], c['instances'], c['time_ticks']) for c in ls],
         [(['main', 'MPI_Recv'], 1, want)],
         'mpi program: Late Sender in main > MPI_Recv: rank 1\'s send Enter - rank 0\'s '
         'receive Enter, as python3-otf2 reads them')
    # The sleep bounds it from below (less what rank 0 entered MPI_Recv after rank 1 began
    # sleeping), a generous bound from above.
    low = sleep - max(0, enters[(0, 'MPI_Recv')] - enters[(1, 'late_work')])
    t.check(low <= want <= sleep + 5 * res, 'mpi program: Late Sender between the sleep and '
            'the sleep + 5 s', 'late sender %d ticks, low %d, sleep %d' % (want, low, sleep))
    t.eq([(c['pattern'], c['rank']) for c in w['locations'] if c['pattern'] == 'late_sender'],
         [('late_sender', 0)], 'mpi program: the Late Sender is rank 0\'s')


def body(t):
    d = t.newdir('by-hand')
    write_waits(os.path.join(d, 'waits'))
    write_plain(os.path.join(d, 'plain'))
    by_hand = os.path.join(d, 'waits', 'traces.otf2')
    check_by_hand(t, by_hand)
    write_waits(os.path.join(d, 'unmatched'), unmatched=True)
    check_unmatched(t, os.path.join(d, 'unmatched', 'traces.otf2'))
    check_omptrace(t, d)
    check_bad_input(t, os.path.join(d, 'plain', 'traces.otf2'), by_hand)
    check_mpi_program(t)


if __name__ == '__main__':
    vttest.main('profile_waits', body)
