# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_nbc": every non-blocking collective, neighbourhood collectives (blocking and not)
on a Cartesian line, and persistent collectives (MPICH: MPI 4), on 4 ranks of Open MPI and 2
of MPICH. Per rank, exactly: NonBlockingCollectiveRequest in the region that started the
operation, NonBlockingCollectiveComplete with operation, communicator, root and bytes in the
Wait that completed it, the two paired by request id (unique per start); neighbourhood
collectives as the all-gather / all-to-all they are over the neighbours that exist."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W, RING = Var('comm:WORLD'), Var('comm:RING')
INT = 4
USER = ['main', 'icollectives', 'neighbours', 'persistent']


class Seq:
    """Request ids: a fresh variable per started operation."""

    def __init__(self):
        self.n = 0

    def req(self):
        self.n += 1
        return Var('req:%d' % self.n)


def started(region, req):
    return (region, 'NonBlockingCollectiveRequest', req)


def completed(region, op, comm, root, sent, received, req):
    return (region, 'NonBlockingCollectiveComplete', op, comm, root, sent, received, req)


def tri(n):
    return n * (n + 1) // 2


def icoll_table(r, n):
    """(function, op, root, sent, received) of each MPI_I* call waited alone, in order."""
    root0, last = r == 0, r == n - 1
    return [
        ('MPI_Ibarrier', 'BARRIER', ROOT_NONE, 0, 0),
        ('MPI_Ibcast', 'BCAST', 0, 10 * INT if root0 else 0, 0 if root0 else 10 * INT),
        ('MPI_Igather', 'GATHER', 0, 2 * INT, 2 * INT * n if root0 else 0),
        ('MPI_Igatherv', 'GATHERV', 0, (r + 1) * INT, tri(n) * INT if root0 else 0),
        ('MPI_Iscatter', 'SCATTER', 0, 5 * INT * n if root0 else 0, 5 * INT),
        ('MPI_Iscatterv', 'SCATTERV', 0, tri(n) * INT if root0 else 0, (r + 1) * INT),
        ('MPI_Iallgather', 'ALLGATHER', ROOT_NONE, 3 * INT, 3 * INT * n),
        ('MPI_Iallgatherv', 'ALLGATHERV', ROOT_NONE, (r + 1) * INT, tri(n) * INT),
        ('MPI_Ialltoall', 'ALLTOALL', ROOT_NONE, 4 * INT * n, 4 * INT * n),
        ('MPI_Ialltoallv', 'ALLTOALLV', ROOT_NONE, tri(n) * INT, n * (r + 1) * INT),
        ('MPI_Ialltoallw', 'ALLTOALLW', ROOT_NONE, tri(n) * INT, n * (r + 1) * INT),
        ('MPI_Ireduce', 'REDUCE', n - 1, 3 * INT, 3 * INT if last else 0),
        ('MPI_Iallreduce', 'ALLREDUCE', ROOT_NONE, 6 * INT, 6 * INT),
        ('MPI_Ireduce_scatter', 'REDUCE_SCATTER', ROOT_NONE, tri(n) * INT, (r + 1) * INT),
        ('MPI_Ireduce_scatter_block', 'REDUCE_SCATTER_BLOCK', ROOT_NONE, 2 * INT * n, 2 * INT),
        ('MPI_Iscan', 'SCAN', ROOT_NONE, INT, INT),
        ('MPI_Iexscan', 'EXSCAN', ROOT_NONE, INT, INT),
    ]


def neighbour_table(r, n):
    """(function, op, sent, received) of the neighbourhood collectives on the line: rank r
    has a lower neighbour unless r = 0 and an upper one unless r = n - 1."""
    lo, up = int(r > 0), int(r < n - 1)
    return [
        ('Neighbor_allgather', 'ALLGATHER', 2 * INT * (lo + up), 2 * INT * (lo + up)),
        ('Neighbor_allgatherv', 'ALLGATHERV', INT * (lo + up), INT * (lo + 2 * up)),
        ('Neighbor_alltoall', 'ALLTOALL', 3 * INT * (lo + up), 3 * INT * (lo + up)),
        ('Neighbor_alltoallv', 'ALLTOALLV', INT * (lo + 2 * up), INT * (2 * lo + up)),
        ('Neighbor_alltoallw', 'ALLTOALLW', INT * (lo + 2 * up), INT * (2 * lo + up)),
    ]


