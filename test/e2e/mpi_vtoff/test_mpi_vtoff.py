# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_vtoff": VT_MPITRACE=no keeps the user functions' Enter/Leave but records no MPI
event and enters no MPI function's region; by default (and with VT_MPITRACE=yes) both are
there. 2 ranks of Open MPI and of MPICH; the trace's layout is the same either way."""

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI, ROOT_NONE, Var

USER = {'main': 1, 'compute': 5, 'exchange': 1}
MPI = {'MPI_Init': 1, 'MPI_Comm_rank': 1, 'MPI_Comm_size': 1, 'MPI_Sendrecv': 1,
       'MPI_Allreduce': 1, 'MPI_Barrier': 1, 'MPI_Finalize': 1}
W = Var('comm:WORLD')


def steps(r, size):
    left, right = (r - 1) % size, (r + 1) % size
    return vtmpi.steps_of(
        vtmpi.send('MPI_Sendrecv', right, W, 5, 16), vtmpi.recv('MPI_Sendrecv', left, W, 5, 16),
        vtmpi.coll('MPI_Allreduce', 'ALLREDUCE', W, ROOT_NONE, 8, 8),
        vtmpi.coll('MPI_Barrier', 'BARRIER', W, ROOT_NONE, 0, 0))


def common(t, run, plain, size, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    vtmpi.check_layout(t, tr, mt, what, size)
    return tr, mt, {l.ref: l for l in tr.locations}


def check_on(t, run, plain, size, what):
    tr, mt, locs = common(t, run, plain, size, what)
    want = dict(USER, **MPI)
    for r in range(size):
        w = '%s: rank %d' % (what, r)
        if not t.check(r in locs, '%s: location %d exists' % (w, r)):
            continue
        t.enter_counts(locs[r], want, w)
        st = steps(r, size)
        kinds = vtmpi.pattern_kinds(st)
        kinds.update(Enter=sum(want.values()), Leave=sum(want.values()))
        t.eq(dict(locs[r].kinds), kinds, '%s: events per kind' % w)
        vtmpi.match_sequence(t, mt.sequence(r, skip_handles=False), st, w)
    vtmpi.check_messages(t, mt, what, count=size)


def check_off(t, run, plain, size, what):
    tr, mt, locs = common(t, run, plain, size, what)
    for r in range(size):
        w = '%s: rank %d' % (what, r)
        if not t.check(r in locs, '%s: location %d exists' % (w, r)):
            continue
        t.enter_counts(locs[r], USER, w)
        t.eq(dict(locs[r].kinds), {'Enter': 7, 'Leave': 7}, '%s: only Enter and Leave' % w)
    vtmpi.check_no_mpi(t, mt, tr, what)
    defined = sorted(n for n, d in mt.regions.items() if any(p == 'MPI' for p, _ in d))
    if defined:
        t.note('%s: MPI regions defined (never entered): %r' % (what, defined))


def body(t):
    exes = vtmpi.build_all(t, 'mpi_vtoff', ['mpi_vtoff.c'], [OPENMPI, MPICH])
    plains = {}
    for impl in (OPENMPI, MPICH):
        plain = vtmpi.mpirun(t, impl, 2, exes[(impl, False)], label='plain-%s' % impl)
        t.eq((plain.status, len(plain.lines)), (0, 2),
             '%s uninstrumented: status 0, one line per rank' % impl)
        plains[impl] = plain
    for impl in (OPENMPI, MPICH):
        vtmpi.require_runtime(impl)
        exe = exes[(impl, True)]
        for value in ('no', None, 'yes'):
            what = '%s np 2 VT_MPITRACE=%s' % (impl, value or '(unset)')
            run = vtmpi.mpirun(t, impl, 2, exe, env={'VT_MPITRACE': value},
                               label='%s-%s' % (impl, value or 'default'))
            (check_off if value == 'no' else check_on)(t, run, plains[impl], 2, what)


vttest.main('mpi_vtoff', body)
