# SPDX-License-Identifier: BSD-3-Clause
"""e2e "kokkos": libvt as the Kokkos Tools library of a real Kokkos program (kokkos_app.cpp,
built against Debian's Kokkos, libtrilinos-kokkos-dev).

- vtcxx build, KOKKOS_PROFILE_LIBRARY (what Kokkos 3 reads) naming the built libvt: the
  program's kernels "fill" N times, "sum" M times, "prefix" once, the pushed region "setup",
  the section "section", two deep copies as "Kokkos::deep_copy Host->Host", the fence
  "fence", each an exact Enter count, nested as run; the counter "Kokkos::deep_copy bytes"
  is 8E then 16E; "Kokkos::Host bytes allocated" goes 8E, 16E, 8(2E+C), 16E first and its
  highest value is 8(2E+C) exactly; the profile event is a marker of category Kokkos; the
  program's declareMetadata and Kokkos's configuration are properties KOKKOS::METADATA::*;
- the same program built with plain g++ and run under vtrun (which names libvt to Kokkos
  itself): the same Kokkos regions with the same counts, the same counters; and run with
  only KOKKOS_PROFILE_LIBRARY naming libvt (Kokkos loads it): the same again; what vtrun
  sets in the environment, and what it leaves;
- VT_KOKKOS=no: no Kokkos region, no Kokkos counter, no marker;
- the interface version check (kokkos_version.c calls the hooks as a Kokkos of the version
  it is given would, from two threads): 20210225 records each thread's kernel and region on
  its own location (and of 70 regions pushed
  inside each other the 64 a thread keeps, with one warning), 20100101 gets one error line
  naming the version and records nothing of Kokkos.
"""

import os

import vtmetrics
import vttest

KOKKOS_INC = '/usr/include/trilinos'
N, M, E, C = 7, 4, 1000, 100000
ARGS = [str(N), str(M), str(E), str(C)]
SUM = E * (E + 1) // 2
WANT = {'fill': N, 'sum': M, 'prefix': 1, 'setup': 1, 'section': 1,
        'Kokkos::deep_copy Host->Host': 2, 'fence': 1}
ALLOC = 'Kokkos::Host bytes allocated'
COPIED = 'Kokkos::deep_copy bytes'
VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')
LIBVT = os.path.join(vttest.BUILD_ROOT, 'runtime', 'libvt.so')
LIBVT0 = LIBVT + '.0'  # what vtrun preloads: the runtime by its soname
NO_TOOL_ENV = {'KOKKOS_PROFILE_LIBRARY': None, 'KOKKOS_TOOLS_LIBS': None}


def counter_values(t, tr, name, what):
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    if not mv.members_named(name):
        t.fail('%s: counter %r defined' % (what, name))
        return []
    member = mv.member(name)
    loc = mv.loc('Master thread')
    return [e.values[0] for e in mv.metric_events(loc.ref)
            if mv.member_of_metric(e.metric) is member]


def check_app(t, run, what, prefix=None):
    t.eq((run.status, run.stdout), (0, 'sum %d\n' % SUM), '%s: runs, prints its sum' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what, prefix=prefix)
    master = tr.loc('Master thread')
    t.enter_counts(master, WANT, '%s: the program\'s kernels, region, section, deep copies, '
                   'fence' % what, only=False)
    seq = [s for s in vttest.enter_leave_sequence(tr.path).get('Master thread')
           if s[1] in WANT]
    want_seq = [('Enter', 'setup')] + [('Enter', 'fill'), ('Leave', 'fill')] * N
    want_seq += [('Leave', 'setup')] + [('Enter', 'sum'), ('Leave', 'sum')] * M
    want_seq += [('Enter', 'prefix'), ('Leave', 'prefix'), ('Enter', 'section')]
    want_seq += [('Enter', 'Kokkos::deep_copy Host->Host'),
                 ('Leave', 'Kokkos::deep_copy Host->Host')] * 2
    want_seq += [('Leave', 'section'), ('Enter', 'fence'), ('Leave', 'fence')]
    t.eq(seq, want_seq, '%s: the Kokkos regions nested and ordered as run' % what)
    alloc = counter_values(t, tr, ALLOC, what)
    t.eq(alloc[:4], [8 * E, 16 * E, 8 * (2 * E + C), 16 * E],
         '%s: %s: a, b, c allocated, c freed' % (what, ALLOC))
    t.eq(max(alloc or [0]), 8 * (2 * E + C), '%s: %s: its highest value' % (what, ALLOC))
    t.eq(counter_values(t, tr, COPIED, what), [8 * E, 16 * E],
         '%s: %s after each deep copy' % (what, COPIED))
    t.eq(vttest.otf2_markers(tr.path), [('Kokkos', 'NONE', 'checkpoint')],
         '%s: the profile event is a marker' % what)
    for reader, props in (('python3-otf2', vttest.otf2_properties(tr.path)),
                          ('otf2-print -I', vttest.otf2_print_properties(tr.path))):
        t.eq(props.get('KOKKOS::METADATA::RUN_KIND'), 'e2e',
             '%s: %s: the program\'s metadata as a property' % (what, reader))
        t.eq(props.get('KOKKOS::METADATA::DEFAULT_DEVICE'), 'N6Kokkos6SerialE',
             '%s: %s: Kokkos\'s configuration too (Serial)' % (what, reader))
    return {k: v for k, v in master.enters.items() if v}


