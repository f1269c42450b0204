# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_f08": non-blocking collectives (f08_nbc.f90), one-sided communication
(f08_rma.f90) and MPI-IO (f08_io.f90) through the Fortran "use mpi_f08" bindings, one
program per feature, on 4 ranks of Open MPI and 2 of MPICH, record exactly the events their
C forms do (the same patterns as mpi_nbc, mpi_rma and mpi_io): request ids paired, windows
named from Fortran, passive-target epochs, collective and non-blocking I/O, the file handle
named after the file."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W, A, F = Var('comm:WORLD'), Var('win:A'), Var('fh:F')
INT = 4
PM = 'PROCESS|MEMORY'
DATA = 'f08.dat'
COMMON = {'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1}


def nbc_steps(r, n):
    q1, q2, q3, q4 = (Var('req:%d' % i) for i in range(1, 5))
    return [
        [('MPI_Iallreduce', 'NonBlockingCollectiveRequest', q1)],
        [('MPI_Wait', 'NonBlockingCollectiveComplete', 'ALLREDUCE', W, ROOT_NONE, 3 * INT,
          3 * INT, q1)],
        [('MPI_Ibcast', 'NonBlockingCollectiveRequest', q2)],
        [('MPI_Wait', 'NonBlockingCollectiveComplete', 'BCAST', W, 0,
          5 * INT if r == 0 else 0, 0 if r == 0 else 5 * INT, q2)],
        [('MPI_Ialltoall', 'NonBlockingCollectiveRequest', q3)],
        [('MPI_Iallgather', 'NonBlockingCollectiveRequest', q4)],
        # both in flight, completed by one MPI_Waitall
        [('MPI_Waitall', 'NonBlockingCollectiveComplete', 'ALLTOALL', W, ROOT_NONE,
          2 * INT * n, 2 * INT * n, q3),
         ('MPI_Waitall', 'NonBlockingCollectiveComplete', 'ALLGATHER', W, ROOT_NONE, INT,
          INT * n, q4)],
    ]


def rma_steps(r, n):
    nx = (r + 1) % n
    p, g = Var('rma:1'), Var('rma:2')
    ev = [
        ('MPI_Win_create', 'RmaCollectiveBegin'),
        ('MPI_Win_create', 'RmaWinCreate', A),
        ('MPI_Win_create', 'RmaCollectiveEnd', 'CREATE_HANDLE', 'NONE', A, ROOT_NONE, 0, 0),
        ('MPI_Win_fence', 'RmaCollectiveBegin'),
        ('MPI_Win_fence', 'RmaCollectiveEnd', 'BARRIER', PM, A, ROOT_NONE, 0, 0),
        ('MPI_Put', 'RmaPut', A, nx, 2 * INT, p),
        ('MPI_Win_fence', 'RmaCollectiveBegin'),
        ('MPI_Win_fence', 'RmaOpCompleteRemote', A, p),
        ('MPI_Win_fence', 'RmaCollectiveEnd', 'BARRIER', PM, A, ROOT_NONE, 0, 0),
        ('MPI_Win_lock', 'RmaRequestLock', A, nx, 0, 'EXCLUSIVE'),
        ('MPI_Get', 'RmaGet', A, nx, 3 * INT, g),
        ('MPI_Win_unlock', 'RmaOpCompleteRemote', A, g),
        ('MPI_Win_unlock', 'RmaReleaseLock', A, nx, 0),
    ]
    out = [[e] for e in ev + list(vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0))]
    return out + [[e] for e in [
        ('MPI_Win_free', 'RmaCollectiveBegin'),
        ('MPI_Win_free', 'RmaWinDestroy', A),
        ('MPI_Win_free', 'RmaCollectiveEnd', 'DESTROY_HANDLE', 'NONE', A, ROOT_NONE, 0, 0)]]


