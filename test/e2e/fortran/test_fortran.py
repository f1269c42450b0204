# SPDX-License-Identifier: BSD-3-Clause
"""e2e "fortran": gfortran through vtfort at -O0 and -O2: source names in lower case,
module procedures as module::name, exact counts."""

import vttest

# By hand, from fortran.f90: Step 6 calls, Energy 3, PlainSub 4.
EXPECTED = {'physics::step': 6, 'physics::energy': 3, 'plainsub': 4}
# The contract does not name the main program's regions: gfortran's C main() and the
# program itself (MAIN__, source name fortdemo). Each may appear once, under one of these.
PROGRAM_NAMES = {'main', 'MAIN__', 'fortdemo'}
VARIANTS = ['-O0', '-O2']


def build(t, opt, instrument=True):
    # -fno-inline at -O2: gfortran inlines these small procedures, and vt's default (the GCC
    # plugin, after inlining) records only what remains a call; gfortran 12 has no NOINLINE
    # attribute. The test is about the names and counts of the source's calls.
    flags = ['-g'] + (['-fno-inline'] if opt != '-O0' else [])
    return t.compile('fortran', ['fortran.f90'], lang='fortran', compiler='gfortran', opt=opt,
                     flags=flags, instrument=instrument)


def body(t):
    src = t.source('fortran.f90')
    lines = {
        'physics::step': vttest.line_of(src, r'^\s*subroutine Step\('),
        'physics::energy': vttest.line_of(src, r'^\s*integer function Energy\('),
        'plainsub': vttest.line_of(src, r'^subroutine PlainSub\('),
    }
    exes = t.parallel(lambda v: build(t, *v), [(o,) for o in VARIANTS] + [('-O0', False)])
    plain = t.run(exes[-1], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for opt, exe in zip(VARIANTS, exes):
        what = 'gfortran %s' % opt
        run = t.run(exe, label='run%s' % opt)
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        master = tr.loc('Master thread')
        t.enter_counts(master, EXPECTED, what, only=False)
        others = {k: v for k, v in master.enters.items() if k not in EXPECTED}
        t.check(others and all(k in PROGRAM_NAMES and v == 1 for k, v in others.items()),
                '%s: the only other regions are the main program\'s, once each' % what,
                'others: %r' % others)
        t.source_lines(tr, lines, src, what)
        raw = [r.name for r in tr.regions if r.name not in PROGRAM_NAMES and
               (r.name.startswith('__') or r.name.endswith('_') or '_MOD_' in r.name)]
        t.eq(raw, [], '%s: no region keeps a linker name' % what)


vttest.main('fortran', body)
