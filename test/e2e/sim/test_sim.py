# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sim": vt-sim replays a traced MPI program (simprog.c: ping-pong, a stencil with
Irecv/Isend and Waitall/Waitsome, collectives, a second thread; Open MPI, 4 ranks, and
MPICH, 2; and the suite's non-blocking collective, one-sided, MPI-I/O and OpenMP
programs) through
the shipped simulators, and every output is checked event by event with python3-otf2
against the times this test computes from the input trace and the rules of the simulator:

  - every event not at the end of a receive or a collective keeps its original distance to
    the event before it on its location (a changed end shifts the rest of the thread);
  - identity: every event at its original time;
  - ideal: a receive ends at max(its start, its send's start); a collective member leaves
    when the last member entered;
  - latbw:L,B: a receive ends at max(receive start, send start + round((L + size/B) ticks));
  - scale 0.5 on 'compute': compute takes half its time, and every receive and collective
    end follows the default rule (the original wait past the later of its start and its
    partners' starts, kept from the new later one), so the waits of the ranks that depend on
    rank 0 shrink.
Events inside a call that ends earlier move to its end. Each output is also read by
otf2-print (same counts) and checked balanced, time-ordered, no receive before its send."""

import collections
import os
import subprocess

import otf2

import otf2events
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI
from vttest import Failure

VT_SIM = os.environ.get('VT_SIM', '')
NP = 4
RECV_REGIONS = ('MPI_Recv', 'MPI_Waitall', 'MPI_Waitsome', 'MPI_Wait', 'MPI_Sendrecv')


class Ev:
    __slots__ = ('kind', 'time', 'region', 'ev')

    def __init__(self, kind, time, region, ev):
        self.kind, self.time, self.region, self.ev = kind, time, region, ev


def read(path):
    """{location ref: [Ev]}, {world rank: location ref}, clock resolution."""
    locs = collections.OrderedDict()
    rank_loc = {}
    with otf2.reader.open(path, batch_events=10000) as r:
        defs = r.definitions
        res = defs.clock_properties.timer_resolution
        for l in defs.locations:
            locs[l._ref] = []
            name = l.group.name
            if name.startswith('MPI Rank ') and int(name[9:]) not in rank_loc:
                rank_loc[int(name[9:])] = l._ref
        for l, ev in otf2events.events(r):
            kind = type(ev).__name__
            region = ev.region.name if kind in ('Enter', 'Leave') else None
            locs[l._ref].append(Ev(kind, ev.time, region, ev))
    return locs, rank_loc, res


class Structure:
    """What the input says: per location the region instances, the messages with their
    send and receive calls, the collectives with their members (indexes into the lists)."""

    def __init__(self, locs, rank_loc):
        self.locs = locs
        self.enter_of = {}  # (loc, leave index) -> enter index
        self.parent_leave = {}  # (loc, inner event index) -> leave index of its region
        self.recv_msgs = collections.defaultdict(list)  # (loc, leave idx) -> [msg]
        self.coll_of = {}  # (loc, leave idx) -> (collective key, member index)
        self.colls = collections.defaultdict(dict)  # key -> {member: (loc, enter, leave)}
        self.msgs = []
        self.ssend = {}  # (loc, leave idx of an MPI_Ssend) -> its message
        sends = collections.defaultdict(collections.deque)
        recvs = collections.defaultdict(collections.deque)
        rank_of = {v: k for k, v in rank_loc.items()}
        seq = collections.Counter()
        for loc, evs in locs.items():
            stack = []
            for i, e in enumerate(evs):
                if e.kind == 'Enter':
                    stack.append(i)
                elif e.kind == 'Leave':
                    self.enter_of[(loc, i)] = stack.pop()
            # inner events -> the Leave of their innermost region
            opened = []
            for i, e in enumerate(evs):
                if e.kind == 'Enter':
                    opened.append([i, []])
                elif e.kind == 'Leave':
                    ent, inner = opened.pop()
                    for k in inner:
                        self.parent_leave[(loc, k)] = i
                elif opened:
                    opened[-1][1].append(i)
        # Messages FIFO per (communicator, sender, receiver, tag), ranks in the
        # communicator; locations one by one suffices, as each key's sends (receives) all
        # come from one location.
        def crank(comm, loc):
            members = [m._ref for m in comm.group.members]
            return members.index(loc) if members else 0

        for loc, evs in locs.items():
            for i, e in enumerate(evs):
                leave = self.parent_leave.get((loc, i))
                enter = self.enter_of.get((loc, leave)) if leave is not None else None
                if e.kind in ('MpiSend', 'MpiIsend'):
                    c = e.ev.communicator
                    key = (c._ref, crank(c, loc), e.ev.receiver, e.ev.msg_tag)
                    m = {'sloc': loc, 'send_enter': enter, 'bytes': e.ev.msg_length}
                    if e.kind == 'MpiSend' and evs[enter].region == 'MPI_Ssend':
                        self.ssend[(loc, leave)] = m
                    if recvs[key]:
                        r = recvs[key].popleft()
                        r.update(m)
                        m.update(r)
                        self.msgs.append(r)
                    else:
                        sends[key].append(m)
                elif e.kind in ('MpiRecv', 'MpiIrecv'):
                    c = e.ev.communicator
                    key = (c._ref, e.ev.sender, crank(c, loc), e.ev.msg_tag)
                    m = {'rloc': loc, 'recv_enter': enter, 'recv_leave': leave}
                    self.recv_msgs[(loc, leave)].append(m)
                    if sends[key]:
                        sm = sends[key].popleft()
                        sm.update(m)
                        m.update(sm)
                        self.msgs.append(m)
                    else:
                        recvs[key].append(m)
                elif e.kind == 'MpiCollectiveEnd':
                    c = e.ev.communicator._ref
                    if not e.ev.communicator.group.members:
                        c = (c, loc)  # MPI_COMM_SELF: each location's own
                    k = (c, seq[(c, loc)])
                    seq[(c, loc)] += 1
                    self.coll_of[(loc, leave)] = k
                    self.colls[k][crank(e.ev.communicator, loc)] = (
                        loc, enter, leave, e.ev.collective_op, e.ev.root)
        self.unmatched = sum(len(q) for q in sends.values()) + \
            sum(len(q) for q in recvs.values())


def expected(st, orig, out, rule, scaled=None, first=None):
    """The times the output must have: a list per location, computed event by event from
    the input's times, the output's own earlier times (of this and the partner locations)
    and rule(kind, data) for the ends of receives and collectives; scaled: (region, factor)
    of a leaf region whose time the simulator scales; first: the time of every location's
    first event (default: as recorded)."""
    want = {}
    for loc, evs in orig.items():
        o = out[loc]
        w = []
        for i, e in enumerate(evs):
            if i == 0:
                w.append(e.time if first is None else first)
                continue
            t = o[i - 1].time + (e.time - evs[i - 1].time)
            if e.kind == 'Leave' and ((loc, i) in st.recv_msgs or (loc, i) in st.coll_of):
                t = rule(st, orig, out, loc, i)
            elif e.kind == 'Leave' and (loc, i) in st.ssend:
                # a synchronous send: the original time past the later of its start and its
                # receive's start, from the new later one (no simulator here changes it)
                m = st.ssend[(loc, i)]
                enter = st.enter_of[(loc, i)]
                dn = max(out[loc][enter].time, out[m['rloc']][m['recv_enter']].time)
                do = max(evs[enter].time, orig[m['rloc']][m['recv_enter']].time)
                if e.time >= do:
                    t = dn + (e.time - do)
            elif e.kind == 'Leave' and scaled and e.region == scaled[0]:
                enter = st.enter_of[(loc, i)]
                t = out[loc][enter].time + int((e.time - evs[enter].time) * scaled[1] + 0.5)
            w.append(t)
        # events inside a receive or collective call: no later than its end
        for i, e in enumerate(evs):
            leave = st.parent_leave.get((loc, i))
            if e.kind != 'Enter' and leave is not None and w[i] > w[leave]:
                w[i] = w[leave]
        want[loc] = w
    return want


def recv_parts(st, orig, out, loc, i):
    """Per message of the receive ending at (loc, i): (new recv start, new send start,
    original recv start, original send start, bytes)."""
    enter = st.enter_of[(loc, i)]
    parts = []
    for m in st.recv_msgs[(loc, i)]:
        s = m['sloc']
        parts.append((out[loc][enter].time, out[s][m['send_enter']].time,
                      orig[loc][enter].time, orig[s][m['send_enter']].time, m['bytes']))
    return parts


def coll_parts(st, orig, out, loc, i):
    k = st.coll_of[(loc, i)]
    members = st.colls[k]
    return [(out[l][en].time, orig[l][en].time) for l, en, lv, op, root in members.values()]


def default_rule(st, orig, out, loc, i):
    """The framework's own rule: the original time past the later of the call's start and
    its partners' starts, from the new later one."""
    o_end = orig[loc][i].time
    if (loc, i) in st.recv_msgs:
        end = None
        for ns, nsend, os_, osend, _ in recv_parts(st, orig, out, loc, i):
            e = max(ns, nsend) + (o_end - max(os_, osend))
            end = e if end is None else max(end, e)
        return end
    parts = coll_parts(st, orig, out, loc, i)
    k = st.coll_of[(loc, i)]
    members = st.colls[k]
    me = [m for m, v in members.items() if v[0] == loc][0]
    op = members[me][3]
    root = members[me][4]
    name = str(op).rsplit('.', 1)[-1]
    starts = {m: (out[v[0]][v[1]].time, orig[v[0]][v[1]].time) for m, v in members.items()}
    if name in ('BCAST', 'SCATTER', 'SCATTERV'):
        deps = [me, root]
    elif name in ('GATHER', 'GATHERV', 'REDUCE'):
        deps = list(members) if me == root else [me]
    else:
        deps = list(members)
    # a member that entered after this one left is no dependency (neighbourhood collectives)
    deps = [d for d in deps if starts[d][1] <= o_end]
    dn = max(starts[d][0] for d in deps)
    do = max(starts[d][1] for d in deps)
    return dn + (o_end - do)


def ideal_rule(st, orig, out, loc, i):
    if (loc, i) in st.recv_msgs:
        return max(max(ns, nsend) for ns, nsend, _, _, _ in recv_parts(st, orig, out, loc, i))
    return max(ns for ns, _ in coll_parts(st, orig, out, loc, i))


def latbw_rule(L, B, ticks):
    def transfer(n):
        return int((L + n / B) * ticks + 0.5)

    def rule(st, orig, out, loc, i):
        if (loc, i) in st.recv_msgs:
            return max(max(ns, nsend + transfer(n))
                       for ns, nsend, _, _, n in recv_parts(st, orig, out, loc, i))
        k = st.coll_of[(loc, i)]
        size = 0
        for l, en, lv, op, root in st.colls[k].values():
            # the members' bytes: from their MpiCollectiveEnd events
            for e in orig[l][en:lv]:
                if e.kind == 'MpiCollectiveEnd':
                    size = max(size, e.ev.size_sent, e.ev.size_received)
        steps = (len(st.colls[k]) - 1).bit_length()
        return max(ns for ns, _ in coll_parts(st, orig, out, loc, i)) + steps * transfer(size)
    return rule


def check_output(t, st, orig, path, rule, what, scaled=None, first=None):
    """The output read by python3-otf2 and otf2-print: complete, balanced, time-ordered,
    every event at the time computed here, no receive before its send."""
    tr = vttest.read_trace(path)
    for loc in tr.locations:
        t.check(not loc.problems, '%s: %s balanced, time-ordered' % (what, loc.name),
                '; '.join(loc.problems))
    t.cross_check_otf2_print(tr, what)
    out, _, _ = read(path)
    t.eq([(l, len(e)) for l, e in out.items()], [(l, len(e)) for l, e in orig.items()],
         '%s: every location has all its events' % what)
    t.eq([[e.kind for e in out[l]] for l in out], [[e.kind for e in orig[l]] for l in orig],
         '%s: the events are the input\'s, in the same order' % what)
    want = expected(st, orig, out, rule, scaled, first)
    bad = []
    for loc, evs in out.items():
        for i, e in enumerate(evs):
            if e.time != want[loc][i]:
                bad.append('loc %d event %d (%s %s): %d, computed %d' % (
                    loc, i, e.kind, e.region or '', e.time, want[loc][i]))
    t.eq(bad[:5], [], '%s: every event at the computed time (%d events)'
         % (what, sum(len(e) for e in out.values())))
    early = []
    for m in st.msgs:
        if 'rloc' not in m:
            continue
        s, r = m['sloc'], m['rloc']
        if out[r][m['recv_leave']].time < out[s][m['send_enter']].time:
            early.append(m)
    t.eq(len(early), 0, '%s: no receive ends before its send started' % what)
    return out


def run_sim(t, trace, sims, label, expect_ok=True):
    out = os.path.join(t.newdir(label), 'out.otf2')
    cmd = [VT_SIM, trace] + [x for s in sims for x in ('-s', s)] + ['-o', out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=300)
    print('vt-sim: %s -> %d\n%s%s' % (' '.join(cmd), p.returncode, p.stdout, p.stderr))
    if expect_ok and p.returncode != 0:
        raise Failure('%s: vt-sim failed: %s' % (label, p.stderr))
    return out, p


def durations(evs, name):
    out, stack = [], []
    for e in evs:
        if e.kind == 'Enter':
            stack.append(e)
        elif e.kind == 'Leave':
            b = stack.pop()
            if b.region == name:
                out.append(e.time - b.time)
    return out


def body(t):
    if not os.access(VT_SIM, os.X_OK):
        raise Failure('vt-sim is not built: %r' % VT_SIM)
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'simprog', ['simprog.c'], flags=['-pthread'])
    run = vtmpi.mpirun(t, OPENMPI, NP, exe)
    t.eq(run.status, 0, 'simprog ran')
    tr = t.trace(run, 'input', profile=False)
    trace = tr.path
    orig, rank_loc, res = read(trace)
    st = Structure(orig, rank_loc)
    t.eq(st.unmatched, 0, 'input: every message matched')
    t.eq([orig[m['rloc']][m['recv_enter']].region for m in st.ssend.values()], ['MPI_Recv'],
         'input: one MPI_Ssend, received by an MPI_Recv')
    kinds = collections.Counter(e.kind for evs in orig.values() for e in evs)
    regions = collections.Counter(e.region for evs in orig.values() for e in evs
                                  if e.kind == 'Enter')
    # The input has what the acceptance asks for: blocking and non-blocking p2p,
    # waitall/waitsome, collectives, a second thread per rank.
    for k in ('MpiSend', 'MpiRecv', 'MpiIsend', 'MpiIrecv', 'MpiCollectiveEnd'):
        t.check(kinds[k] > 0, 'input has %s events' % k)
    for r in ('MPI_Waitall', 'MPI_Waitsome', 'MPI_Allreduce', 'MPI_Barrier', 'MPI_Bcast',
              'MPI_Reduce', 'helper'):
        t.check(regions[r] > 0, 'input has %s' % r)
    t.eq(len(orig), 2 * NP, 'input has two threads per rank')

    # identity: every event at its original time, the definitions the same.
    out, p = run_sim(t, trace, ['identity'], 'identity')
    o = check_output(t, st, orig, out, default_rule, 'identity')
    t.eq([[e.time for e in o[l]] for l in o], [[e.time for e in orig[l]] for l in orig],
         'identity: every event of every location at its original time')
    a = subprocess.run(['otf2-print', '-G', trace], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    b = subprocess.run(['otf2-print', '-G', out], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    t.eq(b, a, 'identity: otf2-print -G prints the same definitions')
    a = subprocess.run(['otf2-print', trace], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    b = subprocess.run(['otf2-print', out], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    t.eq(b.splitlines()[2:], a.splitlines()[2:], 'identity: otf2-print prints the same events')
    t.check('messages' in p.stdout and 'regions changed most (exclusive time, s): none'
            in p.stdout, 'identity: the summary says nothing changed', p.stdout)

    # ideal: no transfer takes time.
    out, p = run_sim(t, trace, ['ideal'], 'ideal')
    o = check_output(t, st, orig, out, ideal_rule, 'ideal')
    waste = 0
    for (loc, i), ms in st.recv_msgs.items():
        for ns, nsend, _, _, _ in recv_parts(st, orig, o, loc, i):
            waste += o[loc][i].time - max(ns, nsend) if len(ms) == 1 else 0
    t.eq(waste, 0, 'ideal: total transfer time of the single-message receives is zero')
    pp = [d for d in durations(o[rank_loc[1]], 'MPI_Recv')]
    t.check(pp, 'ideal: rank 1 has ping-pong receives')
    # the Ssend waited for rank 1's late receive: it still ends after that receive started
    for (loc, i), m in st.ssend.items():
        t.check(o[loc][i].time >= o[m['rloc']][m['recv_enter']].time,
                'ideal: the MPI_Ssend ends after its receive started')

    # latbw with L = 20 us, B = 100 MB/s.
    L, B = 20e-6, 1e8
    out, p = run_sim(t, trace, ['latbw:L=%g,B=%g' % (L, B)], 'latbw')
    check_output(t, st, orig, out, latbw_rule(L, B, 1.0 / (1.0 / res)), 'latbw')

    # scale 0.5 on compute: half its time; the waits of the others follow.
    out, p = run_sim(t, trace, ['scale:pattern=compute,factor=0.5'], 'scale')
    o = check_output(t, st, orig, out, default_rule, 'scale', ('compute', 0.5))
    for r in range(NP):
        before = durations(orig[rank_loc[r]], 'compute')
        after = durations(o[rank_loc[r]], 'compute')
        t.eq(after, [int(d * 0.5 + 0.5) for d in before],
             'scale: rank %d: every compute takes half its time' % r)
    # The waits: the receives and collectives of ranks 1.. end where the rules above put
    # them, so their durations change with the partners' new starts (how much depends on
    # who waited for whom in this run; the exact times are checked above).
    for r in range(1, NP):
        loc = rank_loc[r]
        changed = [i for i in range(len(orig[loc]))
                   if ((loc, i) in st.recv_msgs or (loc, i) in st.coll_of) and
                   o[loc][i].time - o[loc][st.enter_of[(loc, i)]].time !=
                   orig[loc][i].time - orig[loc][st.enter_of[(loc, i)]].time]
        t.check(changed, 'scale: rank %d: waits changed (%d receive/collective calls)'
                % (r, len(changed)))
    t.check('compute' in p.stdout.split('regions changed most')[1],
            'scale: the summary lists compute among the regions changed most', p.stdout)

    # vt-profile --compare: compute's row, from the two traces as computed here.
    p = subprocess.run([vttest.VT_PROFILE, '--compare', trace, out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    print(p.stdout, p.stderr)
    t.eq(p.returncode, 0, 'vt-profile --compare input scale-output: exit 0')
    n = sum(len(durations(orig[rank_loc[r]], 'compute')) for r in range(NP))
    ea = sum(sum(durations(orig[rank_loc[r]], 'compute')) for r in range(NP)) / res
    eb = sum(sum(durations(o[rank_loc[r]], 'compute')) for r in range(NP)) / res
    row = [x.split() for x in p.stdout.splitlines() if x.startswith('compute ')]
    t.eq(row[0][:6] if row else None,
         ['compute', str(n), str(n), '%.9f' % ea, '%.9f' % eb, '%+.9f' % (eb - ea)],
         'vt-profile --compare: compute\'s calls and exclusive time before and after')
    locs = [x for x in p.stdout.splitlines() if x.startswith('MPI Rank ')]
    t.eq(len(locs), len(orig), 'vt-profile --compare: a line per location')
    # -l: per location; rank 1's compute row
    p = subprocess.run([vttest.VT_PROFILE, '--compare', '-l', trace, out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    lines = p.stdout.splitlines()
    block = lines.index('MPI Rank 1 Master thread:') if 'MPI Rank 1 Master thread:' in lines \
        else None
    row = None
    if block is not None:
        row = next((x.split() for x in lines[block + 1:] if x.startswith('  compute ')), None)
    db = durations(orig[rank_loc[1]], 'compute')
    da = durations(o[rank_loc[1]], 'compute')
    t.eq(row[:5] if row else None, ['compute', str(len(db)), str(len(da)),
                                    '%.9f' % (sum(db) / res), '%.9f' % (sum(da) / res)],
         'vt-profile --compare -l: rank 1\'s compute before and after')

    # nonoise: every thread starts at the trace's start, then runs by the default rules.
    out, p = run_sim(t, trace, ['nonoise'], 'nonoise')
    with otf2.reader.open(trace) as r:
        start = r.definitions.clock_properties.global_offset
    o = check_output(t, st, orig, out, default_rule, 'nonoise', first=start)
    t.check(any(orig[l][0].time != start for l in orig),
            'nonoise: some thread started after the trace in the input')

    # Metrics and calling-context samples (getrusage counters at every event, samples every
    # 250 us, 2 ranks): identity keeps every one, definitions and all; ideal moves them
    # with their location (into no later than the end of the call they are in).
    run = vtmpi.mpirun(t, OPENMPI, 2, exe, env={'VT_RUSAGE': 'utime:minflt',
                                                 'VT_RUSAGE_INTV': '0', 'VT_SAMPLING': 'yes',
                                                 'VT_SAMPLING_PERIOD': '250us'},
                       label='run-metrics')
    t.eq(run.status, 0, 'simprog ran with metrics and sampling')
    mtrace = t.trace(run, 'metrics input', profile=False).path
    morig, mrank_loc, _ = read(mtrace)
    mst = Structure(morig, mrank_loc)
    mkinds = collections.Counter(e.kind for evs in morig.values() for e in evs)
    t.check(mkinds['Metric'] > 0 and mkinds['CallingContextSample'] > 0,
            'metrics input has Metric and CallingContextSample events', repr(mkinds))
    out, p = run_sim(t, mtrace, ['identity'], 'metrics-identity')
    o = check_output(t, mst, morig, out, default_rule, 'metrics identity')
    t.eq([[e.time for e in o[l]] for l in o], [[e.time for e in morig[l]] for l in morig],
         'metrics identity: every event at its original time')
    a = subprocess.run(['otf2-print', '-G', mtrace], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    b = subprocess.run(['otf2-print', '-G', out], stdout=subprocess.PIPE,
                       universal_newlines=True).stdout
    t.eq(b, a, 'metrics identity: otf2-print -G prints the same definitions')
    t.check('note: %d metric events re-timed' % mkinds['Metric'] in p.stdout,
            'metrics identity: the summary notes the metric events', p.stdout)
    out, p = run_sim(t, mtrace, ['ideal'], 'metrics-ideal')
    check_output(t, mst, morig, out, ideal_rule, 'metrics ideal')

    # MPICH's trace of the same program (2 ranks: its ranks busy-wait): identity and ideal.
    if vtmpi.runtime_built(MPICH):
        mexe = vtmpi.compile(t, MPICH, 'simprog', ['simprog.c'], flags=['-pthread'])
        run = vtmpi.mpirun(t, MPICH, 2, mexe, label='run-mpich')
        t.eq(run.status, 0, 'simprog ran with MPICH')
        htrace = t.trace(run, 'MPICH input', profile=False).path
        horig, hrank_loc, _ = read(htrace)
        hst = Structure(horig, hrank_loc)
        t.eq(hst.unmatched, 0, 'MPICH input: every message matched')
        out, p = run_sim(t, htrace, ['identity'], 'mpich-identity')
        o = check_output(t, hst, horig, out, default_rule, 'MPICH identity')
        t.eq([[e.time for e in o[l]] for l in o], [[e.time for e in horig[l]] for l in horig],
             'MPICH identity: every event at its original time')
        out, p = run_sim(t, htrace, ['ideal'], 'mpich-ideal')
        check_output(t, hst, horig, out, ideal_rule, 'MPICH ideal')
    else:
        t.note('vt\'s MPICH runtime is not built: MPICH case skipped')

    # Other programs of the suite, whose traces hold non-blocking collectives, one-sided
    # communication, MPI-I/O and OpenMP threads: identity keeps every event and definition;
    # ideal moves them as computed (what it does not link moves with its location).
    others = [('mpi_p2p', True), ('mpi_coll', True), ('mpi_nbc', True), ('mpi_rma', True),
              ('mpi_io', True), ('openmp', False)]
    for prog, mpi in others:
        src = os.path.join('..', prog, prog + '.c')
        if mpi:
            pexe = vtmpi.compile(t, OPENMPI, prog, [src])
            args = [os.path.join(t.newdir('io'), 'data')] if prog == 'mpi_io' else []
            run = vtmpi.mpirun(t, OPENMPI, 4, pexe, args=args, label='run-' + prog)
        else:
            pexe = t.compile(prog, [src], opt='-O1', flags=['-fopenmp'])
            run = t.run(pexe, env={'OMP_NUM_THREADS': '2'}, label='run-' + prog)
        t.eq(run.status, 0, '%s ran' % prog)
        ptrace = t.trace(run, prog + ' input', profile=False).path
        porig, prank_loc, _ = read(ptrace)
        pst = Structure(porig, prank_loc)
        out, p = run_sim(t, ptrace, ['identity'], prog + '-identity')
        o = check_output(t, pst, porig, out, default_rule, prog + ' identity')
        t.eq([[e.time for e in o[l]] for l in o], [[e.time for e in porig[l]] for l in porig],
             '%s identity: every event at its original time' % prog)
        a = subprocess.run(['otf2-print', '-G', ptrace], stdout=subprocess.PIPE,
                           universal_newlines=True).stdout
        b = subprocess.run(['otf2-print', '-G', out], stdout=subprocess.PIPE,
                           universal_newlines=True).stdout
        t.eq(b, a, '%s identity: otf2-print -G prints the same definitions' % prog)
        out, p = run_sim(t, ptrace, ['ideal'], prog + '-ideal')
        check_output(t, pst, porig, out, ideal_rule, prog + ' ideal')

    # two simulators in a row: scale, then ideal on what scale left.
    out, p = run_sim(t, trace, ['scale:pattern=compute,factor=0.5', 'ideal'], 'chain')
    o = check_output(t, st, orig, out, ideal_rule, 'scale+ideal', ('compute', 0.5))
    for r in range(NP):
        t.eq(durations(o[rank_loc[r]], 'compute'),
             [int(d * 0.5 + 0.5) for d in durations(orig[rank_loc[r]], 'compute')],
             'scale+ideal: rank %d: compute halved' % r)


if __name__ == '__main__':
    vttest.main('sim', body)
