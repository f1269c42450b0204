# SPDX-License-Identifier: BSD-3-Clause
"""e2e "basic": recursion, a static and an inlined function, a linked shared library and a
dlopen()ed one, built with vtcc by gcc and clang at -O0 and -O2: exact counts and names."""

import vttest

# By hand, from basic.c:
#   fib(10): C(n) = 1 + C(n-1) + C(n-2), C(0) = C(1) = 1  ->  C(10) = 177 calls
#   helper: 7 calls, square: 3 (inlined at -O2; -finstrument-functions still reports it),
#   shared_fn (libshared.so): 5, plugin_fn (plugin.so, dlclose()d before exit): 4.
EXPECTED = {'main': 1, 'fib': 177, 'helper': 7, 'square': 3, 'shared_fn': 5, 'plugin_fn': 4}
VARIANTS = [('gcc', '-O0'), ('gcc', '-O2'), ('clang', '-O0'), ('clang', '-O2')]


def build(t, cc, opt, instrument=True):
    d = t.newdir('build-%s%s%s' % (cc, opt, '' if instrument else '-plain'))
    kw = dict(compiler=cc, opt=opt, outdir=d, instrument=instrument)
    t.compile('libshared.so', ['shared.c'], flags=['-shared', '-fPIC'], **kw)
    plugin = t.compile('plugin.so', ['plugin.c'], flags=['-shared', '-fPIC'], **kw)
    # square() is declared inline: counted here, so instrumented (the plugins' default skips
    # inline functions; e2e passes checks that default).
    inline = ['-vt:inline', 'declared'] if instrument else []
    exe = t.compile('basic', ['basic.c'],
                    flags=['-g', '-I' + t.src, '-L' + d, '-lshared', '-Wl,-rpath,' + d, '-ldl']
                    + inline, **kw)
    return exe, plugin


def body(t):
    src = t.source('basic.c')
    lines = {
        'fib': vttest.line_of(src, r'^int fib\(int n\)$'),
        'helper': vttest.line_of(src, r'void helper\(int i\)$'),
        'main': vttest.line_of(src, r'^int main\('),
    }
    builds = t.parallel(lambda v: build(t, *v), VARIANTS + [('gcc', '-O0', False)])
    plain_exe, plain_plugin = builds[-1]
    plain = t.run(plain_exe, [plain_plugin], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')

    for (cc, opt), (exe, plugin) in zip(VARIANTS, builds):
        what = '%s %s' % (cc, opt)
        run = t.run(exe, [plugin], label='run-%s%s' % (cc, opt))
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        master = tr.loc('Master thread')
        t.enter_counts(master, EXPECTED, what)
        t.eq(dict(master.kinds), {'Enter': sum(EXPECTED.values()),
                                  'Leave': sum(EXPECTED.values())},
             '%s: only Enter and Leave events (no flush, no on/off)' % what)
        # fib -> fib -> ... : depth main + 10 levels (fib(10) down to fib(1)).
        t.eq(master.max_depth, 11, '%s: deepest stack: main + fib(10..1)' % what)
        t.source_lines(tr, lines, src, what)

    # VT_TIMER=monotonic: the trace's clock is CLOCK_MONOTONIC in nanoseconds.
    exe, plugin = builds[1]
    what = 'gcc -O2 VT_TIMER=monotonic'
    run = t.run(exe, [plugin], env={'VT_TIMER': 'monotonic'}, label='monotonic')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.eq(tr.clock.timer_resolution, 10**9, '%s: timer resolution 1 GHz' % what)
    t.enter_counts(tr.loc('Master thread'), EXPECTED, what)


vttest.main('basic', body)
