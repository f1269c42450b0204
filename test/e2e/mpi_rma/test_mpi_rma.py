# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_rma": one-sided communication as OTF2 models it, on 4 ranks of Open MPI and 2 of
MPICH (mpi_rma.c says what the program does). Per rank, exactly: windows created and freed
inside RMA collectives (CREATE_HANDLE, or _AND_ALLOCATE for MPI_Win_allocate), fences as RMA
collectives that complete the epoch's operations remotely, RmaPut/RmaGet/RmaAtomic with
target, bytes and a matching id that one completion refers to, PSCW as RmaGroupSync with the
world ranks of the epoch's group, passive target as RmaRequestLock/RmaReleaseLock with the
operations completed at the unlock and flush, a request-based MPI_Rput completed locally at
MPI_Wait, Gets completed (locally, and no more) by MPI_Win_flush_local and a Put completed
locally by it and remotely at the unlock; the windows' definitions with their communicator
and names."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W, A, B = Var('comm:WORLD'), Var('win:A'), Var('win:B')
INT = 4
PM = 'PROCESS|MEMORY'
ALL = 0xFFFFFFFF  # OTF2_UNDEFINED_UINT32: every process of the window


class Ids:
    def __init__(self):
        self.n = 0

    def new(self):
        self.n += 1
        return Var('op:%d' % self.n)


def one(*events):
    """Each event a step of its own, in order."""
    return [[e] for e in events]


def rma_coll(region, op, win, sync='NONE', between=()):
    return one((region, 'RmaCollectiveBegin'), *between,
               (region, 'RmaCollectiveEnd', op, sync, win, ROOT_NONE, 0, 0))


def remote(region, win, op):
    return (region, 'RmaOpCompleteRemote', win, op)


def steps(r, n):
    nx, pv = (r + 1) % n, (r + n - 1) % n
    ids = Ids()
    out = []
    out += rma_coll('MPI_Win_create', 'CREATE_HANDLE', A,
                    between=[('MPI_Win_create', 'RmaWinCreate', A)])
    out += rma_coll('MPI_Win_fence', 'BARRIER', A, PM)
    p, g, a = ids.new(), ids.new(), ids.new()
    out += one(('MPI_Put', 'RmaPut', A, nx, 2 * INT, p),
               ('MPI_Get', 'RmaGet', A, pv, 3 * INT, g),
               ('MPI_Accumulate', 'RmaAtomic', A, 0, 'ACCUMULATE', INT, 0, a))
    out += rma_coll('MPI_Win_fence', 'BARRIER', A, PM,
                    between=[remote('MPI_Win_fence', A, x) for x in (p, g, a)])
    evens, odds = tuple(range(0, n, 2)), tuple(range(1, n, 2))
    if r % 2 == 0:
        out += one(('MPI_Win_post', 'RmaGroupSync', PM, A, odds),
                   ('MPI_Win_wait', 'RmaGroupSync', PM, A, odds))
    else:
        puts = [(k, ids.new()) for k in evens]
        out += one(('MPI_Win_start', 'RmaGroupSync', PM, A, evens),
                   *[('MPI_Put', 'RmaPut', A, k, INT, x) for k, x in puts],
                   *[remote('MPI_Win_complete', A, x) for _, x in puts],
                   ('MPI_Win_complete', 'RmaGroupSync', PM, A, evens))
    out += one(*vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0))
    f, c = ids.new(), ids.new()
    out += one(('MPI_Win_lock', 'RmaRequestLock', A, nx, 0, 'EXCLUSIVE'),
               ('MPI_Fetch_and_op', 'RmaAtomic', A, nx, 'FETCH_AND_ACCUMULATE', INT, INT, f),
               ('MPI_Compare_and_swap', 'RmaAtomic', A, nx, 'COMPARE_AND_SWAP', 2 * INT, INT,
                c),
               remote('MPI_Win_unlock', A, f), remote('MPI_Win_unlock', A, c),
               ('MPI_Win_unlock', 'RmaReleaseLock', A, nx, 0))
    q, ga = ids.new(), ids.new()
    # A Get completed by a flush_local is done (its data arrived): completed locally, never
    # remotely; the Get_accumulate and a Put completed locally (the first flush_local
    # completes the Get_accumulate too) are completed remotely at the unlock.
    gets = [ids.new() for _ in range(3)]
    lp = ids.new()
    flushed = []
    for k, x in enumerate(gets):
        flushed += [('MPI_Get', 'RmaGet', A, nx, INT, x)]
        if k == 0:
            flushed += [('MPI_Win_flush_local', 'RmaOpCompleteBlocking', A, ga)]
        flushed += [('MPI_Win_flush_local', 'RmaOpCompleteBlocking', A, x)]
    out += one(('MPI_Win_lock_all', 'RmaRequestLock', A, ALL, 0, 'SHARED'),
               ('MPI_Rput', 'RmaPut', A, pv, 2 * INT, q),
               ('MPI_Wait', 'RmaOpCompleteNonBlocking', A, q),
               remote('MPI_Win_flush_all', A, q),
               ('MPI_Get_accumulate', 'RmaAtomic', A, nx, 'FETCH_AND_ACCUMULATE', INT, INT,
                ga),
               *flushed,
               ('MPI_Put', 'RmaPut', A, nx, INT, lp),
               ('MPI_Win_flush_local', 'RmaOpCompleteBlocking', A, lp),
               remote('MPI_Win_unlock_all', A, ga), remote('MPI_Win_unlock_all', A, lp),
               ('MPI_Win_unlock_all', 'RmaReleaseLock', A, ALL, 0))
    out += one(*vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0))
    out += rma_coll('MPI_Win_free', 'DESTROY_HANDLE', A,
                    between=[('MPI_Win_free', 'RmaWinDestroy', A)])
    out += rma_coll('MPI_Win_allocate', 'CREATE_HANDLE_AND_ALLOCATE', B,
                    between=[('MPI_Win_allocate', 'RmaWinCreate', B)])
    out += rma_coll('MPI_Win_fence', 'BARRIER', B, PM)
    b = ids.new()
    out += one(('MPI_Put', 'RmaPut', B, nx, 4 * INT, b))
    out += rma_coll('MPI_Win_fence', 'BARRIER', B, PM,
                    between=[remote('MPI_Win_fence', B, b)])
    out += rma_coll('MPI_Win_free', 'DESTROY_HANDLE_AND_DEALLOCATE', B,
                    between=[('MPI_Win_free', 'RmaWinDestroy', B)])
    return out


