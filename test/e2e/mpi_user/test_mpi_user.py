# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_user": user counters, markers and perfstubs metadata from every rank reach the
one unified trace (they travel with the definitions): each rank's counter value on its own
location (python3-otf2 and otf2-print), each rank's marker scoped to its location
(otf2-marker), and the metadata as properties, the one a rank gives differently with that
rank's suffix. 20,000 user regions per rank: every one entered once on every rank, through
mapping tables larger than libotf2's smallest definition chunk (vt sizes the chunk from the
definitions). Open MPI on 3 ranks, MPICH on 2."""

import os
import subprocess

import vtmetrics
import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI


def markers(t, path, what):
    p = subprocess.run(['otf2-marker', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    t.eq(p.returncode, 0, '%s: otf2-marker reads the markers' % what)
    out = []
    for line in p.stdout.splitlines():
        if line.startswith('MARKER '):
            scope = line.split('Scope: ')[1].split(',')[0]
            text = line.split('Text: ')[1].strip('"')
            out.append((scope, text))
    return sorted(out)


MANY = 20000


def def_chunk_size(path):
    out = subprocess.run(['otf2-print', '-A', path], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    for line in out.splitlines():
        if line.startswith('Chunk size definitions'):
            return int(line.split()[-1])
    return None


def check(t, run, plain, impl, np, what):
    vtmpi.same_as_plain(t, run, plain, what)
    vtmpi.clean_run(t, run, what)
    tr, mt = vtmpi.trace(t, run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    for r in range(np):
        got = [e.values[0] for e in mv.metric_events(r)]
        t.eq(got, [10 + r], '%s: rank %d: its counter value on its location' % (what, r))
    t.eq(markers(t, tr.path, what),
         sorted(('LOCATION:%d' % r, 'rank %d here' % r) for r in range(np)),
         '%s: every rank\'s marker, on its location' % what)
    for loc in tr.locations:
        many = {k: v for k, v in loc.enters.items() if k.startswith('many_')}
        t.eq((len(many), set(many.values())), (MANY, {1}),
             '%s: location %d: each of the %d user regions entered once' % (what, loc.ref, MANY))
    size = def_chunk_size(tr.path)
    t.check(size is not None and 256 * 1024 < size <= 4 * 1024 * 1024,
            '%s: definition chunk grown past 256 KiB for the mapping tables, within 4 MiB '
            '(%r)' % (what, size))
    want = {'PERFSTUBS::METADATA::METHOD': 'POSIX', 'PERFSTUBS::METADATA::SAME': 'yes',
            'PERFSTUBS::METADATA::METHOD::RANK1': 'MPIIO'}
    props = vttest.otf2_print_properties(tr.path)
    # the recording's settings (VT::SETTINGS::NAME): alike on every rank, so once each
    settings = {k: v for k, v in props.items() if k.startswith('VT::SETTINGS::')}
    t.eq((settings.get('VT::SETTINGS::VT_MPITRACE'),
          sorted(k for k in settings if '::RANK' in k)), ('yes', []),
         '%s: the settings once each, as every rank had them' % what)
    props = {k: v for k, v in props.items() if k not in settings}
    t.eq(props, want, '%s: metadata: one property, one per differing rank' % what)


def body(t):
    vtmpi.build_and_run(t, 'mpi_user', ['mpi_user.c'], [(OPENMPI, 3), (MPICH, 2)], check,
                        flags=['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')])


vttest.main('mpi_user', body)
