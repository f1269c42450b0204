# SPDX-License-Identifier: BSD-3-Clause
"""e2e "filter_inline": a function the run-time filter drops costs a load and a branch in code
the plugins instrumented (issue 30): after its first call, no call into libvt at all. Both
plugins, C and C++, -O0 and -O2, after inlining and in the source view: the trace holds
exactly the unfiltered functions' events, and a preloaded shim that counts the calls of
vt_inst_enter/exit per descriptor sees each filtered function enter libvt once. Descriptors
of ABI 1 are still recorded; those of an unknown ABI are refused with one warning."""

import os
import subprocess

import vttest

HOT, DEPTH, THROWS = 1000, 5, 10
FILTERED = ('hot', 'down', 'thrower')
# Per call of work(): main calls it once, then each of two threads.
PER_WORK = {'work': 1, 'up': DEPTH + 1}
PER_WORK_CXX = dict(PER_WORK, catcher=THROWS)
ALL_PER_WORK = {'hot': HOT, 'down': DEPTH}
ALL_PER_WORK_CXX = dict(ALL_PER_WORK, thrower=THROWS)
BUILDS = [
    # compiler, -O level, extra vtcc options
    ('gcc', '-O0', []), ('gcc', '-O2', []), ('clang', '-O0', []), ('clang', '-O2', []),
    ('g++', '-O0', []), ('g++', '-O2', []), ('clang++', '-O0', []), ('clang++', '-O2', []),
    ('gcc', '-O2', ['-vt:inline', 'declared']), ('clang++', '-O2', ['-vt:inline', 'declared']),
]
PLUGIN = {'gcc': 'gcc', 'g++': 'gcc', 'clang': 'llvm', 'clang++': 'llvm'}


def shim(t):
    """The counting shim, built with the plain compiler against the descriptor header."""
    d = t.newdir('shim')
    out = os.path.join(d, 'libcount.so')
    cmd = ['gcc', '-O2', '-shared', '-fPIC', '-I',
           os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include'), t.source('count.c'),
           '-o', out, '-ldl', '-lpthread']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('shim build failed: %s\n%s' % (' '.join(cmd), p.stdout))
    return out


def calls(path):
    """{name: (enters, exits)} as the shim wrote them."""
    out = {}
    with open(path) as f:
        for line in f:
            name, enters, exits = line.rsplit(None, 2)
            out[name] = (int(enters), int(exits))
    return out


def scaled(per_work, n):
    return {k: v * n for k, v in per_work.items()}


def body(t):
    count_so = shim(t)
    filt = os.path.join(t.newdir('filter'), 'skip.filter')
    with open(filt, 'w') as f:
        f.write('%s -- 0\n' % ';'.join(FILTERED))

    def build(b):
        cc, opt, extra = b
        cxx = cc.endswith('++')
        return t.compile('skip', ['skip.cpp' if cxx else 'skip.c'],
                         lang='c++' if cxx else 'c', compiler=cc, opt=opt,
                         flags=['-vt:inst', PLUGIN[cc], '-pthread'] + extra)

    exes = t.parallel(build, BUILDS)
    plain = t.run(t.compile('skip', ['skip.c'], instrument=False, flags=['-pthread']),
                  label='plain')
    for (cc, opt, extra), exe in zip(BUILDS, exes):
        cxx = cc.endswith('++')
        what = ' '.join([cc, opt, '-vt:inst', PLUGIN[cc]] + extra)
        shown = PER_WORK_CXX if cxx else PER_WORK
        dropped = ALL_PER_WORK_CXX if cxx else ALL_PER_WORK

        def traced(label, env):
            counts = os.path.join(t.newdir('counts'), 'calls')
            # VT_PTHREAD=no: the shim's own locks are not the program's.
            run = t.run(exe, env=dict({'LD_PRELOAD': count_so, 'COUNT_FILE': counts,
                                       'VT_PTHREAD': 'no'}, **env), label='run')
            w = '%s, %s' % (what, label)
            t.eq(run.status, 0, '%s: exit status 0' % w)
            if not cxx:
                t.eq(run.stdout, plain.stdout, '%s: stdout as uninstrumented' % w)
            t.clean_run(run, w)
            tr = t.trace(run, w)
            master = {k: v for k, v in tr.loc('Master thread').enters.items() if v}
            threads = sorted(sorted((k, v) for k, v in l.enters.items() if v)
                             for l in tr.locations if l.name != 'Master thread')
            return w, tr, master, threads, calls(counts)

        # Unfiltered: every call recorded, and the shim counts each call into libvt.
        w, tr, master, threads, seen = traced('unfiltered', {})
        want = dict(shown, **dropped)
        t.eq(master, dict(want, main=1), '%s: Master thread: Enter counts' % w)
        t.eq(threads, [sorted(want.items())] * 2, '%s: each thread: Enter counts' % w)
        t.eq({k: v[0] for k, v in seen.items()}, dict(scaled(want, 3), main=1),
             '%s: vt_inst_enter calls per function = Enter events' % w)

        # Filtered at run time: only the others' events; each filtered function calls
        # vt_inst_enter and vt_inst_exit once (its first call registers the descriptor)
        # however often it runs, on however many threads, recursion and exceptions included.
        w, tr, master, threads, seen = traced('filtered', {'VT_FILTER_SPEC': filt})
        t.eq(master, dict(shown, main=1), '%s: Master thread: Enter counts' % w)
        t.eq(threads, [sorted(shown.items())] * 2, '%s: each thread: Enter counts' % w)
        t.eq(sorted(k for k, v in tr.enters().items() if v), sorted(list(shown) + ['main']),
             '%s: no filtered function in the trace' % w)
        t.eq({k: v for k, v in seen.items() if k in FILTERED}, {k: (1, 1) for k in dropped},
             '%s: each filtered function entered libvt once (enter, exit)' % w)
        t.eq({k: v[0] for k, v in seen.items() if k not in FILTERED},
             dict(scaled(shown, 3), main=1),
             '%s: unfiltered functions: vt_inst_enter calls = Enter events' % w)

    abi(t)


def abi(t):
    """The runtime reads descriptors of ABI 1 (code that always calls) as before, and refuses
    those of an ABI it does not know with one warning."""
    exe = t.compile('abi', ['abi.c'], opt='-O2', flags=['-vt:inst', 'none'])
    run = t.run(exe, ['0'], label='run')
    t.eq(run.status, 0, 'ABI 1: exit status 0')
    t.clean_run(run, 'ABI 1')
    tr = t.trace(run, 'ABI 1')
    t.enter_counts(tr.loc('Master thread'), {'abi1_function': 7}, 'ABI 1')
    run = t.run(exe, ['1'], label='run')
    t.eq(run.status, 0, 'unknown ABI: exit status 0')
    t.eq([w for w in run.warnings if 'descriptor ABI' in w],
         ['warning: code instrumented by a compiler plugin of another vt version '
          '(descriptor ABI 3, this runtime 1 to 2) is not recorded; rebuild it'],
         'unknown ABI: one warning naming the ABIs')
    # vt's notice, not the readers: python3-otf2 and vt-profile refuse a trace without events.
    t.eq([(int(n), int(l)) for _, n, l in run.written], [(0, 1)],
         'unknown ABI: nothing recorded ("trace written to ... (0 events, 1 location)")')


vttest.main('filter_inline', body)
