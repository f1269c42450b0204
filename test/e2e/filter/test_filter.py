# SPDX-License-Identifier: BSD-3-Clause
"""e2e "filter": filter files (exclusion, wildcards, call limits) and VT_MAX_STACK_DEPTH
remove exactly the events they should and no others."""

import os

import vttest

# By hand, from filter.c. main is at depth 1; hot .. keep and the first rec() at depth 2;
# rec(5) recurses down to rec(1) and each rec(n) calls leaf() once, one level deeper.
ALL = {'main': 1, 'hot': 1000, 'lib_alpha': 3, 'lib_beta': 4, 'limited': 20, 'keep': 6,
       'rec': 5, 'leaf': 5}


def without(counts, *names):
    return {k: v for k, v in counts.items() if k not in names}


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('filter', ['filter.c'], compiler='gcc', opt='-O2',
                                     instrument=instrument), [True, False])
    plain = t.run(plain_exe, label='plain')
    files = t.newdir('filters')

    def filter_file(name, text):
        path = os.path.join(files, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def traced(what, env):
        run = t.run(exe, env=env, label='run')
        t.same_as_plain(run, plain, what)
        t.clean_run(run, what)
        tr = t.trace(run, what)
        t.eq([l.name for l in tr.locations], ['Master thread'], '%s: one location' % what)
        return tr.loc('Master thread')

    base = traced('unfiltered', {})
    t.enter_counts(base, ALL, 'unfiltered')
    unfiltered = dict(base.enters)

    cases = [
        ('hot -- 0', 'hot.filter', '# keep everything but hot()\nhot -- 0   # never\n',
         without(ALL, 'hot'), without(unfiltered, 'hot')),
        ('lib_* -- 0', 'lib.filter', 'lib_* -- 0\n',
         without(ALL, 'lib_alpha', 'lib_beta'), without(unfiltered, 'lib_alpha', 'lib_beta')),
        ('limited -- 5', 'limited.filter', 'limited -- 5\n',
         dict(ALL, limited=5), dict(unfiltered, limited=5)),
        ('hot;keep -- 0, * -- -1', 'multi.filter', 'hot;keep -- 0\n* -- -1\n',
         without(ALL, 'hot', 'keep'), without(unfiltered, 'hot', 'keep')),
    ]
    for what, name, text, by_hand, from_base in cases:
        what = 'filter "%s"' % what
        loc = traced(what, {'VT_FILTER_SPEC': filter_file(name, text)})
        t.enter_counts(loc, by_hand, what)
        t.eq({k: v for k, v in loc.enters.items() if v}, from_base,
             '%s: every other count as in the unfiltered run' % what)

    for depth, want in ((2, dict(without(ALL, 'leaf'), rec=1)),
                        (3, dict(ALL, rec=2, leaf=1))):
        what = 'VT_MAX_STACK_DEPTH=%d' % depth
        loc = traced(what, {'VT_MAX_STACK_DEPTH': str(depth)})
        t.enter_counts(loc, want, what)
        t.eq(loc.max_depth, depth, '%s: deepest recorded stack' % what)


vttest.main('filter', body)
