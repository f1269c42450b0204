# SPDX-License-Identifier: BSD-3-Clause
"""vt-sim-mpi on 2 and 4 processes (Open MPI) and vt-sim-mpich on 2 (MPICH; 4 with -o) do
what vt-sim does, byte for byte: the summary on stdout, the exit status and every file of the
what-if trace (each process writing its locations' event files), for each shipped simulator
and a chain of two, and --explain-waits in text and JSON (and on 1 process, where vt-sim-mpi
is vt-sim).
The traces: ../sim/simprog.c on 4 ranks of Open MPI (ping-pong, an MPI_Ssend, Irecv/Isend
with Waitall and Waitsome, collectives, a second thread per rank) and on 2 of MPICH;
../mpi_threads/mpi_threads.c (MPI from pthreads and an OpenMP team: several locations per
rank); ../sim_waits's traces worked out by hand. The parallel outputs are then checked with
the serial test's own rules (../sim/test_sim.py, read by python3-otf2 and otf2-print: every
event at the time computed from the input) and against the values worked out by hand.
Bad input and a simulator that breaks the rules: the serial line, the serial status, no
output. Markers on every rank (marks.c): the marker file vt-sim's. A disk that fills while
process 1 writes: the run fails as vt-sim's, nothing left."""
import collections
import filecmp
import json
import os
import subprocess
import sys

import vtmpi
import vttest
import waittrace
from vtmpi import MPICH, OPENMPI
from vttest import Failure, otf2

HERE = os.path.dirname(os.path.abspath(__file__))
for d in ('sim', 'sim_waits'):
    sys.path.insert(0, os.path.join(HERE, '..', d))
import test_sim  # noqa: E402  (the serial test's reading and rules)
import test_sim_waits  # noqa: E402  (the traces worked out by hand)

VT_SIM = os.environ.get('VT_SIM', '')
PAR = {'openmpi': os.environ.get('VT_SIM_MPI', ''), 'mpich': os.environ.get('VT_SIM_MPICH', '')}
RUNS = ((OPENMPI, 2), (OPENMPI, 4), (MPICH, 2))
# -o's outputs: each process writes its locations' event files, on 2 and 4 of both MPIs
WRITE_RUNS = RUNS + ((MPICH, 4),)
L, B = 20e-6, 1e8
SIMS = (('identity',), ('ideal',), ('latbw:L=%g,B=%g' % (L, B),),
        ('scale:pattern=compute,factor=0.5',), ('nonoise',),
        ('scale:pattern=compute,factor=0.5', 'ideal'))


