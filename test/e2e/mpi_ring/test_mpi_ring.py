# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_ring": VT_MODE=ring in a 2-rank Open MPI run (mpi_ring.c). At MPI_Finalize the
unified trace holds each rank's last window, its open frames marked; VT_USER_SNAPSHOT()
midway writes each rank's window alone to NAME.snap-1.rankR (a process of vt's, no MPI),
with fewer leaf calls than the run had by then, its frames marked and the properties
VT::SNAPSHOT and VT::MPI::RANK; the run goes on to its own trace."""

import os

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
    snaps = {r: '%s.snap-1.rank%d' % (run.prefix, r) for r in (0, 1)}
    written = sorted(os.path.basename(p) for p, _, _ in run.written)
    alone = sorted(os.path.basename(w.split(' written to ')[1].split(' (')[0])
                   for w in run.warnings if w.startswith('warning: snapshot 1 (round 25) on rank'))
    t.eq((written, alone), ([run.prefix + '.otf2'], sorted(s + '.otf2' for s in snaps.values())),
         '%s: the run\'s trace written, and each rank\'s snapshot alone' % what)

    tr = t.trace(run, what + ': final trace', notice=False)
    t.eq(len(tr.locations), 2, '%s: two locations' % what)
    for loc in tr.locations:
        n = loc.enters.get('leaf', 0)
        t.check(0 < n < ROUNDS * CALLS, '%s: %s: the last of its leaf calls' % (what, loc.ref),
                repr(n))
        t.check(marks(tr.path, loc.ref) in (['main'], ['main', 'leaf']),
                '%s: location %d: main marked (and leaf, if the window starts in a call)'
                % (what, loc.ref), repr(marks(tr.path, loc.ref)))
        t.eq([m for _, m in loc.onoff], ['ON'], '%s: location %d: one MeasurementOnOff(ON)'
             % (what, loc.ref))

    for rank, prefix in snaps.items():
        w = '%s: snapshot of rank %d' % (what, rank)
        st = t.trace(run, w, prefix=prefix, notice=False)
        t.eq(len(st.locations), 1, '%s: one location' % w)
        loc = st.locations[0]
        n = loc.enters.get('leaf', 0)
        t.check(0 < n < (ROUNDS // 2 + 1) * CALLS, '%s: leaf calls of the window then' % w,
                repr(n))
        t.check(marks(st.path, loc.ref) in (['main'], ['main', 'leaf']),
                '%s: main marked (and leaf, if the window starts in a call)' % w,
                repr(marks(st.path, loc.ref)))
        props = vttest.otf2_properties(st.path)
        t.eq((props.get('VT::SNAPSHOT'), props.get('VT::MPI::RANK')), ('round 25', str(rank)),
             '%s: properties VT::SNAPSHOT and VT::MPI::RANK' % w)


vttest.main('mpi_ring', body)
