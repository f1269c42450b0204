# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile --call-tree, --mpi and --imbalance: exact numbers on traces written here with
python3-otf2 (worked out by hand), then on a vtcc-compiled program with a known call tree and an
MPI program (Open MPI, 4 ranks) with known message pairs and collectives, whose times are
recomputed from the events as python3-otf2 reads them."""
import collections
import csv
import io
import json
import os
import subprocess

import otf2events
import vtmpi
import vttest
from vtmpi import OPENMPI, ROOT_NONE
from vttest import otf2

VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')


def run(*args):
    p = subprocess.run([VT_PROFILE] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_json(t, what, *args):
    code, out, err = run('--format', 'json', *args)
    try:
        return code, json.loads(out), err
    except ValueError as e:
        t.fail('%s: JSON parses' % what, '%s\n%s%s' % (e, out, err))
        return code, None, err


# ---------------------------------------------------------------------------------------------
# Call paths, by hand. Location A: main [0,100] calls compute [10,60] (which calls fib [20,50],
# itself fib [30,40]), compute again [62,68] and io [70,90]; location B: compute [0,30] calls
# fib [5,25]. Paths are shared between locations only when the whole path is the same.
def write_calls(path):
    E, L = otf2.events.Enter, otf2.events.Leave
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        proc = d.location_group('Process 0', system_tree_parent=d.system_tree_node('node'))
        r = {n: d.region(n) for n in ('main', 'compute', 'fib', 'io')}
        w = trace.event_writer('A', group=proc)
        for time, name, enter in [(0, 'main', 1), (10, 'compute', 1), (20, 'fib', 1),
                                  (30, 'fib', 1), (40, 'fib', 0), (50, 'fib', 0),
                                  (60, 'compute', 0), (62, 'compute', 1), (68, 'compute', 0),
                                  (70, 'io', 1), (90, 'io', 0), (100, 'main', 0)]:
            w((E if enter else L)(time, r[name]))
        w = trace.event_writer('B', group=proc)
        for time, name, enter in [(0, 'compute', 1), (5, 'fib', 1), (25, 'fib', 0),
                                  (30, 'compute', 0)]:
            w((E if enter else L)(time, r[name]))


# path: (calls, incl, excl), in the order of the output (siblings by inclusive time)
CALLS = [
    (('main',), (1, 100, 100 - 56 - 20)),
    (('main', 'compute'), (2, 50 + 6, 20 + 6)),
    (('main', 'compute', 'fib'), (1, 30, 20)),
    (('main', 'compute', 'fib', 'fib'), (1, 10, 10)),
    (('main', 'io'), (1, 20, 20)),
    (('compute',), (1, 30, 10)),
    (('compute', 'fib'), (1, 20, 20)),
]


def check_call_tree_by_hand(t, path):
    code, prof, err = run_json(t, 'call tree', '--call-tree', path)
    t.eq((code, err), (0, ''), 'call tree: exit 0, nothing on stderr')
    if prof:
        got = [(tuple(p['path']), (p['calls'], p['incl_ticks'], p['excl_ticks']))
               for p in prof['paths']]
        t.eq(got, CALLS, 'call tree: every path with its calls, inclusive and exclusive time')
        byid = {p['id']: p for p in prof['paths']}
        t.check(all(p['parent'] == 0 or byid[p['parent']]['path'] == p['path'][:-1]
                    for p in prof['paths']), 'call tree: parents are the paths one shorter')
    # --depth 2: main > compute takes in what lies below it; deeper paths are not shown.
    code, prof, err = run_json(t, 'depth 2', '--call-tree', '--depth', '2', path)
    if prof:
        want = [(p, (c, i, i if len(p) == 2 else e)) for p, (c, i, e) in CALLS if len(p) <= 2]
        t.eq([(tuple(p['path']), (p['calls'], p['incl_ticks'], p['excl_ticks']))
              for p in prof['paths']], want, 'call tree --depth 2: paths folded at depth 2')
        t.eq(prof['depth_limit'], 2, 'call tree --depth 2: the limit in the JSON')
    code, out, err = run('--call-tree', '--format', 'csv', path)
    rows = list(csv.DictReader(io.StringIO(out)))
    t.eq([(tuple(r['path'].split(';')), (int(r['calls']), int(r['incl_ticks']),
                                          int(r['excl_ticks']))) for r in rows], CALLS,
         'call tree CSV: the same paths and numbers')
    code, out, err = run('--call-tree', path)
    lines = out.splitlines()
    t.check(len(lines) == 3 + len(CALLS) and lines[3].endswith('  main') and
            lines[4].endswith('    compute') and lines[6].endswith('        fib'),
            'call tree text: one indented line per path', out)
    # Imbalance of the same trace: compute 56 on A, 30 on B; fib (outermost) 30 on A, 20 on B.
    code, prof, err = run_json(t, 'imbalance', '--imbalance', path)
    if prof:
        got = {r['name']: (r['locations'], r['min_ticks'], r['mean_ticks'], r['max_ticks'],
                           r['min_location'], r['max_location']) for r in prof['regions']}
        t.eq(got, {'main': (1, 100, 100.0, 100, 0, 0), 'compute': (2, 30, 43.0, 56, 1, 0),
                   'fib': (2, 20, 25.0, 30, 1, 0), 'io': (1, 20, 20.0, 20, 0, 0)},
             'imbalance: min, mean, max and where, per region')
        t.eq([r['name'] for r in prof['regions']], ['main', 'compute', 'fib', 'io'],
             'imbalance: regions by largest maximum')
        t.eq(round(prof['regions'][1]['imbalance_pct'], 4), round(100 * 13 / 56, 4),
             'imbalance: (max - mean) / max')


# ---------------------------------------------------------------------------------------------
# MPI by hand: 3 ranks. 0 -> 1 twice (100 and 200 bytes), 1 -> 2 once (8), 2 -> 0 once by
# Isend/Irecv (64); a barrier (members 30 + 25 + 21 ticks) and a broadcast from 0 of 40 bytes
# (10 + 14 + 18 ticks). With extra=True rank 0 also sends a message nobody receives.
def write_mpi(path, extra=False):
    ev = otf2.events
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        host = d.system_tree_node('host')
        groups = [d.location_group('MPI Rank %d' % r, system_tree_parent=host)
                  for r in range(3)]
        locs = [d.location('Master thread', group=g) for g in groups]
        d.group('MPI locations', group_type=otf2.GroupType.COMM_LOCATIONS,
                paradigm=otf2.Paradigm.MPI, members=locs)
        wg = d.group('MPI_COMM_WORLD', group_type=otf2.GroupType.COMM_GROUP,
                     paradigm=otf2.Paradigm.MPI, members=[0, 1, 2])
        world = d.comm('MPI_COMM_WORLD', group=wg)
        barrier, bcast = otf2.CollectiveOp.BARRIER, otf2.CollectiveOp.BCAST
        w = trace.event_writer_from_location(locs[0])
        w(ev.MpiSend(10, 1, world, 5, 100))
        w(ev.MpiSend(20, 1, world, 5, 200))
        w(ev.MpiIrecvRequest(30, 7))
        w(ev.MpiIrecv(60, 2, world, 3, 64, 7))
        if extra:
            w(ev.MpiSend(70, 2, world, 9, 1))
        w(ev.MpiCollectiveBegin(100))
        w(ev.MpiCollectiveEnd(130, barrier, world, ROOT_NONE, 0, 0))
        w(ev.MpiCollectiveBegin(200))
        w(ev.MpiCollectiveEnd(210, bcast, world, 0, 40, 0))
        w = trace.event_writer_from_location(locs[1])
        w(ev.MpiRecv(15, 0, world, 5, 100))
        w(ev.MpiRecv(25, 0, world, 5, 200))
        w(ev.MpiSend(40, 2, world, 7, 8))
        w(ev.MpiCollectiveBegin(105))
        w(ev.MpiCollectiveEnd(130, barrier, world, ROOT_NONE, 0, 0))
        w(ev.MpiCollectiveBegin(201))
        w(ev.MpiCollectiveEnd(215, bcast, world, 0, 0, 40))
        w = trace.event_writer_from_location(locs[2])
        w(ev.MpiRecv(45, 1, world, 7, 8))
        w(ev.MpiIsend(50, 0, world, 3, 64, 9))
        w(ev.MpiIsendComplete(55, 9))
        w(ev.MpiCollectiveBegin(110))
        w(ev.MpiCollectiveEnd(131, barrier, world, ROOT_NONE, 0, 0))
        w(ev.MpiCollectiveBegin(202))
        w(ev.MpiCollectiveEnd(220, bcast, world, 0, 0, 40))


MPI_PAIRS = [{'from': 0, 'to': 1, 'messages': 2, 'bytes': 300},
             {'from': 1, 'to': 2, 'messages': 1, 'bytes': 8},
             {'from': 2, 'to': 0, 'messages': 1, 'bytes': 64}]
MPI_KINDS = [{'kind': 'barrier', 'instances': 1, 'time_ticks': 76, 'sent': 0, 'received': 0},
             {'kind': 'bcast', 'instances': 1, 'time_ticks': 42, 'sent': 40, 'received': 80}]


def check_mpi_by_hand(t, path, bad):
    code, prof, err = run_json(t, 'mpi', '--mpi', path)
    t.eq((code, err), (0, ''), 'mpi: exit 0, nothing on stderr')
    if prof:
        t.eq(prof['pairs'], MPI_PAIRS, 'mpi: messages and bytes per pair of ranks')
        t.eq(prof['collective_kinds'], MPI_KINDS, 'mpi: instances, time, bytes per kind')
        t.eq((prof['messages'], prof['bytes'], prof['collectives'], prof['problems']),
             (4, 372, 2, 0), 'mpi: totals')
    code, out, err = run('--mpi', '--format', 'csv', path)
    rows = list(csv.DictReader(io.StringIO(out)))
    t.eq([(r['section'], r['from'], r['to'], r['kind'], r['count'], r['bytes'],
           r['received_bytes'], r['time_ticks']) for r in rows],
         [('p2p', '0', '1', '', '2', '300', '300', ''), ('p2p', '1', '2', '', '1', '8', '8', ''),
          ('p2p', '2', '0', '', '1', '64', '64', ''),
          ('collective', '', '', 'barrier', '1', '0', '0', '76'),
          ('collective', '', '', 'bcast', '1', '40', '80', '42')], 'mpi CSV: the same rows')
    code, out, err = run('--mpi', path)
    t.check(code == 0 and 'MPI profile of %s: 4 messages, 372 bytes; 2 collectives' % path in out
            and ' bcast ' in out, 'mpi text: the summary line and the kinds', out)
    # A send without its receive: a warning on stderr, exit 1, the matched ones unchanged.
    code, prof, err = run_json(t, 'mpi, unmatched send', '--mpi', bad)
    t.eq(code, 1, 'mpi, unmatched send: exit 1')
    t.check(len(err.splitlines()) == 1 and 'has no matching receive' in err,
            'mpi, unmatched send: one warning line', err)
    if prof:
        t.eq((prof['pairs'], prof['problems']), (MPI_PAIRS, 1),
             'mpi, unmatched send: the matched messages as before, one problem')


# ---------------------------------------------------------------------------------------------
# What python3-otf2 reads: call paths, per-location inclusive time, collectives.
def paths_from_events(path):
    paths = collections.defaultdict(lambda: [0, 0, 0])
    incl = collections.defaultdict(lambda: collections.defaultdict(int))
    stacks = collections.defaultdict(list)
    with otf2.reader.open(path) as reader:
        for loc, ev in otf2events.events(reader):
            st = stacks[loc._ref]
            if isinstance(ev, otf2.events.Enter):
                p = (st[-1][0] if st else ()) + (ev.region.name,)
                paths[p][0] += 1
                st.append([p, ev.time, 0])
            elif isinstance(ev, otf2.events.Leave):
                p, begin, child = st.pop()
                dur = ev.time - begin
                paths[p][1] += dur
                paths[p][2] += dur - child
                if st:
                    st[-1][2] += dur
                if p[-1] not in [f[0][-1] for f in st]:
                    incl[ev.region.name][loc._ref] += dur
    return {p: tuple(v) for p, v in paths.items()}, incl


def check_program(t):
    exe = t.compile('calltree_prog', [t.source('calltree_prog.c')], opt='-O0')
    r = t.run(exe)
    tr = t.trace(r, 'call tree program')
    code, prof, err = run_json(t, 'call tree program', '--call-tree', tr.path)
    t.eq((code, err), (0, ''), 'call tree program: exit 0')
    if not prof:
        return
    got = {tuple(p['path']): (p['calls'], p['incl_ticks'], p['excl_ticks'])
           for p in prof['paths']}
    m, w, f, l = 'main', 'work', 'fib', 'leaf'
    calls = {(m,): 1, (m, w): 3, (m, w, l): 12, (m, f): 1, (m, f, f): 2, (m, f, f, f): 2,
             (m, f, f, l): 1, (m, f, f, f, l): 2}
    t.eq({p: v[0] for p, v in got.items()}, calls, 'call tree program: the calls of each path')
    want, incl = paths_from_events(tr.path)
    t.eq(got, want, 'call tree program: the times python3-otf2 gives')
    t.eq(sum(v[2] for v in got.values()), got[(m,)][1],
         'call tree program: exclusive times add up to main\'s inclusive time')


def check_mpi_program(t):
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'mpi_pairs', [t.source('mpi_pairs.c')])
    r = vtmpi.mpirun(t, OPENMPI, 4, exe)
    vtmpi.clean_run(t, r, 'mpi program')
    tr = t.trace(r, 'mpi program')
    code, prof, err = run_json(t, 'mpi program', '--mpi', tr.path)
    t.eq((code, err), (0, ''), 'mpi program: exit 0')
    if not prof:
        return
    t.eq([(p['from'], p['to'], p['messages'], p['bytes']) for p in prof['pairs']],
         [(r, (r + 1) % 4, r + 1, (r + 1) * 100 * (r + 1)) for r in range(4)],
         'mpi program: rank r sent r + 1 messages of 100 (r + 1) bytes to r + 1')
    # Collectives as python3-otf2 reads them: each member's end - begin.
    kinds = collections.defaultdict(lambda: [0, 0, 0, 0])
    begin = {}
    with otf2.reader.open(tr.path) as reader:
        for loc, ev in otf2events.events(reader):
            if isinstance(ev, otf2.events.MpiCollectiveBegin):
                begin[loc._ref] = ev.time
            elif isinstance(ev, otf2.events.MpiCollectiveEnd):
                k = kinds[str(ev.collective_op).rsplit('.', 1)[-1].lower()]
                k[0] += 1
                k[1] += ev.time - begin.pop(loc._ref)
                k[2] += ev.size_sent
                k[3] += ev.size_received
    got = {k['kind']: (k['instances'], k['time_ticks'], k['sent'], k['received'])
           for k in prof['collective_kinds']}
    t.eq(got, {k: (v[0] // 4, v[1], v[2], v[3]) for k, v in kinds.items()},
         'mpi program: per kind the instances, time and bytes python3-otf2 gives')
    t.eq({k: (v[0], v[2], v[3]) for k, v in got.items()},
         {'barrier': (3, 0, 0), 'allreduce': (2, 2 * 4 * 8, 2 * 4 * 8),
          'bcast': (1, 40, 3 * 40)}, 'mpi program: the program\'s collectives')
    # Imbalance: per region the inclusive time of each location, as python3-otf2 gives it.
    code, imb, err = run_json(t, 'mpi program imbalance', '--imbalance', tr.path)
    _, incl = paths_from_events(tr.path)
    if imb:
        got = {r['name']: (r['locations'], r['min_ticks'], r['max_ticks'], r['sum_ticks'])
               for r in imb['regions']}
        want = {n: (len(v), min(v.values()), max(v.values()), sum(v.values()))
                for n, v in incl.items()}
        t.eq(got, want, 'mpi program imbalance: min, max and sum over the 4 ranks')
        t.eq(got['MPI_Send'][0], 4, 'mpi program imbalance: MPI_Send on 4 locations')


def check_usage(t, path):
    for args, text in [(['--depth', '2', path], '--depth goes with --call-tree'),
                       (['--mpi', '--call-tree', path], 'exclude each other'),
                       (['-c', '--depth', 'x', path], "--depth: 'x' is not a count")]:
        code, out, err = run(*args)
        t.check(code == 2 and out == '' and len(err.splitlines()) == 1 and text in err,
                'usage: %s: one line, exit 2' % ' '.join(args[:-1]), repr((code, out, err)))
    code, out, err = run('--mpi', '/nonexistent/x.otf2')
    t.check(code == 2 and len(err.splitlines()) == 1 and '/nonexistent/x.otf2' in err,
            'mpi on a missing trace: one line naming it, exit 2', repr((code, err)))


def body(t):
    d = t.newdir('by-hand')
    write_calls(os.path.join(d, 'calls'))
    calls = os.path.join(d, 'calls', 'traces.otf2')
    check_call_tree_by_hand(t, calls)
    write_mpi(os.path.join(d, 'mpi'))
    write_mpi(os.path.join(d, 'mpi-bad'), extra=True)
    check_mpi_by_hand(t, os.path.join(d, 'mpi', 'traces.otf2'),
                      os.path.join(d, 'mpi-bad', 'traces.otf2'))
    check_usage(t, calls)
    check_program(t)
    check_mpi_program(t)


vttest.main('profile_modes', body)
