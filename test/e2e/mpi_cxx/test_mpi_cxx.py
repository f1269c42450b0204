# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_cxx": MPI's C bindings called from C++ methods (vtcxx over mpicxx), on 2 ranks of
Open MPI and of MPICH: demangled user regions (one of them run before MPI_Init) and MPI
regions and events exact per rank, every message matched."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

ROUNDS = 4
TAG = 70
W = Var('comm:WORLD')


def enters(r, size):
    return {
        'main': 1,
        'before_main()': 1,  # a constructor function: before main, before MPI_Init
        'int ring::checksum<int>(int const*, int)': ROUNDS + 1,
        'ring::Channel::Channel(int, int)': 1,
        'ring::Channel::exchange(int) const': 1,
        'ring::Channel::send_right(int const*, int, int) const': ROUNDS,
        'ring::Channel::recv_left(int*, int, int) const': ROUNDS,
        'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Send': ROUNDS,
        'MPI_Recv': ROUNDS, 'MPI_Get_count': ROUNDS, 'MPI_Allreduce': 1, 'MPI_Finalize': 1,
    }


def steps(r, size):
    left, right = (r - 1) % size, (r + 1) % size
    out = []
    for k in range(ROUNDS):  # round k: k + 1 ints, tag 70 + k; rank 0 sends first
        s = vtmpi.send('MPI_Send', right, W, TAG + k, 4 * (k + 1))
        v = vtmpi.recv('MPI_Recv', left, W, TAG + k, 4 * (k + 1))
        out += [s, v] if r == 0 else [v, s]
    out.append(vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, 8, 8))  # one long
    return vtmpi.steps_of(*out)


def check(t, run, plain, impl, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, size)
    vtmpi.check_regions(t, mt, what, sorted(n for n in enters(0, size) if n.startswith('MPI_')))
    mangled = sorted(n for n in mt.regions if n.startswith('_Z'))
    t.eq(mangled, [], '%s: no region keeps a mangled name' % what)
    locs = {l.ref: l for l in tr.locations}
    worlds = []
    for r in range(size):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        want = enters(r, size)
        t.enter_counts(loc, want, w)
        st = steps(r, size)
        kinds = vtmpi.pattern_kinds(st)
        kinds.update(Enter=sum(want.values()), Leave=sum(want.values()))
        t.eq(dict(loc.kinds), kinds, '%s: events per kind' % w)
        worlds.append(vtmpi.match_sequence(t, mt.sequence(r, skip_handles=False), st,
                                           w).get('comm:WORLD'))
    t.check(len(set(worlds)) == 1 and None not in worlds,
            '%s: all events are on one communicator' % what, 'per rank: %r' % worlds)
    if worlds and worlds[0] is not None:
        c = mt.comms.get(worlds[0])
        t.eq(c and c.members, tuple(range(size)), '%s: it is MPI_COMM_WORLD' % what)
    vtmpi.check_messages(t, mt, what, count=ROUNDS * size)
    vtmpi.check_collective_times(t, mt, what)


def body(t):
    vtmpi.build_and_run(t, 'mpi_cxx', ['mpi_cxx.cpp'], [(OPENMPI, 2), (MPICH, 2)], check,
                        lang='c++')


vttest.main('mpi_cxx', body)
