# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_f08": non-blocking collectives, one-sided communication and MPI-IO through the
Fortran "use mpi_f08" bindings (f08more.f90), on 4 ranks of Open MPI and 2 of MPICH, record
exactly the events their C forms do (the same patterns as mpi_nbc, mpi_rma and mpi_io):
request ids paired, the window named from Fortran, the file handle named after the file."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W, A, F = Var('comm:WORLD'), Var('win:A'), Var('fh:F')
INT = 4
PM = 'PROCESS|MEMORY'
DATA = 'f08.dat'


def steps(r, n):
    # request ids, RMA and I/O matching ids: three counters, three namespaces
    q1, q2 = Var('req:1'), Var('req:2')
    p = Var('rma:1')
    o1, o2 = Var('iop:1'), Var('iop:2')
    ev = [
        ('MPI_Iallreduce', 'NonBlockingCollectiveRequest', q1),
        ('MPI_Wait', 'NonBlockingCollectiveComplete', 'ALLREDUCE', W, ROOT_NONE, 3 * INT,
         3 * INT, q1),
        ('MPI_Ibcast', 'NonBlockingCollectiveRequest', q2),
        ('MPI_Wait', 'NonBlockingCollectiveComplete', 'BCAST', W, 0, 5 * INT if r == 0 else 0,
         0 if r == 0 else 5 * INT, q2),
        ('MPI_Win_create', 'RmaCollectiveBegin'),
        ('MPI_Win_create', 'RmaWinCreate', A),
        ('MPI_Win_create', 'RmaCollectiveEnd', 'CREATE_HANDLE', 'NONE', A, ROOT_NONE, 0, 0),
        ('MPI_Win_fence', 'RmaCollectiveBegin'),
        ('MPI_Win_fence', 'RmaCollectiveEnd', 'BARRIER', PM, A, ROOT_NONE, 0, 0),
        ('MPI_Put', 'RmaPut', A, (r + 1) % n, 2 * INT, p),
        ('MPI_Win_fence', 'RmaCollectiveBegin'),
        ('MPI_Win_fence', 'RmaOpCompleteRemote', A, p),
        ('MPI_Win_fence', 'RmaCollectiveEnd', 'BARRIER', PM, A, ROOT_NONE, 0, 0),
        ('MPI_Win_free', 'RmaCollectiveBegin'),
        ('MPI_Win_free', 'RmaWinDestroy', A),
        ('MPI_Win_free', 'RmaCollectiveEnd', 'DESTROY_HANDLE', 'NONE', A, ROOT_NONE, 0, 0),
        ('MPI_File_open', 'IoCreateHandle', F, 'READ_WRITE', 1, 0),
        ('MPI_File_write_at', 'IoOperationBegin', F, 'WRITE', 0, 4 * INT, o1),
        ('MPI_File_write_at', 'IoOperationComplete', F, 4 * INT, o1),
        ('MPI_File_iread_at', 'IoOperationBegin', F, 'READ', 1, 4 * INT, o2),
        ('MPI_File_iread_at', 'IoOperationIssued', F, o2),
        ('MPI_Wait', 'IoOperationComplete', F, 4 * INT, o2),
        ('MPI_File_close', 'IoDestroyHandle', F),
    ]
    return [[e] for e in ev]


ENTERS = {'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1,
          'MPI_Iallreduce': 1, 'MPI_Ibcast': 1, 'MPI_Wait': 3, 'MPI_Win_create': 1,
          'MPI_Win_set_name': 1, 'MPI_Win_fence': 2, 'MPI_Put': 1, 'MPI_Win_free': 1,
          'MPI_File_open': 1, 'MPI_File_write_at': 1, 'MPI_File_iread_at': 1,
          'MPI_File_close': 1}


def check(t, run, plain, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    binds = []
    for r in range(n):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        got = {k: v for k, v in loc.enters.items() if v and k.startswith('MPI_')}
        t.eq(got, ENTERS, '%s: MPI regions entered' % w)
        binds.append(vtmpi.match_sequence(t, mt.sequence(r), steps(r, n), w))
    t.eq(sorted(mt.wins.values()), [('f08 window', binds[0].get('comm:WORLD'))] if binds
         else [], '%s: the window named from Fortran, on MPI_COMM_WORLD' % what)
    t.eq([h[:3] for h in mt.io_handles.values()], [(DATA, DATA, 'MPI-IO')],
         '%s: one MPI-IO handle, named after the file' % what)
    t.eq(len(set(b.get('win:A') for b in binds)), 1, '%s: one window on all ranks' % what)


def body(t):
    variants = [(OPENMPI, 4), (MPICH, 2)]
    builds = [(impl, inst) for impl, _ in variants for inst in (False, True)]
    exes = dict(zip(builds, t.parallel(
        lambda b: vtmpi.compile_fortran(t, b[0], 'f08more', ['f08more.f90'], instrument=b[1]),
        builds)))
    for impl, n in variants:
        what = '%s np %d' % (impl, n)
        plain = vtmpi.mpirun(t, impl, n, exes[(impl, False)], label='plain-%s%d' % (impl, n))
        t.eq((plain.status, len(plain.lines)), (0, n),
             '%s uninstrumented: status 0, one line per rank' % what)
        vtmpi.require_runtime(impl)
        run = vtmpi.mpirun(t, impl, n, exes[(impl, True)], label='%s%d' % (impl, n))
        check(t, run, plain, n, what)


vttest.main('mpi_f08', body)
