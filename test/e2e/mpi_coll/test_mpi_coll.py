# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_coll": collectives on MPI_COMM_WORLD, on the halves of an MPI_Comm_split, on an
MPI_Comm_dup and on MPI_COMM_SELF, on 2 and 4 ranks of Open MPI and 2 of MPICH: exact
operations, roots (ranks in the communicator), sizes and communicators (one definition each,
with its members) per rank; the clocks agree with what each collective implies."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

W, SUB, DUP, SELF = (Var('comm:' + c) for c in ('WORLD', 'SUB', 'DUP', 'SELF'))
USER = ['main', 'world_collectives', 'sub_collectives']
# Sizes are the bytes of this rank's buffers (vt's convention): e.g. the root of a Gather of
# n bytes per rank receives n * size, a non-root nothing. All counts are of 4-byte ints.
INT = 4


def enters(r, size):
    e = {name: 1 for name in USER}
    e.update({'MPI_Init': 1, 'MPI_Finalize': 1, 'MPI_Comm_rank': 2, 'MPI_Comm_size': 2,
              'MPI_Barrier': 3, 'MPI_Bcast': 2, 'MPI_Reduce': 1, 'MPI_Allreduce': 2,
              'MPI_Gather': 1, 'MPI_Scatter': 1, 'MPI_Allgather': 1, 'MPI_Alltoall': 1,
              'MPI_Scan': 1, 'MPI_Comm_split': 1, 'MPI_Comm_dup': 1, 'MPI_Comm_free': 2})
    return e


def sub_of(r, size):
    """The members (world ranks) of rank r's half of the split, r's rank in it."""
    members = tuple(range(r % 2, size, 2))
    return members, members.index(r)


def steps(r, size):
    def nbytes(n):
        return n * INT
    c = vtmpi.coll
    root0, last = r == 0, r == size - 1
    members, srank = sub_of(r, size)
    slast = srank == len(members) - 1
    return vtmpi.steps_of(
        c('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0),
        c('MPI_Bcast', 'BCAST', W, 0, nbytes(10) if root0 else 0, 0 if root0 else nbytes(10)),
        c('MPI_Reduce', 'REDUCE', W, size - 1, nbytes(3), nbytes(3) if last else 0),
        c('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, nbytes(6), nbytes(6)),
        c('MPI_Gather', 'GATHER', W, 0, nbytes(2), nbytes(2) * size if root0 else 0),
        c('MPI_Scatter', 'SCATTER', W, 0, nbytes(5) * size if root0 else 0, nbytes(5)),
        c('MPI_Allgather', 'ALLGATHER', W, ROOT_NONE, nbytes(3), nbytes(3) * size),
        c('MPI_Alltoall', 'ALLTOALL', W, ROOT_NONE, nbytes(4) * size, nbytes(4) * size),
        c('MPI_Scan', 'SCAN', W, ROOT_NONE, nbytes(1), nbytes(1)),
        # the split (events of communicator creation, if any, are taken apart)
        c('MPI_Allreduce', 'ALLREDUCE', SUB, ROOT_NONE, nbytes(4), nbytes(4)),
        c('MPI_Bcast', 'BCAST', SUB, len(members) - 1, nbytes(2) if slast else 0,
          0 if slast else nbytes(2)),
        c('MPI_Barrier', 'BARRIER', DUP, ROOT_NONE, 0, 0),
        c('MPI_Barrier', 'BARRIER', SELF, ROOT_NONE, 0, 0))


def check(t, run, plain, impl, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, size)
    vtmpi.check_regions(t, mt, what, sorted(n for n in enters(0, size) if n.startswith('MPI_')))
    locs = {l.ref: l for l in tr.locations}
    bind = {}
    for r in range(size):
        w = '%s: rank %d' % (what, r)
        loc = locs.get(r)
        if not t.check(loc is not None, '%s: location %d exists' % (w, r)):
            continue
        want = enters(r, size)
        t.enter_counts(loc, want, w)
        st = steps(r, size)
        handles = vtmpi.check_handle_events(t, mt, r, w, ['MPI_Comm_split', 'MPI_Comm_dup',
                                                          'MPI_Comm_free'])
        kinds = vtmpi.pattern_kinds(st)
        for k, n in vtmpi.kind_counts(handles).items():
            kinds[k] = kinds.get(k, 0) + n
        kinds.update(Enter=sum(want.values()), Leave=sum(want.values()))
        t.eq(dict(loc.kinds), kinds, '%s: events per kind' % w)
        bind[r] = vtmpi.match_sequence(t, mt.sequence(r), st, w)

    def refs(label, ranks):
        return [bind.get(r, {}).get('comm:' + label) for r in ranks]

    def members(ref):
        c = mt.comms.get(ref)
        return c.members if c else 'undefined communicator %r' % ref

    everyone = range(size)
    for label, want in (('WORLD', tuple(everyone)), ('DUP', tuple(everyone))):
        got = refs(label, everyone)
        if t.check(len(set(got)) == 1 and None not in got,
                   '%s: the %s communicator has one definition on all ranks' % (what, label),
                   'per rank: %r' % got):
            t.eq(members(got[0]), want, '%s: the %s communicator\'s members' % (what, label))
    halves = []
    for parity in (0, 1):
        ranks = list(range(parity, size, 2))
        got = refs('SUB', ranks)
        ok = t.check(len(set(got)) == 1 and None not in got,
                     '%s: the split\'s %s half has one definition on its ranks'
                     % (what, 'even' if parity == 0 else 'odd'), 'per rank: %r' % got)
        if ok:
            t.eq(members(got[0]), tuple(ranks), '%s: the split\'s %s half\'s members'
                 % (what, 'even' if parity == 0 else 'odd'))
            halves.append(got[0])
    if len(halves) == 2:
        t.check(halves[0] != halves[1], '%s: the two halves are different communicators'
                % what, 'both %r' % halves[0])
    # names: MPI's own, or what made the communicator from which parent
    names = {}
    for label, want in (('WORLD', 'MPI_COMM_WORLD'), ('DUP', 'MPI_Comm_dup of MPI_COMM_WORLD'),
                        ('SUB', 'MPI_Comm_split of MPI_COMM_WORLD'), ('SELF', 'MPI_COMM_SELF')):
        names[label] = sorted(set(mt.comms[ref].name for ref in refs(label, everyone)
                                  if ref in mt.comms))
        t.eq(names[label], [want], '%s: the %s communicator is named %s' % (what, label, want))
    got = refs('SELF', everyone)
    bad = [(r, ref, mt.comms.get(ref)) for r, ref in zip(everyone, got)
           if ref is not None and not (mt.comms.get(ref) and (
               mt.comms[ref].group_type == 'COMM_SELF' or mt.comms[ref].members == (r,)))]
    t.eq(bad, [], '%s: MPI_COMM_SELF is a COMM_SELF group or holds just the rank' % what)
    t.note('%s: communicators: %r' % (what, sorted(mt.comms.values(), key=lambda c: c.ref)))
    vtmpi.check_collective_pairs(t, mt, what)
    vtmpi.check_collective_times(t, mt, what)
    vtmpi.check_messages(t, mt, what, count=0)


def body(t):
    vtmpi.build_and_run(t, 'mpi_coll', ['mpi_coll.c'], [(OPENMPI, 2), (OPENMPI, 4), (MPICH, 2)],
                        check)


vttest.main('mpi_coll', body)
