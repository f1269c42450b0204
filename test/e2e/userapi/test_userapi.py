# SPDX-License-Identifier: BSD-3-Clause
"""e2e "userapi": the user API (runtime/include/vt/vt_user.h).
- C (user.c): a region from two call sites, a function region with two returns, and a
  library annotated with the API but built with plain cc -DVT_USER (annotated.c): exact
  region counts and nesting on the master thread;
- C++ (scoped.cpp): VT_USER_SCOPE regions, ended by their scope also when an exception leaves
  it;
- the same library and program built without vt run and print the same (the API's functions
  are weak);
- without VT_USER the macros are nothing: a plain build references no vt symbol."""

import os
import subprocess

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


vttest.main('userapi', body)
