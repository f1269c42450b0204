# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_scale": a 1-D stencil (stencil.c) on 64 ranks of Open MPI, oversubscribed on
this machine's cores. The unified trace has 64 rank locations in order, each with exactly
the program's regions and events; every one of the 2560 halo messages is matched (same
communicator, ranks, tag, length) and no receive completes before its send began after
clock correction; the 4 allreduces and the reduce agree across all 64 ranks in order, op,
root and time; the program's result is the same as without vt."""

import subprocess

import vtmpi
import vttest
from vtmpi import OPENMPI, ROOT_NONE, Var

NP = 64
STEPS = 20
W = Var('comm:WORLD')


def steps(r):
    out = []
    for s in range(STEPS):
        a, b, c, d = (Var('req:%d.%d' % (s, k)) for k in range(4))
        out.append([('MPI_Irecv', 'MpiIrecvRequest', a)])
        out.append([('MPI_Irecv', 'MpiIrecvRequest', b)])
        out.append([('MPI_Isend', 'MpiIsend', (r + 1) % NP, W, 1, 8, c)])
        out.append([('MPI_Isend', 'MpiIsend', (r + NP - 1) % NP, W, 2, 8, d)])
        # the four complete in one MPI_Waitall, in the order MPI lists them
        out.append([('MPI_Waitall', 'MpiIrecv', (r + NP - 1) % NP, W, 1, 8, a),
                    ('MPI_Waitall', 'MpiIrecv', (r + 1) % NP, W, 2, 8, b),
                    ('MPI_Waitall', 'MpiIsendComplete', c),
                    ('MPI_Waitall', 'MpiIsendComplete', d)])
        if s % 5 == 4:
            out += [[e] for e in vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, 8, 8)]
    out += [[e] for e in vtmpi.coll('MPI_Reduce', 'REDUCE', W, 0, 8, 8 if r == 0 else 0)]
    return out


ENTERS = {'main': 1, 'exchange': STEPS, 'update': STEPS, 'MPI_Init': 1, 'MPI_Finalize': 1,
          'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Irecv': 2 * STEPS,
          'MPI_Isend': 2 * STEPS, 'MPI_Waitall': STEPS, 'MPI_Allreduce': STEPS // 5,
          'MPI_Reduce': 1}


def check(t, run, plain, impl, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    t.check(any(l.endswith('conserved') for l in run.lines), '%s: rank 0 conserved' % what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    wrong = []
    for r in range(n):
        loc = locs.get(r)
        if loc is None:
            wrong.append('rank %d: no location' % r)
            continue
        got = {k: v for k, v in loc.enters.items() if v}
        if got != ENTERS:
            wrong.append('rank %d: Enter counts %r' % (r, got))
        b, problem = vtmpi.match_steps(steps(r), mt.sequence(r))
        if problem:
            wrong.append('rank %d: %s' % (r, problem))
    t.eq(wrong[:3], [], '%s: every rank\'s regions and MPI events exactly as expected' % what)
    vtmpi.check_messages(t, mt, what, count=2 * STEPS * n)
    # Small definitions, the smallest chunk: no 4 MiB chunk per location to fault in.
    out = subprocess.run(['otf2-print', '-A', tr.path], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    t.check('Chunk size definitions         262144' in out,
            '%s: definition chunk of 256 KiB' % what)
    vtmpi.check_collective_pairs(t, mt, what)
    vtmpi.check_collective_times(t, mt, what)


def body(t):
    vtmpi.build_and_run(t, 'stencil', ['stencil.c'], [(OPENMPI, NP)], check)


vttest.main('mpi_scale', body)
