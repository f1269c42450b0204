# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_unify": the unification's reduction tree (VT_UNIFY=tree, the default) against the
gather at rank 0 (VT_UNIFY=gather) on the same deterministic program (unify.c: regions every
rank, every third rank and the last rank enter; a split communicator named by half its
members; an allreduce, a ring of messages, a barrier): Open MPI on 64 ranks oversubscribed,
MPICH on 4. Read with otf2-print, the two traces' global definitions are the same line for
line (strings, regions, groups, communicators, locations and their ids) but for the clock
properties, and every location's events are the same in order, kind, region and attributes
but for their timestamps. Both traces have every rank's location, the regions of the ranks
that entered them, and the communicator's name; the rank-0 debug line names the algorithm."""

import collections
import re
import subprocess

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

EVENT = re.compile(r'^([A-Z][A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$')
# The clock's offset and the trace's length: the only definitions of a run's own.
VOLATILE_DEF = re.compile(r'^CLOCK_PROPERTIES|^CLOCK_OFFSET')


def otf2_print(t, path, args, what):
    p = subprocess.run(['otf2-print'] + args + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    t.eq(p.returncode, 0, '%s: otf2-print %s reads the trace' % (what, ' '.join(args)))
    return p.stdout.splitlines()


def global_defs(t, path, what):
    return [l.rstrip() for l in otf2_print(t, path, ['-G'], what)
            if l.strip() and not VOLATILE_DEF.match(l)]


def events(t, path, what):
    """Per location, its events as (kind, attributes) in order: the timestamps left out."""
    per = collections.defaultdict(list)
    for line in otf2_print(t, path, [], what):
        m = EVENT.match(line)
        if m:
            per[int(m.group(2))].append((m.group(1), m.group(4).rstrip()))
    return per


def run_both(t, impl, np, exe):
    out = {}
    for mode in ('gather', 'tree'):
        env = {'VT_VERBOSE': '3'}
        if mode == 'gather':
            env['VT_UNIFY'] = 'gather'
        run = vtmpi.mpirun(t, impl, np, exe, env=env, timeout=900,
                           label='%s%d-%s' % (impl.name, np, mode))
        what = '%s np %d %s' % (impl.name, np, mode)
        t.eq((run.status, len(run.lines)), (0, np), '%s: status 0, one line per rank' % what)
        said = [l for l in run.stderr.splitlines()
                if 'unification (%s) of %d ranks' % (mode, np) in l]
        t.eq(len(said), 1, '%s: rank 0 says it unified with the %s' % (what, mode))
        tr = t.trace(run, what, notice=False, profile=False)
        out[mode] = (run, tr)
    return out


def compare(t, impl, np, out):
    what = '%s np %d' % (impl.name, np)
    (grun, gtr), (trun, ttr) = out['gather'], out['tree']
    t.eq(sorted(grun.lines), sorted(trun.lines), '%s: the same program output' % what)
    gdefs, tdefs = global_defs(t, gtr.path, what), global_defs(t, ttr.path, what)
    t.check(len(gdefs) > 3 * np, '%s: %d lines of global definitions' % (what, len(gdefs)))
    diff = [(a, b) for a, b in zip(gdefs, tdefs) if a != b]
    t.eq((len(gdefs), diff[:3]), (len(tdefs), []),
         '%s: the global definitions of tree and gather are the same, line for line' % what)
    for want in ('"every_third"', '"last_rank"', '"work"', '"evens"', '"MPI_Allreduce"'):
        t.check(any(want in l for l in tdefs), '%s: the definitions hold %s' % (what, want))
    locs = [l for l in tdefs if l.startswith('LOCATION ')]
    t.eq(len(locs), np, '%s: one location per rank' % what)
    gev, tev = events(t, gtr.path, what), events(t, ttr.path, what)
    t.eq(sorted(tev), list(range(np)), '%s: events on every rank\'s location' % what)
    wrong = ['location %d: %d vs %d events' % (l, len(gev.get(l, [])), len(tev[l]))
             for l in sorted(tev) if gev.get(l) != tev[l]]
    t.eq(wrong[:3], [], '%s: every location\'s events the same in order, kind, region and '
         'attributes' % what)
    # 11 regions every rank enters, 2 events of each collective and of the Sendrecv; the
    # even ranks name their communicator; every third rank and the last one enter theirs
    want = [28 + 2 * (r % 2 == 0) + 2 * (r % 3 == 0) + 2 * (r == np - 1) for r in range(np)]
    t.eq([len(tev[r]) for r in range(np)], want, '%s: every location\'s number of events' % what)
    # the regions some ranks alone entered are where they belong
    for r in range(np):
        kinds = [e for e in tev[r] if e[0] == 'ENTER']
        thirds = sum('"every_third"' in a for _, a in kinds)
        lasts = sum('"last_rank"' in a for _, a in kinds)
        if (thirds, lasts) != (1 if r % 3 == 0 else 0, 1 if r == np - 1 else 0):
            t.fail('%s: rank %d enters every_third %d and last_rank %d times'
                   % (what, r, thirds, lasts))
            break
    else:
        t.check(True, '%s: every_third on every third rank, last_rank on the last' % what)


def body(t):
    variants = [(OPENMPI, 64), (MPICH, 4)]
    exes = vtmpi.build_all(t, 'unify', ['unify.c'], [OPENMPI, MPICH])
    for impl, np in variants:
        vtmpi.require_runtime(impl)
        compare(t, impl, np, run_both(t, impl, np, exes[(impl, True)]))


vttest.main('mpi_unify', body)
