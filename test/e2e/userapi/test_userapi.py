# SPDX-License-Identifier: BSD-3-Clause
"""e2e "userapi": the user API (runtime/include/vt/vt_user.h).
- C (user.c): a region from two call sites, a function region with two returns, and a
  library annotated with the API but built with plain cc -DVT_USER (annotated.c): exact
  region counts and nesting on the master thread;
- C++ (scoped.cpp): VT_USER_SCOPE regions, ended by their scope also when an exception leaves
  it;
- the same library and program built without vt run and print the same (the API's functions
  are weak);
- without VT_USER the macros are nothing: a plain build references no vt symbol;
- counters, markers, recording off and on, flush (extras.c): exact values of both counters
  on both threads (python3-otf2 and otf2-print), the markers as otf2-marker reads the
  archive's marker file, no event of what ran while recording was off, and the flush's
  BufferFlush event;
- Fortran (user.F90 with vt_user.inc): regions by name, counters, a marker, off and on."""

import os
import re
import subprocess

import vtmetrics
import vttest

ITER = 100


def build_lib(t, d, flags):
    lib = os.path.join(d, 'libannotated.so')
    cmd = ['cc', '-shared', '-fPIC', '-O1', '-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime',
                                                                  'include'),
           t.source('annotated.c'), '-o', lib] + flags
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('library build failed: %s\n%s' % (' '.join(cmd), p.stdout))
    return lib


def undefined(path):
    out = subprocess.run(['nm', '-D', '--undefined-only', path], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if 'vt_' in line)


def body(t):
    d = t.newdir('lib')
    lib = build_lib(t, d, ['-DVT_USER'])
    t.eq(undefined(lib), ['vt_user_end_cached', 'vt_user_start_cached'],
         'the annotated library refers to the API weakly, by these two names')
    t.eq(undefined(build_lib(t, t.newdir('lib-plain'), [])), [],
         'without VT_USER the macros are nothing')
    link = ['-L' + d, '-lannotated', '-Wl,-rpath,' + d]
    # Only the user API (vtcc -vt:inst manual): a compiler's instrumentation would add a
    # region for work() of its own.
    exe = t.compile('user', [t.source('user.c')], opt='-O1', flags=['-vt:inst', 'manual'] + link)
    inc = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')]
    plain = t.compile('user', [t.source('user.c')], opt='-O1', flags=inc + link,
                      instrument=False)
    want = 'total %d\n' % (sum(2 * i + (i % 2) for i in range(ITER)) + sum(range(10)))
    p = t.run(plain, label='plain')
    t.eq((p.status, p.stdout), (0, want), 'C, without vt: the annotated library runs')
    run = t.run(exe, label='c')
    t.same_as_plain(run, p, 'C')
    t.clean_run(run, 'C')
    tr = t.trace(run, 'C')
    master = tr.loc('Master thread')
    t.enter_counts(master, {'phase': ITER, 'work': ITER, 'lib_sum': 1, 'lib_step': 10}, 'C')
    want_seq = [('Enter', 'phase'), ('Enter', 'work'), ('Leave', 'work'),
                ('Leave', 'phase')] * ITER
    want_seq += [('Enter', 'lib_sum')] + [('Enter', 'lib_step'), ('Leave', 'lib_step')] * 10
    want_seq += [('Leave', 'lib_sum')]
    t.eq(vttest.enter_leave_sequence(tr.path).get('Master thread'), want_seq,
         'C: both call sites of phase are one region; every region nested as written')

    exe = t.compile('scoped', [t.source('scoped.cpp')], lang='c++', opt='-O1',
                    flags=['-vt:inst', 'manual'])
    plain = t.compile('scoped', [t.source('scoped.cpp')], lang='c++', opt='-O1', flags=inc,
                      instrument=False)
    p = t.run(plain, label='plain-c++')
    t.eq((p.status, p.stdout), (0, 'sum 42 caught 1\n'), 'C++, without vt')
    run = t.run(exe, label='c++')
    t.same_as_plain(run, p, 'C++')
    t.clean_run(run, 'C++')
    tr = t.trace(run, 'C++')
    t.enter_counts(tr.loc('Master thread'), {'iteration': 10, 'check': 10}, 'C++')
    want_seq = []
    for i in range(10):
        want_seq += [('Enter', 'iteration'), ('Enter', 'check'), ('Leave', 'check'),
                     ('Leave', 'iteration')]
    t.eq(vttest.enter_leave_sequence(tr.path).get('Master thread'), want_seq,
         'C++: each scope ends its region, the one an exception left too')


N = 10


