# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_abort": a rank calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in
MPI_Recv. The program must behave as without vt: the same exit status and stdout lines, no
rank crashing, no vt error, no hang, no rank left over, over several runs and rank counts.
(What the aborting rank writes is the test mpi_abort_trace's.)

An abort makes the launcher tear down its stdout forwarding while ranks may still have lines
in flight: MPICH's hydra loses some or all lines in about 1 of 25 runs of the uninstrumented
program (measured on the 2-core VM). So each run's lines must be ones the program prints,
and at least one of the runs of each variant must have them all."""

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
        expected = sorted(['rank %d: started' % r for r in range(np)] + ['rank 1: aborting'])
        t.check(set(plain.lines) <= set(expected), '%s: stdout lines are the program\'s'
                % what, repr(plain.lines))
        plains[(impl, np)] = expected
    for impl, np in VARIANTS:
        vtmpi.require_runtime(impl)
        complete = 0
        for i in range(REPEAT):
            what = '%s np %d run %d' % (impl, np, i + 1)
            run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                               label='%s%d-%d' % (impl, np, i + 1))
            # Open MPI's own messages about an abort vary from run to run even without vt
            # ("MPI_ABORT was invoked" or an ORTE_ERROR_LOG line): not compared.
            expected = plains[(impl, np)]
            t.check(set(run.lines) <= set(expected) and len(run.lines) <= len(expected),
                    '%s: stdout lines are the program\'s' % what, repr(run.lines))
            complete += run.lines == expected
            t.eq(run.status, 3, '%s: exit status as uninstrumented (MPI_Abort\'s code)' % what)
            vtmpi.no_crash(t, run, what)
            t.eq(run.errors, [], '%s: no vt error' % what)
            vtmpi.messages_well_formed(t, run, what)
            t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
            t.note('%s: vt said %r; trace directory holds %r'
                   % (what, run.messages, sorted(os.listdir(run.gdir))))
        t.check(complete > 0, '%s np %d: at least one run has every stdout line' % (impl, np),
                '%d of %d' % (complete, REPEAT))


vttest.main('mpi_abort', body)