def io_steps(r, n):
    o = [Var('iop:%d' % i) for i in range(4)]
    ev = [
        ('MPI_File_open', 'IoCreateHandle', F, 'READ_WRITE', 1, 0),
        ('MPI_File_write_at', 'IoOperationBegin', F, 'WRITE', 0, 4 * INT, o[0]),
        ('MPI_File_write_at', 'IoOperationComplete', F, 4 * INT, o[0]),
        ('MPI_File_write_at_all', 'IoOperationBegin', F, 'WRITE', 2, 2 * INT, o[1]),
        ('MPI_File_write_at_all', 'IoOperationComplete', F, 2 * INT, o[1]),
        ('MPI_File_iread_at', 'IoOperationBegin', F, 'READ', 1, 4 * INT, o[2]),
        ('MPI_File_iread_at', 'IoOperationIssued', F, o[2]),
        ('MPI_Wait', 'IoOperationComplete', F, 4 * INT, o[2]),
        ('MPI_File_read_at_all', 'IoOperationBegin', F, 'READ', 2, 2 * INT, o[3]),
        ('MPI_File_read_at_all', 'IoOperationComplete', F, 2 * INT, o[3]),
        ('MPI_File_close', 'IoDestroyHandle', F),
    ]
    return [[e] for e in ev]


def enters(**kw):
    e = dict(COMMON)
    e.update(kw)
    return e


PROGRAMS = {
    'f08_nbc': (nbc_steps, enters(MPI_Iallreduce=1, MPI_Ibcast=1, MPI_Wait=2,
                                  MPI_Ialltoall=1, MPI_Iallgather=1, MPI_Waitall=1)),
    'f08_rma': (rma_steps, enters(MPI_Win_create=1, MPI_Win_set_name=1, MPI_Win_fence=2,
                                  MPI_Put=1, MPI_Win_lock=1, MPI_Get=1, MPI_Win_unlock=1,
                                  MPI_Barrier=1, MPI_Win_free=1)),
    'f08_io': (io_steps, enters(MPI_File_open=1, MPI_File_write_at=1,
                                MPI_File_write_at_all=1, MPI_File_iread_at=1, MPI_Wait=1,
                                MPI_File_read_at_all=1, MPI_File_close=1)),
}


def check(t, prog, run, plain, n, what):
    steps, want = PROGRAMS[prog]
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
        t.eq(got, want, '%s: MPI regions entered' % w)
        binds.append(vtmpi.match_sequence(t, mt.sequence(r), steps(r, n), w))
    if prog == 'f08_rma':
        t.eq(sorted(mt.wins.values()), [('f08 window', binds[0].get('comm:WORLD'))]
             if binds else [], '%s: the window named from Fortran, on MPI_COMM_WORLD' % what)
        t.eq(len(set(b.get('win:A') for b in binds)), 1, '%s: one window on all ranks' % what)
    if prog == 'f08_io':
        t.eq([h[:3] for h in mt.io_handles.values()], [(DATA, DATA, 'MPI-IO')],
             '%s: one MPI-IO handle, named after the file' % what)


def body(t):
    variants = [(OPENMPI, 4), (MPICH, 2)]
    builds = [(prog, impl, inst) for prog in PROGRAMS for impl, _ in variants
              for inst in (False, True)]
    exes = dict(zip(builds, t.parallel(
        lambda b: vtmpi.compile_fortran(t, b[1], b[0], [b[0] + '.f90'], instrument=b[2]),
        builds)))
    for prog in PROGRAMS:
        for impl, n in variants:
            what = '%s %s np %d' % (prog, impl, n)
            plain = vtmpi.mpirun(t, impl, n, exes[(prog, impl, False)],
                                 label='plain-%s-%s%d' % (prog, impl, n))
            t.eq((plain.status, len(plain.lines)), (0, n),
                 '%s uninstrumented: status 0, one line per rank' % what)
            vtmpi.require_runtime(impl)
            run = vtmpi.mpirun(t, impl, n, exes[(prog, impl, True)],
                               label='%s-%s%d' % (prog, impl, n))
            check(t, prog, run, plain, n, what)


vttest.main('mpi_f08', body)