def body(t):
    if not os.path.isfile(os.path.join(KOKKOS_INC, 'Kokkos_Core.hpp')):
        raise vttest.Failure('Kokkos is not installed (libtrilinos-kokkos-dev)')
    flags = ['-I' + KOKKOS_INC, '-ltrilinos_kokkoscore']
    app, plain = t.parallel(lambda inst: t.compile('app', ['kokkos_app.cpp'], lang='c++',
                                                   opt='-O1', flags=flags,
                                                   instrument=inst), [True, False])
    ver = t.compile('ver', ['kokkos_version.c'], opt='-O1', flags=['-pthread'])

    r = t.run(plain, ARGS, env=NO_TOOL_ENV, label='plain')
    t.eq((r.status, r.stdout), (0, 'sum %d\n' % SUM), 'plain g++ build: runs without vt')

    tool = {'KOKKOS_PROFILE_LIBRARY': LIBVT, 'KOKKOS_TOOLS_LIBS': None}
    built = check_app(t, t.run(app, ARGS, env=tool, label='vtcxx'), 'vtcxx')
    under = check_app(t, t.run(VTRUN, [plain] + ARGS, env=NO_TOOL_ENV, label='vtrun'),
                      'vtrun', prefix='app.vt')
    # A plain build, libvt only named to Kokkos: Kokkos loads it (dlopen) at initialize.
    loaded = check_app(t, t.run(plain, ARGS, env=tool, label='loaded'), 'loaded by Kokkos')
    t.eq(loaded, under, 'loaded by Kokkos: the same regions as under vtrun')
    # Under vtrun only Kokkos names regions: each of them is in the vtcxx build as often.
    t.eq({k: built.get(k) for k in under}, under,
         'vtrun: every region (Kokkos\'s own too) as often as in the vtcxx build')

    # What vtrun names to Kokkos: its libvt; a tool already named stays; -vt:kokkos no: none.
    for args, env, want, what in (
            ([], NO_TOOL_ENV, {'KOKKOS_TOOLS_LIBS': LIBVT0, 'KOKKOS_PROFILE_LIBRARY': LIBVT0},
             'names its libvt in both variables'),
            ([], {'KOKKOS_PROFILE_LIBRARY': '/opt/tool.so', 'KOKKOS_TOOLS_LIBS': None},
             {'KOKKOS_PROFILE_LIBRARY': '/opt/tool.so'}, 'leaves a tool the user named'),
            (['-vt:kokkos', 'no'], NO_TOOL_ENV, {}, '-vt:kokkos no names none')):
        r = t.run(VTRUN, args + ['/usr/bin/env'], env=env, label='vtrun-env')
        got = dict(line.split('=', 1) for line in r.stdout.splitlines()
                   if line.startswith('KOKKOS_'))
        t.eq((r.status, got), (0, want), 'vtrun %s' % what)

    off = t.run(app, ARGS, env=dict(tool, VT_KOKKOS='no'), label='off')
    t.eq((off.status, off.stdout), (0, 'sum %d\n' % SUM), 'VT_KOKKOS=no: runs')
    t.clean_run(off, 'VT_KOKKOS=no')
    tr = t.trace(off, 'VT_KOKKOS=no')
    t.enter_counts(tr.loc('Master thread'), {k: 0 for k in WANT},
                   'VT_KOKKOS=no: no Kokkos region', only=False)
    mv = vtmetrics.read_metrics(tr.path)
    t.eq([n for n in (ALLOC, COPIED) if mv.members_named(n)], [],
         'VT_KOKKOS=no: no Kokkos counter')
    t.eq(vttest.otf2_markers(tr.path), [], 'VT_KOKKOS=no: no marker')
    t.eq([n for n in vttest.otf2_properties(tr.path) if n.startswith('KOKKOS::')], [],
         'VT_KOKKOS=no: no Kokkos property')

    # 70 regions pushed inside each other: the 64 a thread keeps are recorded, one warning.
    good = t.run(ver, ['20210225', '70'], label='version-good')
    t.eq((good.status, good.stdout), (0, 'id given\n'), 'version 20210225: a kernel id given')
    t.clean_run(good, 'version 20210225', allow=[r'^warning: Kokkos: profile regions nested '
                                                  r'deeper than 64 are not recorded$'])
    t.eq(len(good.warnings), 1, 'version 20210225: one warning about the depth')
    tr = t.trace(good, 'version 20210225')
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'outer': 1, 'kernel': 1, 'nested': 64,
                                             'pthread_create': 1, 'pthread_join': 1},
                   'version 20210225: main, 64 nested regions, the region and the kernel')
    t.enter_counts(tr.loc('Thread 1'), {'worker': 1, 'worker region': 1, 'worker kernel': 1},
                   'version 20210225: the other thread\'s region and kernel on its location')
    seq = vttest.enter_leave_sequence(tr.path).get('Thread 1')
    t.eq([s for s in seq if s[1] != 'worker'],
         [('Enter', 'worker region'), ('Enter', 'worker kernel'), ('Leave', 'worker kernel'),
          ('Leave', 'worker region')], 'version 20210225: the other thread\'s nesting')
    bad = t.run(ver, ['20100101'], label='version-bad')
    t.eq((bad.status, bad.stdout), (0, 'id none\n'), 'version 20100101: no kernel id given')
    t.check(len(bad.errors) == 1, 'version 20100101: one error line', repr(bad.errors))
    t.check(bad.errors and '20100101' in bad.errors[0] and 'Kokkos' in bad.errors[0]
            and 'nothing of Kokkos is recorded' in bad.errors[0],
            'version 20100101: the line names the version and what follows', repr(bad.errors))
    tr = t.trace(bad, 'version 20100101')
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'pthread_create': 1, 'pthread_join': 1},
                   'version 20100101: main, nothing of Kokkos')
    t.enter_counts(tr.loc('Thread 1'), {'worker': 1},
                   'version 20100101: nothing of Kokkos on the other thread')


vttest.main('kokkos', body)
