# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_requests": Isend and Irecv requests completed by MPI_Waitall, Waitany, Waitsome,
Testsome, Test and Wait, by another thread than the one that made them, and an Irecv
cancelled, on 2 ranks of Open MPI and of MPICH (issue 30: vt writes IsendComplete and
IrecvRequest from one buffer record each). Exactly, per rank and per location, as otf2-print
reads them: the MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv and
MpiRequestCancelled events, in the region of the call that made or completed them; with
python3-otf2, every completion's request id that of one request of its rank, each completed
once, and every message that OTF2 can pair paired."""

import collections
import re

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

# From mpi_requests.c: (completing region, requests K of each kind) of each pattern; the
# thread's Waitall is on a location of its own.
PATTERNS = [('MPI_Waitall', 8), ('MPI_Waitany', 4), ('MPI_Waitsome', 4), ('MPI_Testsome', 4),
            ('MPI_Test', 1), ('MPI_Wait', 1)]
THREAD_K = 4
SENDS = sum(k for _, k in PATTERNS) + THREAD_K  # 26 Isends and as many matched Irecvs
REQUEST = re.compile(r'Request: (\d+)')
KINDS = ('MpiIsend', 'MpiIsendComplete', 'MpiIrecvRequest', 'MpiIrecv', 'MpiRequestCancelled')


def print_counts(t, path, what):
    """{location: Counter(kind)} of the request events, as otf2-print prints them."""
    problems = []
    counts = collections.defaultdict(collections.Counter)
    for m in vttest.otf2_print_events(path, problems):
        kind = vttest.print_kind(m.group(1))
        if kind in KINDS:
            counts[int(m.group(2))][kind] += 1
            t.check(REQUEST.search(m.group(4) or '') is not None,
                    '%s: otf2-print shows the request id of %s' % (what, kind), m.group(0))
    t.eq(problems, [], '%s: otf2-print reads the trace' % what)
    return counts


def check(t, run, plain, impl, np, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    t.eq([l.split(', ', 1)[1] for l in run.lines], ['cancelled 1, threads 1'] * np,
         '%s: the Irecv cancelled, MPI_THREAD_MULTIPLE given' % what)
    tr, mt = vtmpi.trace(t, run, what)
    masters = {r: loc.ref for r, loc in mt.rank_locs().items()}
    t.eq(sorted(masters), list(range(np)), '%s: one master location per rank' % what)
    threads = {r: [l.ref for l in mt.locs.values() if l.rank == r and l.ref != masters[r]
                   and any(e.kind in KINDS for e in l.events)] for r in masters}
    t.eq({r: len(v) for r, v in threads.items()}, {r: 1 for r in masters},
         '%s: one other thread of each rank records request events' % what)

    # exact counts by otf2-print, per location
    counts = print_counts(t, tr.path, what)
    for r in masters:
        t.eq(dict(counts[masters[r]]),
             {'MpiIsend': SENDS, 'MpiIsendComplete': SENDS - THREAD_K,
              'MpiIrecvRequest': SENDS + 1, 'MpiIrecv': SENDS - THREAD_K,
              'MpiRequestCancelled': 1},
             '%s rank %d: the request events of its master thread (otf2-print)' % (what, r))
        t.eq(dict(counts[threads[r][0]]), {'MpiIsendComplete': THREAD_K, 'MpiIrecv': THREAD_K},
             '%s rank %d: the completions of its waiting thread (otf2-print)' % (what, r))

    # the same per region and the ids with python3-otf2
    for r in masters:
        evs = [e for l in mt.locs.values() if l.rank == r for e in l.events]
        by_region = collections.Counter((e.region, e.kind) for e in evs if e.kind in KINDS)
        want = collections.Counter({('MPI_Isend', 'MpiIsend'): SENDS,
                                    ('MPI_Irecv', 'MpiIrecvRequest'): SENDS + 1,
                                    ('MPI_Cancel', 'MpiRequestCancelled'): 1})
        for region, k in PATTERNS + [('MPI_Waitall', THREAD_K)]:
            want[(region, 'MpiIsendComplete')] += k
            want[(region, 'MpiIrecv')] += k
        t.eq(dict(by_region), dict(want), '%s rank %d: each event in its call' % (what, r))
        ids = collections.defaultdict(list)
        for e in evs:
            if e.kind in KINDS:
                ids[e.kind].append(e.field('request_id'))
        for made, done in (('MpiIsend', 'MpiIsendComplete'), ('MpiIrecvRequest', 'MpiIrecv')):
            t.eq(len(set(ids[made])), len(ids[made]),
                 '%s rank %d: every %s its own request id' % (what, r, made))
            t.eq(sorted(collections.Counter(ids[done]).values()), [1] * len(ids[done]),
                 '%s rank %d: every request completed once (%s)' % (what, r, done))
            t.eq(sorted(set(ids[done]) - set(ids[made])), [],
                 '%s rank %d: every %s names a request of its rank' % (what, r, done))
        lone = set(ids['MpiIrecvRequest']) - set(ids['MpiIrecv'])
        t.eq(sorted(lone), sorted(ids['MpiRequestCancelled']),
             '%s rank %d: the one Irecv never completed is the cancelled one' % (what, r))
    # Messages: vt names, on a thread's location, the communicator of which that location
    # is the member (mpi_threads), so a receive completed on the waiting thread names
    # another communicator than its send and OTF2 readers cannot pair them; the other
    # patterns' messages all pair.
    pairs, lone_sends, lone_recvs, problems = vtmpi.messages(mt)
    thread_tags = set(range(700, 700 + THREAD_K))
    t.eq(len(pairs), np * (SENDS - THREAD_K), '%s: the messages of the master threads pair'
         % what)
    t.eq(sorted(set(m[3] for m in lone_sends + lone_recvs)), sorted(thread_tags),
         '%s: the only messages unpaired are those received on the waiting thread' % what)
    t.eq((len(lone_sends), len(lone_recvs), len(problems)), (np * THREAD_K,) * 3,
         '%s: each of them once' % what)


def body(t):
    vtmpi.build_and_run(t, 'mpi_requests', ['mpi_requests.c'], [(OPENMPI, 2), (MPICH, 2)],
                        check)


vttest.main('mpi_requests', body)