def steps(r, n, persistent):
    s = Seq()
    out = []
    for fn, op, root, sent, recvd in icoll_table(r, n):
        q = s.req()
        out += [[started(fn, q)], [completed('MPI_Wait', op, W, root, sent, recvd, q)]]
    # two in flight, completed by one MPI_Waitall
    a, b = s.req(), s.req()
    out += [[started('MPI_Iallreduce', a)], [started('MPI_Ibcast', b)],
            [completed('MPI_Waitall', 'ALLREDUCE', W, ROOT_NONE, 2 * INT, 2 * INT, a),
             completed('MPI_Waitall', 'BCAST', W, n - 1, 7 * INT if r == n - 1 else 0,
                       0 if r == n - 1 else 7 * INT, b)]]
    # two in flight, completed by two MPI_Waitany in either order
    a, b = s.req(), s.req()
    out += [[started('MPI_Ibarrier', a)], [started('MPI_Iallgather', b)],
            [completed('MPI_Waitany', 'BARRIER', W, ROOT_NONE, 0, 0, a),
             completed('MPI_Waitany', 'ALLGATHER', W, ROOT_NONE, INT, INT * n, b)]]
    for fn, op, sent, recvd in neighbour_table(r, n):
        out += [[e] for e in vtmpi.coll('MPI_' + fn, op, RING, ROOT_NONE, sent, recvd)]
    for fn, op, sent, recvd in neighbour_table(r, n):
        q = s.req()
        out += [[started('MPI_I' + fn[0].lower() + fn[1:], q)],
                [completed('MPI_Wait', op, RING, ROOT_NONE, sent, recvd, q)]]
    if persistent:
        for _ in range(2):
            a, b = s.req(), s.req()
            out += [[started('MPI_Startall', a)], [started('MPI_Startall', b)],
                    [completed('MPI_Waitall', 'ALLREDUCE', W, ROOT_NONE, 2 * INT, 2 * INT, a),
                     completed('MPI_Waitall', 'BCAST', W, 0, 3 * INT if r == 0 else 0,
                               0 if r == 0 else 3 * INT, b)]]
    return out


def enters(n, persistent):
    e = {name: 1 for name in USER}
    e.update({'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1,
              'MPI_Cart_create': 1, 'MPI_Comm_set_name': 1, 'MPI_Comm_free': 1, 'MPI_Wait': 17 + 5, 'MPI_Waitall': 1,
              'MPI_Waitany': 2})
    for fn, _, _, _, _ in icoll_table(0, n):
        e[fn] = e.get(fn, 0) + 1
    for fn in ('MPI_Ibarrier', 'MPI_Iallgather', 'MPI_Iallreduce', 'MPI_Ibcast'):
        e[fn] += 1
    for fn, _, _, _ in neighbour_table(0, n):
        e['MPI_' + fn] = 1
        e['MPI_I' + fn[0].lower() + fn[1:]] = 1
    if persistent:
        e.update({'MPI_Allreduce_init': 1, 'MPI_Bcast_init': 1, 'MPI_Startall': 2,
                  'MPI_Request_free': 2})
        e['MPI_Waitall'] += 2
    return e


def check(t, run, plain, impl, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    persistent = all(l.endswith('persistent=1') for l in run.lines)
    t.eq(persistent, impl is MPICH, '%s: persistent collectives exactly where MPI 4 has them'
         % what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    bind = {}
    for r in range(n):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        t.enter_counts(loc, enters(n, persistent), w)
        vtmpi.check_handle_events(t, mt, r, w, ['MPI_Cart_create', 'MPI_Comm_free'])
        bind[r] = vtmpi.match_sequence(t, mt.sequence(r), steps(r, n, persistent), w)
    rings = [bind.get(r, {}).get('comm:RING') for r in range(n)]
    if t.check(len(set(rings)) == 1 and None not in rings,
               '%s: the Cartesian communicator has one definition on all ranks' % what,
               'per rank: %r' % rings):
        t.eq(mt.comm(rings[0]).members, tuple(range(n)),
             '%s: the Cartesian communicator\'s members' % what)
        # MPI_Comm_set_name is local: where ranks disagree, rank 0's name is the trace's
        t.eq(mt.comm(rings[0]).name, 'line of ranks',
             '%s: the Cartesian communicator has the name rank 0 gave it' % what)
    worlds = set(bind.get(r, {}).get('comm:WORLD') for r in range(n))
    if len(worlds) == 1 and None not in worlds:
        t.eq(mt.comm(worlds.pop()).name, 'MPI_COMM_WORLD', '%s: MPI_COMM_WORLD\'s name' % what)
    # completions in time: no rank completes an all-to-all kind before every rank started it
    per_rank = {}  # rank: [(op, comm, start, completion)] in the order they were started
    for r in range(n):
        evs = mt.sequence(r)
        done = {e.field('request_id'): e for e in evs
                if e.kind == 'NonBlockingCollectiveComplete'}
        per_rank[r] = [(done[e.field('request_id')].field('collective_op'),
                        done[e.field('request_id')].field('communicator'), e.time,
                        done[e.field('request_id')].time)
                       for e in evs if e.kind == 'NonBlockingCollectiveRequest'
                       and e.field('request_id') in done]
    late = []
    for k, (op, comm, _, _) in enumerate(per_rank.get(0, [])):
        if op not in ('BARRIER', 'ALLREDUCE', 'ALLTOALL') or comm != bind.get(0, {}).get(
                'comm:WORLD'):
            continue
        try:
            begins = [per_rank[r][k][2] for r in range(n)]
            ends = [per_rank[r][k][3] for r in range(n)]
        except (IndexError, KeyError):
            continue
        if None not in begins and min(ends) < max(begins):
            late.append('%s #%d: a rank completed %d ticks before the last one started'
                        % (op, k, max(begins) - min(ends)))
    t.eq(late, [], '%s: no barrier/allreduce/alltoall completes before all ranks started it'
         % what)


def body(t):
    vtmpi.build_and_run(t, 'mpi_nbc', ['mpi_nbc.c'], [(OPENMPI, 4), (MPICH, 2)], check)


vttest.main('mpi_nbc', body)
