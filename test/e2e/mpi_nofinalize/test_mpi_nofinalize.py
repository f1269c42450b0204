# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_nofinalize": rank 1 returns from main without MPI_Finalize. Open MPI's mpirun
then reports the rank and exits non-zero; MPICH's ends the job. With vt the program must
behave as without: the same exit status, stdout lines and MPI messages, no vt error, no
hang, no rank left over.

MPICH's launcher ends the job when a rank exits without MPI_Finalize while another rank has
not yet left MPI_Finalize: without vt rank 0 usually wins that race; with vt, rank 0 waits in
MPI_Finalize for the definitions of rank 1, which never come, and hydra kills it (status 9 and
its "BAD TERMINATION" banner). Both are MPICH's own ways to end such a job; for MPICH the
test accepts either, as long as the program's lines are all there."""

import os

HYDRA_BANNER = 'BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES'
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

VARIANTS = [(OPENMPI, 2), (OPENMPI, 3), (MPICH, 2)]
REPEAT = 2


def body(t):
    exes = vtmpi.build_all(t, 'mpi_nofinalize', ['mpi_nofinalize.c'], [OPENMPI, MPICH])
    plains = {}
    for impl, np in VARIANTS:
        what = '%s np %d uninstrumented' % (impl, np)
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], timeout=60,
                             label='plain-%s%d' % (impl, np))
        total = np * (np + 1) // 2
        t.eq(plain.lines, sorted('rank %d: sum %d' % (r, total) for r in range(np)),
             '%s: stdout' % what)
        if impl is OPENMPI:
            t.check(plain.status != 0, '%s: mpirun exits non-zero' % what,
                    'status %d' % plain.status)
        plains[(impl, np)] = plain
    for impl, np in VARIANTS:
        vtmpi.require_runtime(impl)
        for i in range(REPEAT):
            what = '%s np %d run %d' % (impl, np, i + 1)
            run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                               label='%s%d-%d' % (impl, np, i + 1))
            plain = plains[(impl, np)]
            if impl is MPICH and run.status != plain.status and \
                    any(HYDRA_BANNER in l for l in run.lines):
                own = [l for l in run.lines if l.startswith('rank ')]
                t.eq(own, plain.lines, '%s: stdout lines of the program as uninstrumented'
                     % what)
                t.eq(run.status, 9, '%s: hydra ended the job (status 9)' % what)
                t.note('%s: hydra ended the job as MPICH does when a rank leaves without '
                       'MPI_Finalize' % what)
            else:
                vtmpi.same_as_plain(t, run, plain, what)
            vtmpi.no_crash(t, run, what)
            t.eq(run.errors, [], '%s: no vt error' % what)
            vtmpi.messages_well_formed(t, run, what)
            t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
            t.note('%s: vt said %r; trace directory holds %r'
                   % (what, run.messages, sorted(os.listdir(run.gdir))))


vttest.main('mpi_nofinalize', body)