def markers(t, path, what):
    """[(category, severity, scope, text)] as otf2-marker prints the marker file."""
    p = subprocess.run(['otf2-marker', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    t.eq((p.returncode, p.stderr.strip()), (0, ''), '%s: otf2-marker reads the markers' % what)
    defs, out = {}, []
    cat = None
    for line in p.stdout.splitlines():
        m = re.match(r'MARKER_DEF\s+Group: "([^"]*)", Category: "([^"]*)", Severity: (\w+)',
                     line)
        if m:
            cat = (m.group(2), m.group(3))
            continue
        m = re.match(r'MARKER\s+Time: (\d+), Duration \d+, Scope: (\w+:\d+), Text: "(.*)"$',
                     line)
        if m and cat:
            out.append((cat[0], cat[1], m.group(2), m.group(3)))
    return sorted(out)


def counter_values(mv, loc_ref):
    """{counter name: [values in order]} of the Metric events of a location."""
    out = {}
    for ev in mv.metric_events(loc_ref):
        m = mv.member_of_metric(ev.metric)
        out.setdefault(m.name if m else None, []).append(ev.values[0])
    return out


def check_counters_defs(t, mv, what):
    for name, vtype in (('items', 'INT64'), ('residual', 'DOUBLE')):
        m = mv.member(name)
        t.eq((m.value_type, m.mode), (vtype, 'ABSOLUTE_POINT'),
             '%s: counter %s is %s, absolute point' % (what, name, vtype))
        t.eq(mv.class_of(name).occurrence, 'ASYNCHRONOUS',
             '%s: counter %s: values at the program\'s times' % (what, name))


def extras(t):
    inc = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')]
    exe = t.compile('extras', ['extras.c'], opt='-O1', flags=['-vt:inst', 'manual', '-pthread'])
    weak = t.compile('extras', ['extras.c'], opt='-O1', flags=inc + ['-DVT_USER', '-pthread'],
                     instrument=False)
    plain = t.compile('extras', ['extras.c'], opt='-O1', flags=inc + ['-pthread'],
                      instrument=False)
    for label, path in (('weak', weak), ('plain', plain)):
        p = t.run(path, label=label)
        t.eq((p.status, p.stdout), (0, 'items 0 residual 0 late 0 tracing off 0 on 0\n'),
             'extras, %s build without vt: runs, counters are -1, nothing traces' % label)
    t.eq(undefined(plain), [], 'extras without VT_USER: no vt symbol')
    run = t.run(exe, label='extras')
    t.eq((run.status, run.stdout), (0, 'items 1 residual 1 late 1 tracing off 0 on 1\n'),
         'extras: counters defined, one while off; recording off, then on again')
    t.clean_run(run, 'extras')
    tr = t.trace(run, 'extras')
    master, worker = tr.loc('Master thread'), tr.loc('Thread 1')
    # The worker's creation and join come after recording is on again (VT_PTHREAD: regions).
    t.enter_counts(master, {'visible': 3, 'pthread_create': 1, 'pthread_join': 1},
                   'extras: nothing of what ran while off')
    t.eq(master.kinds.get('MeasurementOnOff'), 2, 'extras: off and on are marked')
    t.eq(master.kinds.get('BufferFlush'), 1, 'extras: VT_USER_FLUSH flushed the buffer once')
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), 'extras')
    check_counters_defs(t, mv, 'extras')
    t.eq(counter_values(mv, mv.loc('Master thread').ref),
         {'items': [i * i for i in range(N)], 'residual': [1.0 / (i + 1) for i in range(N)],
          'late': [7]},
         'extras: master thread: every value set, exactly, in order; none while off')
    t.eq(counter_values(mv, mv.loc('Thread 1').ref), {'items': [1000 + i for i in range(N)]},
         'extras: the worker\'s values of the counter it defined again')
    seq = [(e.kind, e.region) for e in mv.events[mv.loc('Master thread').ref]
           if e.kind in ('Enter', 'Leave', 'MeasurementOnOff')]
    t.eq(seq, [('Enter', 'visible'), ('Leave', 'visible'), ('MeasurementOnOff', None),
               ('MeasurementOnOff', None), ('Enter', 'visible'), ('Leave', 'visible'),
               ('Enter', 'visible'), ('Leave', 'visible'), ('Enter', 'pthread_create'),
               ('Leave', 'pthread_create'), ('Enter', 'pthread_join'), ('Leave', 'pthread_join')],
         'extras: the gap sits between the first and second region')
    t.eq(markers(t, tr.path, 'extras'),
         [('check', 'HIGH', 'LOCATION:%d' % master.ref, 'residual below 0.2'),
          ('phase', 'NONE', 'LOCATION:%d' % master.ref, 'start'),
          ('thread', 'NONE', 'LOCATION:%d' % worker.ref, 'worker done')],
         'extras: three markers with their categories, severities, threads and texts')


def fortran(t):
    exe = t.compile('fuser', ['user.F90'], lang='fortran', opt='-O1',
                    flags=['-vt:inst', 'manual'])
    inc = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include'), '-cpp']
    plain = t.compile('fuser', ['user.F90'], lang='fortran', opt='-O1', flags=inc,
                      instrument=False)
    p = t.run(plain, label='fortran-plain')
    t.eq((p.status, p.stdout.strip()), (0, 'total 155'), 'Fortran, without vt')
    t.eq(undefined(plain), [], 'Fortran without VTRACE: no vt symbol')
    run = t.run(exe, label='fortran')
    t.same_as_plain(run, p, 'Fortran')
    t.clean_run(run, 'Fortran')
    tr = t.trace(run, 'Fortran')
    t.enter_counts(tr.loc('Master thread'), {'solve': 1, 'step': 11},
                   'Fortran: regions by name, none while off')
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), 'Fortran')
    check_counters_defs(t, mv, 'Fortran')
    t.eq(counter_values(mv, mv.loc('Master thread').ref),
         {'items': [3 * i for i in range(1, 11)], 'residual': [1.0 / i for i in range(1, 11)]},
         'Fortran: every counter value, exactly')
    master = tr.loc('Master thread')
    t.eq(markers(t, tr.path, 'Fortran'),
         [('phase', 'NONE', 'LOCATION:%d' % master.ref, 'fortran start')],
         'Fortran: the marker')


def all_parts(t):
    body(t)
    extras(t)
    fortran(t)


vttest.main('userapi', all_parts)
