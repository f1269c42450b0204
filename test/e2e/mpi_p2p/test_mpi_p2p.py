# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_p2p": point-to-point MPI (blocking, synchronous, non-blocking, sendrecv, probe,
MPI_PROC_NULL, MPI_ANY_SOURCE/MPI_ANY_TAG) on 2 and 4 ranks of Open MPI and 2 of MPICH:
exact regions and MPI events per rank, every message matched, receives after sends."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, Var

# From mpi_p2p.c, by hand, for rank r of S (left = r - 1, right = r + 1, mod S); lengths in
# bytes (int: 4, double: 8).
RING = [(10, 1 * 4), (11, 100 * 4), (12, 25000 * 4)]  # (tag, length) of ring message k
USER = ['main', 'ring', 'nonblocking', 'exchange', 'probe_then_recv', 'proc_null',
        'any_source']
W = Var('comm:WORLD')


def enters(r, size):
    e = {name: 1 for name in USER}
    e.update({'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Finalize': 1,
              'MPI_Ssend': 1, 'MPI_Irecv': 2, 'MPI_Isend': 2, 'MPI_Waitall': 1,
              'MPI_Sendrecv': 1})
    # ring: 2 MPI_Send, 3 MPI_Recv; proc_null: 1 of each; probe: rank 1 sends, rank 0
    # probes, counts, receives; any_source: rank 0 receives size - 1 times and counts each.
    e['MPI_Send'] = 2 + 1 + (r == 1) + (r > 0)
    e['MPI_Recv'] = 3 + 1 + (r == 0) + (size - 1 if r == 0 else 0)
    if r == 0:
        e['MPI_Probe'] = 1
        e['MPI_Get_count'] = 1 + size - 1
    return e


def steps(r, size):
    left, right = (r - 1) % size, (r + 1) % size
    out = []
    for k, (tag, n) in enumerate(RING):
        s = vtmpi.send('MPI_Ssend' if k == 1 else 'MPI_Send', right, W, tag, n)
        v = vtmpi.recv('MPI_Recv', left, W, tag, n)
        out += [s, v] if r == 0 else [v, s]
    # nonblocking: Irecv from left (tag 20, 8 doubles), Irecv from right (21, 2 doubles),
    # Isend right (20), Isend left (21), then one MPI_Waitall completes all four.
    a, b, c, d = (Var('req:' + x) for x in 'abcd')
    out += [vtmpi.irecv_request('MPI_Irecv', a), vtmpi.irecv_request('MPI_Irecv', b),
            vtmpi.isend('MPI_Isend', right, W, 20, 64, c),
            vtmpi.isend('MPI_Isend', left, W, 21, 16, d),
            [vtmpi.irecv('MPI_Waitall', left, W, 20, 64, a),
             vtmpi.irecv('MPI_Waitall', right, W, 21, 16, b),
             vtmpi.isend_complete('MPI_Waitall', c), vtmpi.isend_complete('MPI_Waitall', d)]]
    # exchange: MPI_Sendrecv, 5 ints right, 5 from left (tag 30): the send, then the receive.
    out += [vtmpi.send('MPI_Sendrecv', right, W, 30, 20),
            vtmpi.recv('MPI_Sendrecv', left, W, 30, 20)]
    # probe_then_recv: rank 1 sends 7 doubles to rank 0 (tag 50); MPI_Probe, MPI_Get_count
    # record nothing.
    if r == 0:
        out.append(vtmpi.recv('MPI_Recv', 1, W, 50, 56))
    elif r == 1:
        out.append(vtmpi.send('MPI_Send', 0, W, 50, 56))
    # proc_null: MPI_Send and MPI_Recv with MPI_PROC_NULL record no message.
    # any_source: rank q > 0 sends q ints with tag 40 + q; rank 0 receives them with
    # MPI_ANY_SOURCE, MPI_ANY_TAG into 64 ints, in whatever order they arrive: sender, tag
    # and length from the status.
    if r == 0:
        out.append([vtmpi.recv('MPI_Recv', q, W, 40 + q, 4 * q) for q in range(1, size)])
    else:
        out.append(vtmpi.send('MPI_Send', 0, W, 40 + r, 4 * r))
    return vtmpi.steps_of(*out)


def check(t, run, plain, impl, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, size)
    names = sorted(set(n for r in range(size) for n in enters(r, size) if n.startswith('MPI_')))
    vtmpi.check_regions(t, mt, what, names)
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
        b = vtmpi.match_sequence(t, mt.sequence(r, skip_handles=False), st, w)
        worlds.append(b.get('comm:WORLD'))
    t.check(len(set(worlds)) == 1 and None not in worlds,
            '%s: every rank\'s messages are on one communicator (MPI_COMM_WORLD)' % what,
            'per rank: %r' % worlds)
    if worlds and worlds[0] is not None:
        c = mt.comms.get(worlds[0])
        t.eq(c and c.members, tuple(range(size)),
             '%s: that communicator\'s group is the world ranks in order' % what)
    # 3 ring messages, 2 non-blocking and 1 sendrecv per rank, 1 probed, size - 1 any-source
    vtmpi.check_messages(t, mt, what, count=7 * size)


def body(t):
    vtmpi.build_and_run(t, 'mpi_p2p', ['mpi_p2p.c'], [(OPENMPI, 2), (OPENMPI, 4), (MPICH, 2)],
                        check)


vttest.main('mpi_p2p', body)
