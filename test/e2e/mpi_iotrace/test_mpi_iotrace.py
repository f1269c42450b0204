# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_iotrace": MPI-IO and the POSIX I/O below it in one trace (VT_IOTRACE=yes), on 2
ranks of Open MPI and of MPICH, with the program of test mpi_io (test/e2e/mpi_io/mpi_io.c),
read with python3-otf2. Asserted: the program's output as without vt; the I/O paradigms
MPI-IO, POSIX and ISOC (the program's printf to stdout, the MPI library's own stdio); one MPI-IO handle, on the data file; on every rank, POSIX handles on the
data file through which the MPI library wrote and read bytes (the operations below
MPI-IO, on that rank's locations); and no handle on any file of vt's own (the archive,
its definitions, its reserved descriptors), which vt writes from the program's threads at
MPI_Init."""

import os

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

DATA = 'iotrace.dat'
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'mpi_io', 'mpi_io.c')


def io_summary(path):
    """handles: ref -> (name, paradigm); per (location group name, handle ref): bytes written
    and read (IoOperationComplete after a Begin of that mode)."""
    handles, moved, mode_of = {}, {}, {}
    with otf2.reader.open(path) as reader:
        for h in reader.definitions.io_handles:
            handles[h._ref] = (h.name, h.io_paradigm.identification)
        for loc, ev in reader.events:
            k = type(ev).__name__
            if k == 'IoOperationBegin':
                mode_of[(loc._ref, ev.handle._ref, ev.matching_id)] = \
                    str(ev.mode).rsplit('.', 1)[-1]
            elif k == 'IoOperationComplete':
                mode = mode_of.pop((loc._ref, ev.handle._ref, ev.matching_id), None)
                key = (loc.group.name, ev.handle._ref)
                w, r = moved.get(key, (0, 0))
                if mode == 'WRITE':
                    w += ev.bytes_result
                elif mode == 'READ':
                    r += ev.bytes_result
                moved[key] = (w, r)
    return handles, moved


def check(t, run, plain, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, _ = vtmpi.trace(t, run, what)
    handles, moved = io_summary(tr.path)
    t.eq(sorted(set(p for _, p in handles.values())), ['ISOC', 'MPI-IO', 'POSIX'],
         '%s: the I/O paradigms MPI-IO, POSIX and ISOC (stdio: the program\'s printf, the '
         'MPI library\'s own files)' % what)
    t.check('stdout' in [name for name, p in handles.values() if p == 'ISOC'],
            '%s: the program\'s printf on an ISOC handle named stdout' % what)
    t.eq([name for name, p in handles.values() if p == 'MPI-IO'], [DATA],
         '%s: one MPI-IO handle, on the data file' % what)
    own = sorted(name for name, _ in handles.values()
                 if '.vt.' in name or 'vt-reserve' in name or name.endswith('.vt'))
    t.eq(own, [], '%s: no handle on a file of vt\'s own' % what)
    for r in range(n):
        group = 'MPI Rank %d' % r
        below = [(w, rd) for (g, ref), (w, rd) in moved.items()
                 if g == group and handles[ref] == (DATA, 'POSIX')]
        t.check(below and sum(w for w, _ in below) > 0 and sum(rd for _, rd in below) > 0,
                '%s: rank %d: bytes written and read through POSIX handles on the data file'
                % (what, r), 'per handle (written, read): %r' % below)


def body(t):
    vttest.require_otf2()
    variants = [(OPENMPI, 2), (MPICH, 2)]
    exes = vtmpi.build_all(t, 'mpi_io', [SRC], [OPENMPI, MPICH])
    for impl, n in variants:
        what = '%s np %d' % (impl, n)
        plain = vtmpi.mpirun(t, impl, n, exes[(impl, False)], args=[DATA],
                             label='plain-%s%d' % (impl, n))
        t.eq((plain.status, len(plain.lines)), (0, n),
             '%s uninstrumented: status 0, one line per rank' % what)
        vtmpi.require_runtime(impl)
        run = vtmpi.mpirun(t, impl, n, exes[(impl, True)], args=[DATA],
                           env={'VT_IOTRACE': 'yes'}, label='%s%d' % (impl, n))
        check(t, run, plain, n, what)


vttest.main('mpi_iotrace', body)
