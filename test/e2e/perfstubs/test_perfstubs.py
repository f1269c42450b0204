# SPDX-License-Identifier: BSD-3-Clause
"""e2e "perfstubs": libvt as the tool of a perfstubs-instrumented library (psdemo.c over the
stub layer ps_stub.c, written from the published tool interface), in the three ways such a
library meets a tool:
- dynamic: the library, built with plain cc, finds ps_tool_* with dlsym(RTLD_DEFAULT) in a
  program built with vtcc;
- static: the stubs' weak references resolve to libvt at link time (PS_STATIC);
- preloaded: a program built without vt, run with LD_PRELOAD=libvt.so;
and, built and run without vt in both modes, the library runs and finds no tool.

Each traced run: the data calls' answers (calls per timer and thread, counter statistics,
metadata) exactly; the regions of timers, dynamic phases ("timestep I") and string timers
with exact counts and nesting, stop_current and stopping an outer timer included, nothing
while paused; the counter's values per thread (python3-otf2 and otf2-print); metadata and
the parameter as trace properties (python3-otf2's reader and otf2-print -I)."""

import os
import subprocess

import vtmetrics
import vttest

EXPECT = '''total 6
timers: 2 threads, metrics [Calls] [Inclusive Time] [Exclusive Time]
timer demo solve thread 0 calls 4 times ok
timer inner thread 0 calls 1 times ok
timer inner io thread 0 calls 4 times ok
timer outer thread 0 calls 1 times ok
timer paused thread 0 calls 0 times ok
timer timestep 0 thread 0 calls 1 times ok
timer timestep 1 thread 0 calls 1 times ok
timer timestep 2 thread 0 calls 1 times ok
timer timestep 3 thread 0 calls 1 times ok
timer worker thread 0 calls 0 times ok
timer worker thread 1 calls 3 times ok
counter Bytes Written thread 0 samples 4 total 10240 min 1024 max 4096 sumsqr 3.14573e+07
counter Bytes Written thread 1 samples 2 total 10 min 5 max 5 sumsqr 50
metadata ADIOS Method = POSIX
'''
NO_TOOL = 'total 6\nno tool\n'
PROPS = {'PERFSTUBS::METADATA::ADIOS_METHOD': 'POSIX', 'PERFSTUBS::PARAMETER::STEPS': '4'}


def program_properties(props):
    """The program's metadata: the recording's settings (VT::SETTINGS::*) left out."""
    return {n: v for n, v in props.items() if not n.startswith('VT::SETTINGS::')}


def check_trace(t, run, what):
    t.eq((run.status, run.stdout), (0, EXPECT), '%s: the data calls answer what ran' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    master = tr.loc('Master thread')
    want = {'demo solve': 4, 'inner io': 4, 'outer': 1, 'inner': 1}
    want.update({'timestep %d' % i: 1 for i in range(4)})
    # VT_PTHREAD (on by default): the worker's creation and join are regions too.
    want.update({'pthread_create': 1, 'pthread_join': 1})
    t.enter_counts(master, want, '%s: master: timers, phases, string timers; none paused' % what)
    t.enter_counts(tr.loc('Thread 1'), {'worker': 3}, '%s: the worker thread' % what)
    seq = vttest.enter_leave_sequence(tr.path).get('Master thread')
    want_seq = []
    for i in range(4):
        want_seq += [('Enter', 'timestep %d' % i), ('Enter', 'demo solve'),
                     ('Leave', 'demo solve'), ('Enter', 'inner io'), ('Leave', 'inner io'),
                     ('Leave', 'timestep %d' % i)]
    want_seq += [('Enter', 'outer'), ('Enter', 'inner'), ('Leave', 'inner'), ('Leave', 'outer')]
    want_seq += [('Enter', 'pthread_create'), ('Leave', 'pthread_create'),
                 ('Enter', 'pthread_join'), ('Leave', 'pthread_join')]
    t.eq(seq, want_seq, '%s: nesting as run; stopping outer stopped inner first' % what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    m = mv.member('Bytes Written')
    t.eq(m.value_type, 'DOUBLE', '%s: the counter is a double' % what)
    for loc, values in (('Master thread', [1024.0, 2048.0, 3072.0, 4096.0]),
                        ('Thread 1', [5.0, 5.0])):
        got = [e.values[0] for e in mv.metric_events(mv.loc(loc).ref)]
        t.eq(got, values, '%s: %s: every sample of the counter, exactly' % (what, loc))
    t.eq(program_properties(vttest.otf2_properties(tr.path)), PROPS,
         '%s: metadata and parameter as properties' % what)
    t.eq(program_properties(vttest.otf2_print_properties(tr.path)), PROPS,
         '%s: otf2-print -I: the same properties' % what)


def body(t):
    src = os.path.dirname(os.path.abspath(__file__))
    libdir = t.newdir('lib')
    lib = os.path.join(libdir, 'libpsdemo.so')
    cmd = ['cc', '-O1', '-shared', '-fPIC', os.path.join(src, 'psdemo.c'),
           os.path.join(src, 'ps_stub.c'), '-o', lib, '-ldl', '-pthread']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('library build failed: %s\n%s' % (' '.join(cmd), p.stdout))
    link = ['-I' + src, '-L' + libdir, '-lpsdemo', '-Wl,-rpath,' + libdir]
    static = ['psmain.c', 'psdemo.c', 'ps_stub.c']
    dyn = t.compile('dyn', ['psmain.c'], opt='-O1', flags=['-vt:inst', 'manual'] + link)
    dyn_plain = t.compile('dyn', ['psmain.c'], opt='-O1', flags=link, instrument=False)
    stat = t.compile('stat', static, opt='-O1',
                     flags=['-vt:inst', 'manual', '-DPS_STATIC', '-pthread'])
    stat_plain = t.compile('stat', static, opt='-O1', flags=['-DPS_STATIC', '-pthread'],
                           instrument=False)

    for label, exe in (('dynamic', dyn_plain), ('static', stat_plain)):
        p = t.run(exe, label=label + '-plain')
        t.eq((p.status, p.stdout), (0, NO_TOOL), '%s, without vt: runs, finds no tool' % label)
        t.check(not os.path.exists(os.path.join(p.gdir, 'dyn.vt.otf2'))
                and not os.path.exists(os.path.join(p.gdir, 'stat.vt.otf2')),
                '%s, without vt: no trace' % label)

    check_trace(t, t.run(dyn, label='dynamic'), 'dynamic (dlsym)')
    check_trace(t, t.run(stat, label='static'), 'static (weak symbols)')
    libvt = os.path.join(vttest.BUILD_ROOT, 'runtime', 'libvt.so')
    check_trace(t, t.run(dyn_plain, env={'LD_PRELOAD': libvt}, label='preload'),
                'preloaded libvt')


vttest.main('perfstubs', body)
