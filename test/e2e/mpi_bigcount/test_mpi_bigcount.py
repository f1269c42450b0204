# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_bigcount": MPI 4.0's large-count forms (MPICH 4.0, 2 ranks; Open MPI 4.1 has
none) record the events of their int forms: MPI_Send_c/MPI_Recv_c, MPI_Sendrecv_c,
MPI_Sendrecv_replace_c, MPI_Isend_c/MPI_Irecv_c with MPI_Wait, MPI_Allreduce_c and
MPI_Bcast_c, exactly, every message matched with its length (the receives were regions
only before, so MPI_Send_c's messages had no receive)."""

import vtmpi
import vttest
from vtmpi import MPICH, ROOT_NONE, Var

W = Var('comm:WORLD')
INT, DBL = 4, 8


def steps(r):
    peer = 1 - r
    q = Var('req:1')
    out = []
    if r == 0:
        out.append(vtmpi.send('MPI_Send_c', 1, W, 1, 1000 * DBL))
    else:
        out.append(vtmpi.recv('MPI_Recv_c', 0, W, 1, 1000 * DBL))
    out += [vtmpi.send('MPI_Sendrecv_c', peer, W, 2, 10 * INT),
            vtmpi.recv('MPI_Sendrecv_c', peer, W, 2, 10 * INT),
            vtmpi.send('MPI_Sendrecv_replace_c', peer, W, 3, 3 * INT),
            vtmpi.recv('MPI_Sendrecv_replace_c', peer, W, 3, 3 * INT)]
    if r == 1:
        out += [vtmpi.isend('MPI_Isend_c', 0, W, 4, 5 * INT, q),
                vtmpi.isend_complete('MPI_Wait', q)]
    else:
        out += [vtmpi.irecv_request('MPI_Irecv_c', q),
                vtmpi.irecv('MPI_Wait', 1, W, 4, 5 * INT, q)]
    return vtmpi.steps_of(
        *out,
        vtmpi.coll('MPI_Allreduce_c', 'ALLREDUCE', W, ROOT_NONE, 4 * DBL, 4 * DBL),
        vtmpi.coll('MPI_Bcast_c', 'BCAST', W, 1, 6 * INT if r == 1 else 0,
                   0 if r == 1 else 6 * INT))


def body(t):
    vtmpi.require_runtime(MPICH)
    exes = vtmpi.build_all(t, 'mpi_bigcount', ['mpi_bigcount.c'], [MPICH])
    plain = vtmpi.mpirun(t, MPICH, 2, exes[(MPICH, False)], label='plain')
    t.eq((plain.status, len(plain.lines)), (0, 2), 'uninstrumented: status 0, 2 lines')
    run = vtmpi.mpirun(t, MPICH, 2, exes[(MPICH, True)], label='traced')
    what = 'mpich np 2'
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, 2)
    for r in range(2):
        vtmpi.match_sequence(t, mt.sequence(r), steps(r), '%s: rank %d' % (what, r))
    vtmpi.check_messages(t, mt, what, count=6)


vttest.main('mpi_bigcount', body)
