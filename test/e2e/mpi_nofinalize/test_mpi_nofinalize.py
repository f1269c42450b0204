# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_nofinalize": rank 1 returns from main without MPI_Finalize. Open MPI's mpirun
then reports the rank and exits non-zero; MPICH's ends the job. With vt the program must
behave as without: the same exit status, stdout lines and MPI messages, no vt error, no
hang, no rank left over.

MPICH's launcher ends the job when a rank exits without MPI_Finalize while another rank has
not yet left MPI_Finalize: without vt rank 0 usually wins that race; with vt, rank 0 waits in
MPI_Finalize for the definitions of rank 1, which never come, and hydra kills it (status 9 and
its "BAD TERMINATION" banner), and a line not yet forwarded may be lost, with or without vt.
These are MPICH's own ways to end such a job; for MPICH the test accepts them (see
check_mpich) and compares nothing else with the uninstrumented run."""

import os

HYDRA_BANNER = 'BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES'
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

VARIANTS = [(OPENMPI, 2), (OPENMPI, 3), (MPICH, 2)]
REPEAT = 2


def expected_lines(np):
    total = np * (np + 1) // 2
    return sorted('rank %d: sum %d' % (r, total) for r in range(np))


def check_mpich(t, run, np, what):
    """MPICH: whether hydra kills the job before a rank's line got out is a race, with or
    without vt (measured: an uninstrumented run lost rank 0's line). What must hold: only
    the program's lines (a subset of them) besides hydra's own banner, and either a normal
    end or hydra's kill (status 9 with its banner)."""
    own = [l for l in run.lines if l.startswith('rank ')]
    t.check(set(own) <= set(expected_lines(np)) and len(own) == len(set(own)),
            '%s: stdout holds only lines of the program, each once' % what, repr(own))
    banner = any(HYDRA_BANNER in l for l in run.lines)
    t.check(run.status == 0 or (run.status == 9 and banner),
            '%s: the job ends normally or by hydra\'s kill (status 9 with its banner)' % what,
            'status %d, banner %s' % (run.status, banner))
    if own != expected_lines(np) or run.status:
        t.note('%s: status %d, lines %r: hydra ended the job as MPICH does when a rank '
               'leaves without MPI_Finalize' % (what, run.status, own))


def body(t):
    exes = vtmpi.build_all(t, 'mpi_nofinalize', ['mpi_nofinalize.c'], [OPENMPI, MPICH])
    plains = {}
    for impl, np in VARIANTS:
        what = '%s np %d uninstrumented' % (impl, np)
        plain = vtmpi.mpirun(t, impl, np, exes[(impl, False)], timeout=60,
                             label='plain-%s%d' % (impl, np))
        if impl is OPENMPI:
            t.eq(plain.lines, expected_lines(np), '%s: stdout' % what)
            t.check(plain.status != 0, '%s: mpirun exits non-zero' % what,
                    'status %d' % plain.status)
        else:
            check_mpich(t, plain, np, what)
        plains[(impl, np)] = plain
    for impl, np in VARIANTS:
        vtmpi.require_runtime(impl)
        for i in range(REPEAT):
            what = '%s np %d run %d' % (impl, np, i + 1)
            run = vtmpi.mpirun(t, impl, np, exes[(impl, True)], timeout=60,
                               label='%s%d-%d' % (impl, np, i + 1))
            if impl is MPICH:
                check_mpich(t, run, np, what)
            else:
                vtmpi.same_as_plain(t, run, plains[(impl, np)], what)
            vtmpi.no_crash(t, run, what)
            t.eq(run.errors, [], '%s: no vt error' % what)
            vtmpi.messages_well_formed(t, run, what)
            t.eq(run.leftovers, [], '%s: no process of the run outlives mpirun' % what)
            t.note('%s: vt said %r; trace directory holds %r'
                   % (what, run.messages, sorted(os.listdir(run.gdir))))


vttest.main('mpi_nofinalize', body)
