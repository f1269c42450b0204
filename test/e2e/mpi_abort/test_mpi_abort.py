# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_abort": a rank calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in
MPI_Recv. What is traced then is not guaranteed; the program must behave as without vt: the
same exit status and stdout lines, no rank crashing, no vt error, no hang, no rank left
over."""

import os

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

VARIANTS = [(OPENMPI, 2), (OPENMPI, 3), (MPICH, 2)]
REPEAT = 3  # the abort races with the other ranks' wrappers: a few runs each


def body(t):
    exes = vtmpi.build_all(t, 'mpi_abort', ['mpi_abort.c'], [OPENMPI, MPICH])
    plains = {}
    for impl, np in VARIANTS:
        what = '%s np %d uninstrumented' % (impl, np)
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], label='plain-%s%d' % (impl, np))
        t.eq(plain.status, 3, '%s: mpirun exits with MPI_Abort\'s code' % what)
        t.eq(plain.lines, sorted(['rank %d: started' % r for r in range(np)]
                                 + ['rank 1: aborting']), '%s: stdout' % what)
        plains[(impl, np)] = plain
    for impl, np in VARIANTS:
        vtmpi.require_runtime(impl)
        for i in range(REPEAT):
            what = '%s np %d run %d' % (impl, np, i + 1)
            run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                               label='%s%d-%d' % (impl, np, i + 1))
            # Open MPI's own messages about an abort vary from run to run even without vt
            # ("MPI_ABORT was invoked" or an ORTE_ERROR_LOG line): not compared.
            vtmpi.same_as_plain(t, run, plains[(impl, np)], what, stderr=False)
            vtmpi.no_crash(t, run, what)
            t.eq(run.errors, [], '%s: no vt error' % what)
            vtmpi.messages_well_formed(t, run, what)
            t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
            t.note('%s: vt said %r; trace directory holds %r'
                   % (what, run.messages, sorted(os.listdir(run.gdir))))


vttest.main('mpi_abort', body)
