# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_ring": VT_MODE=ring in a 2-rank Open MPI run (mpi_ring.c). At MPI_Finalize the
unified trace holds each rank's last window, its open frames marked. VT_USER_SNAPSHOT()
midway on both ranks writes one snapshot of the job, NAME.snap-1 (the ranks' processes of
vt's meet through files, no MPI), unified like a run's trace: both locations' windows
start at the same time (their open frames marked there, MeasurementOnOff ON) and end at the
same time, fewer leaf calls than the run had by then, the property VT::SNAPSHOT. Asked by
rank 0 alone, the snapshot waits VT_SNAPSHOT_WAIT for rank 1's and then writes rank 0's
window alone to NAME.snap-1.rank0, with the property VT::MPI::RANK; each run goes on to its
own trace. mpi_ring_cut.c (Open MPI and MPICH): the job's window cuts a message and a
broadcast at each of its ends; exactly those four ends carry the attribute
vt::outside_window (1 sent before the window, 2 received after it, 3 a collective others
ended outside it), every other message is matched, and vt-profile finds nothing unmatched;
the run's own trace starts at one time on both ranks, the message and broadcast its start
cuts marked, and vt-profile --mpi matches every other."""

import os
import subprocess

import vtmpi
import vttest

ROUNDS, CALLS = 50, 2000  # mpi_ring.c
ATTR = 'vt::entered_before_window'
ENV = {'VT_MODE': 'ring', 'VT_BUFFER_SIZE': '64k', 'VT_RING_SIZE': '128k'}


def marks(path, ref):
    """The regions of location ref's Enters that carry ATTR (python3-otf2)."""
    import otf2
    out = []
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            if loc._ref == ref and type(ev).__name__ == 'Enter' and ev.attributes:
                if any(a.name == ATTR for a in ev.attributes):
                    out.append(ev.region.name)
    return out


# The calls of main (mpi_ring.c) a window can start in: their frames are marked after main's.
CALLS_OF_MAIN = ('leaf', 'MPI_Send', 'MPI_Recv', 'MPI_Barrier')


def framed(m):
    """main marked, and the call of main the window starts in, if it starts in one."""
    return m[:1] == ['main'] and len(m) <= 2 and all(f in CALLS_OF_MAIN for f in m[1:])


def window(path):
    """Per location: (first event time, last event time, MeasurementOnOff times) (python3-otf2)."""
    import otf2
    out = {}
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            first, last, onoff = out.get(loc._ref, (ev.time, ev.time, []))
            if type(ev).__name__ == 'MeasurementOnOff':
                onoff.append(ev.time)
            out[loc._ref] = (first, ev.time, onoff)
    return out


def final_trace(t, run, what):
    tr = t.trace(run, what + ': final trace', notice=False)
    t.eq(len(tr.locations), 2, '%s: two locations' % what)
    for loc in tr.locations:
        n = loc.enters.get('leaf', 0)
        t.check(0 < n < ROUNDS * CALLS, '%s: %s: the last of its leaf calls' % (what, loc.ref),
                repr(n))
        t.check(framed(marks(tr.path, loc.ref)),
                '%s: location %d: main marked (and the call the window starts in, if any)'
                % (what, loc.ref), repr(marks(tr.path, loc.ref)))
        t.eq([m for _, m in loc.onoff], ['ON'], '%s: location %d: one MeasurementOnOff(ON)'
             % (what, loc.ref))


def alone(t, impl, exe):
    """Rank 0 alone asks: after VT_SNAPSHOT_WAIT (1 s) its window is written alone."""
    what = 'openmpi np 2, VT_MODE=ring, snapshot of rank 0 alone'
    env = dict(ENV, VT_SNAPSHOT_WAIT='1')
    snap = 'mpi_ring.vt.snap-1.rank0'
    run = vtmpi.mpirun(t, impl, 2, exe, args=['alone', '../trace/%s.otf2' % snap], env=env,
                       timeout=180, label='alone')
    t.eq((run.status, run.lines), (0, ['rank 0 snapshot 0', 'rank 1 snapshot 0']),
         '%s: status 0, VT_USER_SNAPSHOT returned 0' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    t.check(any('snapshot 1: rank 1\'s writer did not come within 1 s (VT_SNAPSHOT_WAIT): the '
                'window of rank 0 is written alone' in w for w in run.warnings),
            '%s: one line says rank 1 did not come' % what, repr(run.warnings))
    t.check(any(w.startswith('warning: snapshot 1 (round 25) on rank 0: the trace of this rank '
                             'alone written to') for w in run.warnings),
            '%s: its line says where' % what, repr(run.warnings))
    final_trace(t, run, what)
    st = t.trace(run, what, prefix=snap, notice=False)
    t.eq(len(st.locations), 1, '%s: one location' % what)
    loc = st.locations[0]
    n = loc.enters.get('leaf', 0)
    t.check(0 < n < (ROUNDS // 2 + 1) * CALLS, '%s: leaf calls of the window then' % what,
            repr(n))
    t.check(framed(marks(st.path, loc.ref)),
            '%s: main marked (and the call the window starts in, if any)' % what,
            repr(marks(st.path, loc.ref)))
    props = vttest.otf2_properties(st.path)
    t.eq((props.get('VT::SNAPSHOT'), props.get('VT::MPI::RANK')), ('round 25', '0'),
         '%s: properties VT::SNAPSHOT and VT::MPI::RANK' % what)
    t.eq([n for n in os.listdir(run.gdir) if n.startswith('.')], [],
         '%s: nothing of the meeting left in the trace directory' % what)


CUT = 'vt::outside_window'


def mpi_events(path):
    """Per message or collective end: (location, kind, tag or None, the CUT value or None)."""
    import otf2
    out = []
    with otf2.reader.open(path) as reader:
        for loc, ev in reader.events:
            kind = type(ev).__name__
            if kind in ('MpiSend', 'MpiRecv', 'MpiCollectiveEnd'):
                a = {k.name: v for k, v in ev.attributes.items()} if ev.attributes else {}
                out.append((loc._ref, kind, getattr(ev, 'msg_tag', None), a.get(CUT)))
    return out


def cut(t, impl):
    """The window cuts a message and a broadcast at each end (mpi_ring_cut.c)."""
    vtmpi.require_runtime(impl)
    flags = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')]
    exe = vtmpi.compile(t, impl, 'mpi_ring_cut_%s' % impl.name, ['mpi_ring_cut.c'], opt='-O0',
                        flags=flags)
    what = '%s np 2, VT_MODE=ring, a window that cuts' % impl
    run = vtmpi.mpirun(t, impl, 2, exe, env=ENV, timeout=120, label='cut-%s' % impl.name)
    t.eq((run.status, run.lines), (0, ['rank 0 snapshot 0', 'rank 1 snapshot 0']),
         '%s: status 0, VT_USER_SNAPSHOT returned 0 on both ranks' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    st = t.trace(run, what, prefix=run.prefix + '.snap-1', notice=False)
    ev = mpi_events(st.path)
    t.eq(sorted((l, k, g, v) for l, k, g, v in ev if v is not None),
         sorted([(1, 'MpiRecv', 1, 1), (1, 'MpiCollectiveEnd', None, 3), (0, 'MpiSend', 4, 2),
                 (0, 'MpiCollectiveEnd', None, 3)]),
         '%s: the four ends the window cuts marked, each with its reason' % what)
    t.eq(sorted((l, k, g) for l, k, g, v in ev if v is None),
         sorted([(0, 'MpiSend', 2), (1, 'MpiRecv', 2), (1, 'MpiSend', 5), (0, 'MpiRecv', 5),
                 (0, 'MpiSend', 3), (1, 'MpiRecv', 3)]),
         '%s: the messages sent and received in the window, unmarked' % what)
    _, printed, _ = vttest.otf2_print([st.path])
    t.eq(printed.count('("%s" <' % CUT), 4, '%s: otf2-print shows the four marks' % what)
    prof = subprocess.run([os.environ['VT_PROFILE'], '--mpi', st.path], capture_output=True,
                          text=True)
    t.check(prof.returncode == 0, '%s: vt-profile --mpi: the trace is consistent' % what,
            prof.stdout + prof.stderr)
    t.check('3 messages, 12 bytes; 0 collectives' in prof.stdout,
            '%s: vt-profile --mpi matches the three whole messages, no cut end' % what,
            prof.stdout)

    # The run's own trace starts at one time on both ranks too (rank 0's window start,
    # in its work): the first message and broadcast are cut there, nothing at the end.
    w = what + ': the run\'s trace'
    tr = t.trace(run, w, notice=False)
    starts = sorted(set(on[0] for on in window(tr.path).values() if on[2]))
    t.check(len(starts) == 1 and all(window(tr.path)[l.ref][2] == starts
                                     for l in tr.locations),
            '%s: both locations\' windows start at one time (MeasurementOnOff ON)' % w,
            repr(window(tr.path)))
    ev = mpi_events(tr.path)
    t.eq(sorted((l, k, g, v) for l, k, g, v in ev if v is not None),
         sorted([(1, 'MpiRecv', 1, 1), (1, 'MpiCollectiveEnd', None, 3)]),
         '%s: the message and the broadcast its start cuts marked' % w)
    prof = subprocess.run([os.environ['VT_PROFILE'], '--mpi', tr.path], capture_output=True,
                          text=True)
    t.check(prof.returncode == 0 and '5 messages, 20 bytes; 2 collectives' in prof.stdout,
            '%s: vt-profile --mpi: consistent, five whole messages, two collectives' % w,
            prof.stdout + prof.stderr)


def body(t):
    impl = vtmpi.OPENMPI
    flags = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')]
    exe = vtmpi.compile(t, impl, 'mpi_ring', ['mpi_ring.c'], opt='-O0', flags=flags)
    vtmpi.require_runtime(impl)
    what = 'openmpi np 2, VT_MODE=ring'
    run = vtmpi.mpirun(t, impl, 2, exe, env=ENV, timeout=120, label='ring')
    t.eq((run.status, run.lines), (0, ['rank 0 snapshot 0', 'rank 1 snapshot 0']),
         '%s: status 0, VT_USER_SNAPSHOT returned 0 on both ranks' % what)
    t.eq(run.errors, [], '%s: no vt error' % what)
    snap = run.prefix + '.snap-1'
    written = sorted(os.path.basename(p) for p, _, _ in run.written)
    t.eq(written, sorted([run.prefix + '.otf2', snap + '.otf2']),
         '%s: the run\'s trace and the job\'s snapshot written' % what)
    final_trace(t, run, what)

    w = what + ': snapshot of the job'
    st = t.trace(run, w, prefix=snap, notice=False)
    t.eq(sorted(l.ref for l in st.locations), [0, 1], '%s: both ranks\' locations' % w)
    win = window(st.path)
    starts = sorted(set(first for first, _, _ in win.values()))
    ends = sorted(set(last for _, last, _ in win.values()))
    t.check(len(starts) == 1, '%s: both windows start at the same time' % w, repr(win))
    t.check(len(ends) == 1, '%s: both windows end at the same time' % w, repr(win))
    for loc in st.locations:
        n = loc.enters.get('leaf', 0)
        t.check(0 < n < (ROUNDS // 2 + 1) * CALLS, '%s: %d: leaf calls of the window then'
                % (w, loc.ref), repr(n))
        t.check(framed(marks(st.path, loc.ref)),
                '%s: %d: main marked (and the call the window starts in, if any)'
                % (w, loc.ref), repr(marks(st.path, loc.ref)))
        t.eq(win[loc.ref][2], starts, '%s: %d: MeasurementOnOff(ON) at the window\'s start'
             % (w, loc.ref))
    props = vttest.otf2_properties(st.path)
    t.eq((props.get('VT::SNAPSHOT'), props.get('VT::MPI::RANK')), ('round 25', None),
         '%s: property VT::SNAPSHOT, no VT::MPI::RANK' % w)
    t.eq([n for n in os.listdir(run.gdir) if n.startswith('.')], [],
         '%s: nothing of the meeting left in the trace directory' % w)
    alone(t, impl, exe)
    for other in (vtmpi.OPENMPI, vtmpi.MPICH):
        cut(t, other)


vttest.main('mpi_ring', body)
