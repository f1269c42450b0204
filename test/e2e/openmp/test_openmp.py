# SPDX-License-Identifier: BSD-3-Clause
"""e2e "openmp": OpenMP with 2 threads (gcc/libgomp and clang/libomp): one location per
OpenMP thread, exact counts."""

import vttest

# By hand, from openmp.c: OpenMP thread t calls work() (t + 1) * 5 times and iter() 8 times
# (16 iterations, schedule(static), 2 threads). Thread 0 is the main thread, so it is the
# "Master thread" location; the other is "Thread 1".
MASTER = {'main': 1, 'work': 5, 'iter': 8}
WORKER = {'work': 10, 'iter': 8}
VARIANTS = [('gcc', '-O0'), ('gcc', '-O2'), ('clang', '-O2')]


def build(t, cc, opt, instrument=True):
    try:
        return t.compile('openmp', ['openmp.c'], compiler=cc, opt=opt, flags=['-fopenmp'],
                         instrument=instrument)
    except vttest.Failure as e:
        print(e)
        if cc == 'clang':
            return None  # decided below, from whether plain clang -fopenmp works
        raise


def body(t):
    exes = t.parallel(lambda v: build(t, *v),
                      VARIANTS + [('gcc', '-O0', False), ('clang', '-O2', False)])
    plain = t.run(exes[-2], env={'OMP_NUM_THREADS': '2'}, label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    for (cc, opt), exe in zip(VARIANTS, exes):
        what = '%s %s' % (cc, opt)
        if exe is None:
            if exes[-1] is None:
                t.note('%s: clang -fopenmp does not build even uninstrumented; skipped' % what)
            else:
                t.fail('%s: vtcc builds with -fopenmp' % what,
                       'plain clang -fopenmp works, through vtcc it does not')
            continue
        run = t.run(exe, env={'OMP_NUM_THREADS': '2'}, label='run-%s%s' % (cc, opt))
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([(l.ref, l.name) for l in tr.locations], [(0, 'Master thread'), (1, 'Thread 1')],
             '%s: one location per OpenMP thread' % what)
        if len(tr.locations) != 2:
            continue
        for loc, want in zip(tr.locations, (MASTER, WORKER)):
            t.enter_counts(loc, want, what, only=False)
            # clang outlines the parallel region into .omp_outlined. functions, which
            # -finstrument-functions reports too; the contract does not name them.
            others = {k: v for k, v in loc.enters.items() if k not in want}
            t.check(all('omp' in k.lower() for k in others),
                    '%s: %s: other regions are only OpenMP outlined functions' % (what, loc.name),
                    repr(others))


vttest.main('openmp', body)