def enters(r, n):
    e = {'main': 1, 'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1,
         'MPI_Win_create': 1, 'MPI_Win_fence': 4, 'MPI_Put': 3, 'MPI_Get': 4,
         'MPI_Win_flush_local': 4,
         'MPI_Accumulate': 1, 'MPI_Comm_group': 1, 'MPI_Group_incl': 1, 'MPI_Group_free': 2,
         'MPI_Barrier': 2, 'MPI_Win_lock': 1, 'MPI_Fetch_and_op': 1,
         'MPI_Compare_and_swap': 1, 'MPI_Win_unlock': 1, 'MPI_Win_lock_all': 1, 'MPI_Rput': 1,
         'MPI_Wait': 1, 'MPI_Win_flush_all': 1, 'MPI_Get_accumulate': 1,
         'MPI_Win_unlock_all': 1, 'MPI_Win_free': 2, 'MPI_Win_allocate': 1,
         'MPI_Win_set_name': 1}
    if r % 2 == 0:
        e.update({'MPI_Win_post': 1, 'MPI_Win_wait': 1})
    else:
        e.update({'MPI_Win_start': 1, 'MPI_Win_complete': 1})
        e['MPI_Put'] += len(range(0, n, 2))
    return e


def check(t, run, plain, impl, n, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, n)
    locs = {l.ref: l for l in tr.locations}
    bind = {}
    for r in range(n):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        t.enter_counts(loc, enters(r, n), w)
        bind[r] = vtmpi.match_sequence(t, mt.sequence(r), steps(r, n), w)
    for label, name in (('A', 'MPI_Win_create on MPI_COMM_WORLD'), ('B', 'allocated')):
        refs = set(bind.get(r, {}).get('win:' + label) for r in range(n))
        if t.check(len(refs) == 1 and None not in refs,
                   '%s: window %s has one definition on all ranks' % (what, label),
                   'per rank: %r' % refs):
            ref = refs.pop()
            got = mt.wins.get(ref)
            world = bind.get(0, {}).get('comm:WORLD')
            t.eq(got, (name, world), '%s: window %s: its name and communicator' % (what, label))
    t.eq(len(mt.wins), 2, '%s: two windows defined' % what)
    vtmpi.check_messages(t, mt, what, count=0)


def body(t):
    vtmpi.build_and_run(t, 'mpi_rma', ['mpi_rma.c'], [(OPENMPI, 4), (MPICH, 2)], check)


vttest.main('mpi_rma', body)