def run(cmd, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr.decode(errors='replace')


def parallel(impl, np):
    # Open MPI's waiting ranks yield their core (this machine has 2 for 4 processes).
    extra = ['--mca', 'mpi_yield_when_idle', '1'] if impl is OPENMPI else []
    return list(impl.launcher) + extra + ['-np', str(np), PAR[impl.name]]


def files(d):
    """Every file vt-sim wrote into d (the output's anchor, .def and folder)."""
    out = []
    for root, _, names in os.walk(d):
        out += [os.path.relpath(os.path.join(root, n), d) for n in names]
    return sorted(out)


def anchor(path):
    """The anchor file as otf2-print -A shows it, but the trace identifier: libotf2 draws
    a new one for every archive (two serial runs differ there)."""
    text = subprocess.run(['otf2-print', '-A', path], stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    return [x for x in text.splitlines() if not x.startswith('Trace identifier')]


def same_tree(a, b):
    """The same files, byte for byte (the anchor files: anchor())."""
    fa, fb = files(a), files(b)
    return fa == fb and all(
        anchor(os.path.join(a, f)) == anchor(os.path.join(b, f)) if f.endswith('.otf2') else
        filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in fa)


def sim(t, trace, sims, label):
    """The serial run, then each parallel one in a folder of its own (the same relative
    output name, so that the summaries may be equal): their status, stdout and files equal.
    Returns the output of Open MPI's 4 processes and the serial stdout."""
    args = [trace] + [x for s in sims for x in ('-s', s)] + ['-o', 'out.otf2']
    d = t.newdir(label + '-serial')
    code, want, err = run([VT_SIM] + args, cwd=d)
    t.check(code == 0, '%s: vt-sim exits 0' % label, err)
    got4 = None
    for impl, np in WRITE_RUNS:
        what = '%s on %d processes (%s)' % (label, np, impl)
        p = t.newdir('%s-%s-%d' % (label, impl, np))
        code, got, perr = run(parallel(impl, np) + args, cwd=p)
        t.check(code == 0, '%s: exits 0' % what, perr)
        t.check(got == want, '%s: the summary vt-sim prints, byte for byte' % what,
                '--- vt-sim\n%s\n--- parallel\n%s\n%s' % (want.decode(), got.decode(), perr))
        t.check(same_tree(d, p), '%s: every file of the output as vt-sim writes it (%d)'
                % (what, len(files(d))), '%r\n%r' % (files(d), files(p)))
        if (impl, np) == (OPENMPI, 4):
            got4 = os.path.join(p, 'out.otf2')
    return got4, want.decode()


def split(t, trace, sims, label, impl, np, want):
    """Whether the replay and -o's writing were split over the processes (-v says so): for
    vt's own simulators by name, each process replays its ranks' locations, trades the times
    the others wait for and writes its locations' event files; another simulator (one given
    by path) is replayed and written at process 0 alone."""
    args = [trace, '-v'] + [x for s in sims for x in ('-s', s)] + ['-o', 'out.otf2']
    code, _, err = run(parallel(impl, np) + args, cwd=t.newdir('%s-split-%s-%d' % (label, impl, np)))
    line = 'replayed on %d processes' % np
    t.check(code == 0 and (line in err) == want,
            '%s on %d processes (%s): the replay is %ssplit (-v: %r)'
            % (label, np, impl, '' if want else 'not ', line), err)
    # -o after a split replay: each process writes its locations' event files
    line = 'written by %d processes' % np
    t.check(code == 0 and (line in err) == want,
            '%s on %d processes (%s): the writing is %ssplit (-v: %r)'
            % (label, np, impl, '' if want else 'not ', line), err)


def explain(t, trace, label):
    """--explain-waits in both formats, serial and parallel, equal; the JSON."""
    j = None
    for fmt in ('text', 'json'):
        code, want, err = run([VT_SIM, '--explain-waits', '--format', fmt, trace])
        t.eq((code, err), (0, ''), '%s: vt-sim --explain-waits --format %s exits 0' % (label, fmt))
        if fmt == 'json':
            j = json.loads(want.decode())
        for impl, np in RUNS:
            what = '%s: --explain-waits --format %s on %d processes (%s)' % (label, fmt, np, impl)
            code, got, perr = run(parallel(impl, np) + ['--explain-waits', '--format', fmt,
                                                        trace])
            t.check(code == 0, '%s: exits 0' % what, perr)
            t.check(got == want, '%s: the bytes vt-sim prints' % what,
                    '--- vt-sim\n%s\n--- parallel\n%s\n%s' % (want.decode(), got.decode(),
                                                              perr))
    return j


def check_simprog(t):
    """simprog under Open MPI: each simulator, its parallel output checked with the serial
    test's rules."""
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'simprog', [os.path.join(HERE, '..', 'sim', 'simprog.c')],
                        flags=['-pthread'])
    r = vtmpi.mpirun(t, OPENMPI, test_sim.NP, exe)
    t.eq(r.status, 0, 'simprog ran')
    trace = t.trace(r, 'input', profile=False).path
    orig, rank_loc, res = test_sim.read(trace)
    st = test_sim.Structure(orig, rank_loc)
    t.eq(st.unmatched, 0, 'simprog: every message matched')
    kinds = collections.Counter(e.kind for evs in orig.values() for e in evs)
    for k in ('MpiSend', 'MpiRecv', 'MpiIsend', 'MpiIrecv', 'MpiCollectiveEnd'):
        t.check(kinds[k] > 0, 'simprog has %s events' % k, repr(kinds))
    t.eq(len(orig), 2 * test_sim.NP, 'simprog has two threads per rank')
    total = sum(len(e) for e in orig.values())

    out, text = sim(t, trace, SIMS[0], 'identity')
    o = test_sim.check_output(t, st, orig, out, test_sim.default_rule, 'identity, parallel')
    t.eq([[e.time for e in o[x]] for x in o], [[e.time for e in orig[x]] for x in orig],
         'identity, parallel: every event of every location at its original time')
    t.check('%d events, %d messages, ' % (total, len(st.msgs)) in text,
            'identity: the summary counts every event (%d) and message (%d)'
            % (total, len(st.msgs)), text)
    out, _ = sim(t, trace, SIMS[1], 'ideal')
    test_sim.check_output(t, st, orig, out, test_sim.ideal_rule, 'ideal, parallel')
    out, _ = sim(t, trace, SIMS[2], 'latbw')
    test_sim.check_output(t, st, orig, out, test_sim.latbw_rule(L, B, res), 'latbw, parallel')
    out, text = sim(t, trace, SIMS[3], 'scale')
    o = test_sim.check_output(t, st, orig, out, test_sim.default_rule, 'scale, parallel',
                              ('compute', 0.5))
    for rank in range(test_sim.NP):
        before = test_sim.durations(orig[rank_loc[rank]], 'compute')
        t.eq(test_sim.durations(o[rank_loc[rank]], 'compute'),
             [int(x * 0.5 + 0.5) for x in before],
             'scale, parallel: rank %d: every compute takes half its time' % rank)
    # On one process vt-sim-mpi is vt-sim (its own reading, no readers).
    args = [trace, '-s', 'ideal', '-o', 'out.otf2']
    serial, one = t.newdir('one-serial'), t.newdir('one-process')
    want = run([VT_SIM] + args, cwd=serial)
    got = run(parallel(OPENMPI, 1) + args, cwd=one)
    t.check(got[:2] == want[:2] and want[0] == 0 and same_tree(serial, one),
            'ideal on 1 process (openmpi): vt-sim\'s status, summary and files', got[2])
    sim(t, trace, SIMS[4], 'nonoise')
    sim(t, trace, SIMS[5], 'scale-ideal')
    # The outputs above came from the distributed replay: on 4 processes each rank is a
    # process of its own, so every message (the ping-pong both ways, the Ssend, the
    # Irecv/Waitall) and every collective waits across processes.
    split(t, trace, SIMS[1], 'simprog', OPENMPI, 4, True)
    split(t, trace, SIMS[5], 'simprog', OPENMPI, 2, True)
    by_path = os.path.join(os.environ.get('VT_SIM_PATH', ''), 'libvt-sim-ideal.so')
    split(t, trace, (by_path,), 'simprog-by-path', OPENMPI, 2, False)
    explain(t, trace, 'simprog')

    # MPICH's trace of simprog on 2 ranks.
    vtmpi.require_runtime(MPICH)
    mexe = vtmpi.compile(t, MPICH, 'simprog-mpich',
                         [os.path.join(HERE, '..', 'sim', 'simprog.c')], flags=['-pthread'])
    r = vtmpi.mpirun(t, MPICH, 2, mexe, label='run-mpich')
    t.eq(r.status, 0, 'simprog ran with MPICH')
    mtrace = t.trace(r, 'input-mpich', profile=False).path
    for s in SIMS[1:3]:
        sim(t, mtrace, s, 'mpich-' + s[0].split(':')[0])
    split(t, mtrace, SIMS[1], 'mpich', MPICH, 2, True)
    return trace


def check_threads(t):
    """Several locations per rank: MPI from pthreads, an OpenMP team."""
    exe = vtmpi.compile(t, OPENMPI, 'mpi_threads',
                        [os.path.join(HERE, '..', 'mpi_threads', 'mpi_threads.c')],
                        flags=['-fopenmp', '-pthread'])
    r = vtmpi.mpirun(t, OPENMPI, 4, exe, env={'OMP_NUM_THREADS': '2'}, timeout=240,
                     label='mpi_threads')
    vtmpi.clean_run(t, r, 'mpi_threads')
    trace = t.trace(r, 'mpi_threads', profile=False).path
    orig, rank_loc, _ = test_sim.read(trace)
    t.check(len(orig) >= 3 * 4, 'mpi_threads: three or more locations per rank',
            '%d locations' % len(orig))
    t.check(sum(1 for evs in orig.values() if any(e.kind == 'MpiSend' for e in evs)) > 4,
            'mpi_threads: messages sent from more locations than ranks')
    for s in SIMS[:2]:
        sim(t, trace, s, 'threads-' + s[0])
    split(t, trace, SIMS[0], 'threads', OPENMPI, 2, True)
    explain(t, trace, 'mpi_threads')


def check_markers(t):
    """vt's user markers on every rank (marks.c): with -o each process moves the markers of
    its own locations, which process 0 writes into the marker file; every file vt-sim's."""
    exe = vtmpi.compile(t, OPENMPI, 'marks', [os.path.join(HERE, 'marks.c')])
    r = vtmpi.mpirun(t, OPENMPI, 4, exe, label='marks')
    vtmpi.clean_run(t, r, 'marks')
    trace = t.trace(r, 'marks', profile=False).path
    before = vttest.otf2_marker_times(trace)
    t.eq(len(before), 4 * 3 + 1, 'marks: 13 markers in the input (3 per rank, 1 more on rank 0)')
    out, _ = sim(t, trace, ('ideal',), 'marks-ideal')
    after = vttest.otf2_marker_times(out)
    t.eq([m[1:] for m in after], [m[1:] for m in before],
         'marks: ideal on 4 processes: every marker copied, in the same order')
    moved = {m[1] for m, n in zip(before, after) if m[0] != n[0]}
    t.check(len(moved) >= 2, 'marks: ideal moved the markers of two locations or more (the '
            'barriers\' waits taken out)', '%r\n%r' % (before, after))
    sim(t, trace, ('identity',), 'marks-identity')
    split(t, trace, ('ideal',), 'marks', OPENMPI, 4, True)


def write_lopsided(path, steps=60000):
    """Two ranks: rank 0 a few events, rank 1 2 * steps + 2 (its event file about 1 MiB)."""
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = waittrace.Ranks(trace, ['main', 'step'])
        w, enter, leave = T.writer(0)
        enter(0, 'main')
        leave(1, 'main')
        w, enter, leave = T.writer(1)
        enter(0, 'main')
        for i in range(steps):
            enter(i * 0.00001, 'step')
            leave(i * 0.00001 + 0.000005, 'step')
        leave(1, 'main')
    return os.path.join(path, 'traces.otf2')


def check_full(t):
    """The output's disk full (a 512 KiB tmpfs) while process 1 writes rank 1's event file:
    the run fails as vt-sim's does (its status, one line: the write's failure, "no output
    written") and leaves nothing on the disk; then disks about the output's size. Skipped
    where mount is refused."""
    trace = write_lopsided(os.path.join(t.newdir('lopsided'), 'lopsided'))
    disk = t.newdir('disk')
    p = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', disk],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode:
        print('note: cannot mount a tmpfs at %s (%s): the full disk is not tried'
              % (disk, p.stdout.strip()))
        return
    try:
        args = [trace, '-s', 'identity', '-o', os.path.join(disk, 'out.otf2')]
        want = run([VT_SIM] + args)
        wlines = want[2].splitlines()
        t.check(want[0] == 1 and len(wlines) == 1 and 'writing the output' in wlines[0] and
                wlines[0].endswith('; no output written'),
                'full disk: vt-sim exits 1 with one line: the write\'s failure, "no output '
                'written"', want[2])
        t.eq(os.listdir(disk), [], 'full disk: vt-sim leaves nothing')
        for impl, np in ((OPENMPI, 2), (MPICH, 2)):
            what = 'full disk on %d processes (%s)' % (np, impl)
            got = run(parallel(impl, np) + args)
            lines = [x for x in got[2].splitlines() if x.startswith('vt-sim')]
            t.check(got[0] == 1 and len(lines) == 1 and 'writing the output' in lines[0] and
                    lines[0].endswith('; no output written'),
                    '%s: vt-sim\'s status and one line' % what, got[2])
            t.eq(got[1], b'', '%s: no summary' % what)
            t.eq(os.listdir(disk), [], '%s: nothing left on the disk' % what)
    finally:
        subprocess.run(['umount', disk])
    # the same trace where it fits: the split replay's bytes (rank 1's file, process 1's)
    ref, _ = sim(t, trace, ('identity',), 'lopsided')
    split(t, trace, ('identity',), 'lopsided', OPENMPI, 2, True)
    # Disks from 32 KiB short of the output to 32 KiB more, a page apart: whichever write
    # fails (an event file, a definition file, the anchor, at either process), the run
    # writes the whole output, vt-sim's bytes, or fails with nothing left.
    ref = os.path.dirname(ref)
    size = sum(os.path.getsize(os.path.join(ref, f)) for f in files(ref))
    outcomes = set()
    for kib in range(size // 1024 - 32, size // 1024 + 33, 4):
        p = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%dk' % kib, 'tmpfs', disk])
        if p.returncode:
            raise Failure('mounting a %d KiB tmpfs' % kib)
        try:
            args = [trace, '-s', 'identity', '-o', os.path.join(disk, 'out.otf2'), '-q']
            for who, cmd in (('vt-sim', [VT_SIM]), ('2 processes', parallel(OPENMPI, 2))):
                code, _, err = run(cmd + args)
                lines = [x for x in err.splitlines() if x.startswith('vt-sim')]
                if code == 0:
                    ok = same_tree(ref, disk)
                else:
                    ok = (code == 1 and len(lines) == 1 and 'writing the output' in lines[0] and
                          lines[0].endswith('; no output written') and not os.listdir(disk))
                outcomes.add(code)
                t.check(ok, 'a %d KiB disk, %s: %s' % (kib, who, 'the whole output' if code == 0
                                                       else 'status 1, nothing left'), err)
                subprocess.run(['sh', '-c', 'rm -rf "$0"/* "$0"/.[!.]*', disk])
        finally:
            subprocess.run(['umount', disk])
    t.eq(sorted(outcomes), [0, 1], 'the disks: some too small, some large enough')


def write_broken(path):
    """Three ranks whose waits partly never end: rank 0 receives a message never sent
    (10..12) and enters a barrier (20..25) that rank 2 never enters, then sends to rank 2
    (30..31); rank 1 enters the barrier (18..24), then sends a synchronous message never
    received (MPI_Ssend 26..27); rank 2 receives rank 0's message (28..35). vt-sim ends each
    of those waits as recorded, the lowest location first: the split replay must too."""
    ev = otf2.events
    roles = {'MPI_Barrier': otf2.RegionRole.BARRIER}
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = waittrace.Ranks(trace, ['main', 'work', 'MPI_Recv', 'MPI_Send', 'MPI_Ssend',
                                    'MPI_Barrier'], roles)
        ms = waittrace.ms

        def barrier(w, enter, leave, t0, t1):
            enter(t0, 'MPI_Barrier')
            w(ev.MpiCollectiveBegin(ms(t0)))
            w(ev.MpiCollectiveEnd(ms(t1), otf2.CollectiveOp.BARRIER, T.world,
                                  vtmpi.ROOT_NONE, 0, 0))
            leave(t1, 'MPI_Barrier')
        w, enter, leave = T.writer(0)
        enter(0, 'main')
        enter(10, 'MPI_Recv')
        w(ev.MpiRecv(ms(12), 1, T.world, 5, 8))
        leave(12, 'MPI_Recv')
        barrier(w, enter, leave, 20, 25)
        enter(25, 'work')
        leave(30, 'work')
        enter(30, 'MPI_Send')
        w(ev.MpiSend(ms(30), 2, T.world, 0, 8))
        leave(31, 'MPI_Send')
        leave(40, 'main')
        w, enter, leave = T.writer(1)
        enter(0, 'main')
        barrier(w, enter, leave, 18, 24)
        enter(26, 'MPI_Ssend')
        w(ev.MpiSend(ms(26), 2, T.world, 7, 8))
        leave(27, 'MPI_Ssend')
        leave(40, 'main')
        w, enter, leave = T.writer(2)
        enter(0, 'main')
        enter(5, 'work')
        leave(28, 'work')
        enter(28, 'MPI_Recv')
        w(ev.MpiRecv(ms(35), 0, T.world, 0, 8))
        leave(35, 'MPI_Recv')
        leave(40, 'main')
    return os.path.join(path, 'traces.otf2')


def check_by_hand(t):
    """sim_waits's traces: the parallel --explain-waits gives the values worked out there."""
    d = t.newdir('by-hand')
    cases = [
        ('barriers', test_sim_waits.write_barriers, 'wait_barrier',
         (2 * 4, 20 * 4, 4, 10 * 4, 10 * 4, 3 * 4, 10 * 4)),
        ('allreduce', test_sim_waits.write_allreduce, 'wait_nxn', (2, 20, 1, 10, 10, 13, 10)),
        ('chain', test_sim_waits.write_chain, 'late_sender', (2, 71, 2, 40, 40, 10, 40)),
    ]
    for name, write, key, want in cases:
        write(os.path.join(d, name))
        j = explain(t, os.path.join(d, name, 'traces.otf2'), name)
        row = test_sim_waits.rows(j)[key]
        t.eq(row, (want[0], test_sim_waits.ms(want[1]), want[2]) +
             tuple(test_sim_waits.ms(x) for x in want[3:]),
             '%s: %s as worked out by hand (the parallel bytes are these)' % (name, key))
    # An unmatched send (the chain's tag 99 to rank 2): the replay leaves it as recorded and
    # --explain-waits says so on stderr; the parallel runs say and write the same.
    test_sim_waits.write_chain(os.path.join(d, 'unmatched'), unmatched=True)
    path = os.path.join(d, 'unmatched', 'traces.otf2')
    sim(t, path, ('ideal',), 'unmatched')
    want = run([VT_SIM, '--explain-waits', path])
    t.check(want[0] == 0 and 'unmatched' in want[2], 'unmatched: --explain-waits says so',
            want[2])
    for impl, np in RUNS:
        got = run(parallel(impl, np) + ['--explain-waits', path])
        t.check(got == want,
                'unmatched: --explain-waits on %d processes (%s): vt-sim\'s status, output '
                'and stderr' % (np, impl), '%d %r\n%s' % (got[0], got[1], got[2]))
    # Waits that never end (a receive never sent, a barrier a rank never enters, an Ssend
    # never received), split over the processes of the ranks involved.
    broken = write_broken(os.path.join(d, 'broken'))
    for s in (('identity',), ('ideal',), ('latbw:L=%g,B=%g' % (L, B),)):
        sim(t, broken, s, 'broken-' + s[0].split(':')[0])
    split(t, broken, ('ideal',), 'broken', OPENMPI, 2, True)
    return os.path.join(d, 'barriers', 'traces.otf2')


def write_long(path, steps=30000):
    """Three ranks that each do 'work' first, then steps calls of 'step' (6 steps + 6 events
    in all): many chunks for every reader after the first end of 'work'."""
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        T = waittrace.Ranks(trace, ['main', 'work', 'step'])
        for r in range(3):
            w, enter, leave = T.writer(r)
            enter(0, 'main')
            enter(0.001, 'work')
            leave(0.5, 'work')
            for i in range(steps):
                enter(1 + i * 0.001, 'step')
                leave(1 + i * 0.001 + 0.0005, 'step')
            leave(1 + steps * 0.001, 'main')
    return os.path.join(path, 'traces.otf2')


def check_bad(t, trace, barriers):
    """What vt-sim refuses, vt-sim-mpi refuses with the same line and status; a simulator
    that sets the end of 'work' (the barriers trace by hand) below its start stops the
    replay on process 0 while the readers still read."""
    cases = [
        ('a trace that is not there', [trace + '.none', '-s', 'identity', '-o', 'out.otf2']),
        ('no simulator', [trace, '-o', 'out.otf2']),
        ('--explain-waits of no trace', ['--explain-waits', trace + '.none']),
    ]
    below = os.path.join(t.newdir('sim-below'), 'libvt-sim-below.so')
    p = subprocess.run(['gcc', '-shared', '-fPIC', '-I' + os.path.join(vttest.SOURCE_ROOT,
                        'plugin-sdk', 'include'), '-DBAD_BELOW',
                        os.path.join(HERE, '..', 'sim_bad', 'badsim.c'), '-o', below],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise Failure('building the simulator that sets an end below its start: %s' % p.stdout)
    cases.append(('a simulator that sets an end below its start',
                  [barriers, '-s', below, '-o', 'out.otf2']))
    cases.append(('the same on a trace of 180,006 events (the replay stops while the readers still have chunks to send)',
                  [write_long(os.path.join(t.newdir('long'), 'long')), '-s', below,
                   '-o', 'out.otf2']))
    for what, args in cases:
        d = t.newdir('bad')
        want = run([VT_SIM] + args, cwd=d)
        t.check(want[0] != 0 and len(want[2].splitlines()) == 1, '%s: vt-sim exits %d with '
                'one line' % (what, want[0]), want[2])
        for impl, np in RUNS[:2]:
            got = run(parallel(impl, np) + args, cwd=d)
            lines = [x for x in got[2].splitlines() if x.startswith('vt-sim')]
            t.check((got[0], got[1], lines) == (want[0], want[1], want[2].splitlines()),
                    '%s on %d processes: the status and line of vt-sim' % (what, np),
                    'status %d, stdout %r\n%s' % (got[0], got[1], got[2]))
            t.eq(files(d), [], '%s on %d processes: no output' % (what, np))


def body(t):
    vttest.skip_under_sanitizer('the sanitizer builds libvt only, not vt-sim-mpi, and the '
                                'traces it reads come from programs other tests run '
                                'sanitized')
    for impl in ('openmpi', 'mpich'):
        if not PAR[impl] or not os.access(PAR[impl], os.X_OK):
            raise Failure('the %s vt-sim is built: %r' % (impl, PAR[impl]))
    trace = check_simprog(t)
    check_bad(t, trace, check_by_hand(t))
    check_threads(t)
    check_markers(t)
    check_full(t)


vttest.main('sim_par', body)
