# SPDX-License-Identifier: BSD-3-Clause
"""e2e "cxx": C++ through vtcxx with g++ and clang++ at -O0 and -O2: demangled names exact."""

import vttest

# By hand, from cxx.cpp: two Widgets constructed, poke 6 times, value() twice,
# twice<int> 3 times, twice<double> once, over(int) 4 times, over(double) 5 times.
EXPECTED = {
    'main': 1,
    'ns::Widget::Widget(int)': 2,
    'ns::Widget::poke(int)': 6,
    'ns::Widget::value() const': 2,
    'int twice<int>(int)': 3,
    'double twice<double>(double)': 1,
    'over(int)': 4,
    'over(double)': 5,
}
VARIANTS = [('g++', '-O0'), ('g++', '-O2'), ('clang++', '-O0'), ('clang++', '-O2')]


def build(t, cxx, opt, instrument=True):
    # Widget's members are defined in the class (implicitly inline): counted here, so
    # instrumented (the plugins' default skips inline functions; e2e passes checks that).
    inline = ['-vt:inline', 'declared'] if instrument else []
    return t.compile('cxx', ['cxx.cpp'], lang='c++', compiler=cxx, opt=opt,
                     flags=['-g'] + inline, instrument=instrument)


def body(t):
    src = t.source('cxx.cpp')
    lines = {  # the lines of the definitions
        'ns::Widget::Widget(int)': vttest.line_of(src, r'explicit Widget\(int v\)'),
        'ns::Widget::poke(int)': vttest.line_of(src, r'^int Widget::poke\(int d\)$'),
        'ns::Widget::value() const': vttest.line_of(src, r'^int Widget::value\(\) const$'),
        'int twice<int>(int)': vttest.line_of(src, r'T twice\(T x\)$'),
        'over(double)': vttest.line_of(src, r'double over\(double x\)$'),
    }
    exes = t.parallel(lambda v: build(t, *v), VARIANTS + [('g++', '-O0', False)])
    plain = t.run(exes[-1], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for (cxx, opt), exe in zip(VARIANTS, exes):
        what = '%s %s' % (cxx, opt)
        run = t.run(exe, label='run-%s%s' % (cxx, opt))
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        t.enter_counts(tr.loc('Master thread'), EXPECTED, what)
        t.source_lines(tr, lines, src, what)
        mangled = [r.name for r in tr.regions if r.name.startswith('_Z')]
        t.eq(mangled, [], '%s: no region keeps a mangled name' % what)


vttest.main('cxx', body)
