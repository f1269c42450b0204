# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_fortran": Fortran MPI programs ("use mpi" and "use mpi_f08") traced like C ones:
the same MPI_* regions, message and collective events, unified communicators, on 2 and 4
ranks of Open MPI and 2 of MPICH; stdout and status as without vt."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W = Var('comm:WORLD')
X = Var('comm:SPLIT')
# program -> [(impl, np)]
PROGRAMS = {'fmpi': [(OPENMPI, 2), (OPENMPI, 4), (MPICH, 2)],
            'fmpi08': [(OPENMPI, 2), (MPICH, 2)]}


def enters(r, size):
    """MPI regions entered by rank r, from fmpi.f90 (fmpi08.f90 is the same program)."""
    return {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Finalize': 1,
            'MPI_Send': 1 + (r > 0), 'MPI_Recv': 1 + (size - 1 if r == 0 else 0),
            'MPI_Irecv': 1, 'MPI_Isend': 1, 'MPI_Waitall': 1, 'MPI_Bcast': 1,
            'MPI_Allreduce': 3, 'MPI_Barrier': 1, 'MPI_Comm_split': 1, 'MPI_Comm_free': 1}


def steps(r, size):
    left, right = (r - 1) % size, (r + 1) % size
    s = vtmpi.send('MPI_Send', right, W, 10, 16)
    v = vtmpi.recv('MPI_Recv', left, W, 10, 16)
    out = [s, v] if r == 0 else [v, s]
    a, b = Var('req:a'), Var('req:b')
    out += [vtmpi.irecv_request('MPI_Irecv', a), vtmpi.isend('MPI_Isend', right, W, 20, 64, b),
            [vtmpi.irecv('MPI_Waitall', left, W, 20, 64, a),
             vtmpi.isend_complete('MPI_Waitall', b)]]
    # MPI_ANY_SOURCE with MPI_STATUS_IGNORE: sender, tag and length still come from a status
    if r == 0:
        out.append([vtmpi.recv('MPI_Recv', q, W, 40 + q, 4 * q) for q in range(1, size)])
    else:
        out.append(vtmpi.send('MPI_Send', 0, W, 40 + r, 4 * r))
    out += [vtmpi.coll('MPI_Bcast', 'BCAST', W, 0, 4 if r == 0 else 0, 0 if r == 0 else 4),
            vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, 4, 4),
            vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, 4, 4),
            vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0),
            vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', X, ROOT_NONE, 4, 4)]
    return vtmpi.steps_of(*out)


def check(t, run, plain, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, size)
    vtmpi.check_regions(t, mt, what, sorted(enters(0, size)))
    locs = {l.ref: l for l in tr.locations}
    binds = []
    for r in range(size):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        got = {k: v for k, v in loc.enters.items() if v and k.startswith(('MPI_', 'PMPI_'))}
        t.eq(got, enters(r, size), '%s: MPI regions entered' % w)
        st = steps(r, size)
        kinds = {k: v for k, v in loc.kinds.items() if k.startswith('Mpi')}
        want = vtmpi.pattern_kinds(st)
        handles = vtmpi.kind_counts(mt.handle_events(r))
        for k, v in handles.items():
            want[k] = want.get(k, 0) + v
        t.eq(kinds, want, '%s: MPI events per kind' % w)
        binds.append(vtmpi.match_sequence(t, mt.sequence(r), st, w))
    worlds = set(b.get('comm:WORLD') for b in binds)
    t.check(len(worlds) == 1 and None not in worlds,
            '%s: every rank\'s world events are on one communicator' % what, repr(worlds))
    if len(worlds) == 1 and None not in worlds:
        t.eq(mt.comm(worlds.pop()).members, tuple(range(size)),
             '%s: MPI_COMM_WORLD\'s group is the world ranks in order' % what)
    for r, b in enumerate(binds):
        c = mt.comms.get(b.get('comm:SPLIT'))
        t.eq(c and c.members, tuple(q for q in range(size) if q % 2 == r % 2),
             '%s: rank %d: the split communicator\'s members' % (what, r))
    vtmpi.check_messages(t, mt, what, count=3 * size - 1)
    vtmpi.check_collective_pairs(t, mt, what)
    vtmpi.check_collective_times(t, mt, what)


def body(t):
    impls = {impl for v in PROGRAMS.values() for impl, _ in v}
    builds = [(prog, impl, inst) for prog in PROGRAMS for impl in impls
              if any(i is impl for i, _ in PROGRAMS[prog]) for inst in (False, True)]
    exes = dict(zip(builds, t.parallel(
        lambda b: vtmpi.compile_fortran(t, b[1], b[0], [b[0] + '.f90'], instrument=b[2]),
        builds)))
    for prog, variants in PROGRAMS.items():
        for impl, np in variants:
            what = '%s %s np %d' % (prog, impl, np)
            plain = vtmpi.mpirun(t, impl, np, exes[(prog, impl, False)],
                                 label='plain-%s-%s%d' % (prog, impl, np))
            t.eq((plain.status, len(plain.lines)), (0, np),
                 '%s uninstrumented: status 0, one line per rank' % what)
            vtmpi.require_runtime(impl)
            run = vtmpi.mpirun(t, impl, np, exes[(prog, impl, True)],
                               label='%s-%s%d' % (prog, impl, np))
            check(t, run, plain, np, what)


vttest.main('mpi_fortran', body)
