# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_stopped": rank 0's recording stops early (its buffer fills: VT_BUFFER_SIZE=1M,
VT_MAX_FLUSHES=1) and the run goes on through communicator, window and file creation,
whose keys vt's hooks agree with a broadcast: no rank waits for the stopped one (before
the fix the run hung in MPI_Comm_dup), the program's own broadcast is untouched (its
output is the plain build's), the other ranks record all of it exactly, and rank 0's
location ends with its MeasurementOnOff(OFF). Open MPI np 4, MPICH np 2."""

import collections

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

ENV = {'VT_BUFFER_SIZE': '1M', 'VT_MAX_FLUSHES': '1'}
MPI_ENTERS = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Comm_dup': 1,
              'MPI_Comm_split': 1, 'MPI_Bcast': 1, 'MPI_Allreduce': 1, 'MPI_Win_create': 1,
              'MPI_Win_fence': 2, 'MPI_Put': 1, 'MPI_Win_free': 1, 'MPI_File_open': 1,
              'MPI_File_write_at_all': 1, 'MPI_File_close': 1, 'MPI_Irecv': 1,
              'MPI_Isend': 1, 'MPI_Waitall': 1, 'MPI_Comm_free': 2, 'MPI_Finalize': 1}


def check(t, run, plain, n, what):
    vtmpi.same_as_plain(t, run, plain, what, stderr=False)
    t.check(any('recording stopped' in l for l in run.stderr.splitlines()),
            '%s: rank 0 says its recording stopped' % what, run.stderr[-300:])
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    for r in range(1, n):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        got = {k: v for k, v in loc.enters.items() if v and k.startswith('MPI_')}
        t.eq(got, MPI_ENTERS, '%s: every MPI call recorded' % w)
        kinds = collections.Counter(e.kind for e in mt.locs[r].events)
        t.eq((kinds['MpiIsend'], kinds['MpiIrecv'], kinds['RmaPut'],
              kinds['IoOperationBegin'], kinds['RmaWinCreate']), (1, 1, 1, 1, 1),
             '%s: its message, put, I/O and window events' % w)
    # rank 0 stopped in its loop: MPI_Init's region and no MPI event after it
    zero = locs.get(0)
    if t.check(zero is not None, '%s: rank 0 has a location' % what):
        t.eq(zero.enters.get('MPI_Comm_dup', 0), 0, '%s: rank 0 recorded nothing after the '
             'stop' % what)
        t.check(zero.kinds.get('MeasurementOnOff', 0) == 1,
                '%s: rank 0 marks where it stopped (one MeasurementOnOff)' % what,
                repr(dict(zero.kinds)))
    # the duplicate and the halves are defined with their members
    names = sorted((c.name, c.members) for c in mt.comms.values()
                   if c.name.startswith('MPI_Comm_'))
    evens, odds = tuple(range(0, n, 2)), tuple(range(1, n, 2))
    t.eq(names, sorted([('MPI_Comm_dup of MPI_COMM_WORLD', tuple(range(n))),
                        ('MPI_Comm_split of MPI_COMM_WORLD', evens),
                        ('MPI_Comm_split of MPI_COMM_WORLD', odds)] if n > 1 else []),
         '%s: the duplicate and both halves defined, with their members' % what)
    # messages between recording ranks pair up; those of rank 0 have one end only
    pairs, lone_s, lone_r, problems = vtmpi.messages(mt)
    t.eq(problems, [], '%s: message events name defined communicators' % what)
    t.eq(len(pairs), n - 2, '%s: the %d ring messages between recording ranks matched'
         % (what, n - 2))
    t.eq(sorted((s[0], s[1]) for s in lone_s) + sorted((r[0], r[1]) for r in lone_r),
         [(n - 1, 0), (0, 1)], '%s: only the messages to and from rank 0 have one end' % what)


def body(t):
    impls = [OPENMPI, MPICH]
    exes = vtmpi.build_all(t, 'mpi_stopped', ['mpi_stopped.c'], impls)
    for impl, n in ((OPENMPI, 4), (MPICH, 2)):
        vtmpi.require_runtime(impl)
        what = '%s np %d' % (impl, n)
        plain = vtmpi.mpirun(t, impl, n, exes[(impl, False)], label='plain-%s' % impl)
        t.eq((plain.status, len(plain.lines)), (0, n), '%s uninstrumented: status 0' % what)
        run = vtmpi.mpirun(t, impl, n, exes[(impl, True)], env=ENV, timeout=60,
                           label='%s' % impl)
        t.eq(run.status, 0, '%s: the run ends (no rank waits for the stopped one)' % what)
        check(t, run, plain, n, what)


vttest.main('mpi_stopped', body)
