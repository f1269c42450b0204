# SPDX-License-Identifier: BSD-3-Clause
"""e2e "existing": an existing trace is never overwritten: later runs into the same
directory write PREFIX.1.otf2, PREFIX.2.otf2 and say so; VT_FILE_PREFIX names the archive."""

import os

import vttest

EXPECTED = {'main': 1, 'step': 3}
PREFIX = 'existing.vt'  # the default: EXE.vt


def archive(gdir, prefix):
    """{file: sha256} of everything that belongs to the archive PREFIX in gdir."""
    out = {}
    for part in (prefix + '.otf2', prefix + '.def', prefix):
        p = os.path.join(gdir, part)
        if os.path.exists(p):
            for k, v in vttest.sha256_tree(p).items():
                out[os.path.join(part, k) if os.path.isdir(p) else part] = v
    return out


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('existing', ['existing.c'], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    plain = t.run(plain_exe, label='plain')
    gdir = t.newdir('traces')

    what = 'first run'
    run = t.run(exe, gdir=gdir, label='first')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    t.eq(run.prefix, PREFIX, 'the default archive name is EXE.vt')
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), EXPECTED, what)
    first = archive(gdir, PREFIX)
    t.check(PREFIX + '.otf2' in first and PREFIX + '.def' in first,
            '%s: archive has its anchor and definitions' % what, repr(sorted(first)))

    for n in (1, 2):
        what = 'run %d into the same directory' % (n + 1)
        run = t.run(exe, gdir=gdir, label='again')
        t.same_as_plain(run, plain, what)
        t.vt_pids(run, what)
        t.eq(run.errors, [], '%s: no vt error' % what)
        t.eq(archive(gdir, PREFIX), first, '%s: the first archive is byte-identical' % what)
        new = os.path.join(gdir, '%s.%d.otf2' % (PREFIX, n))
        # "trace DIR/PREFIX.otf2 exists; this run writes DIR/PREFIX.1.otf2"
        said = [m for m in run.messages
                if 'exists' in m and m.endswith('writes ' + new)]
        t.eq(len(said), 1, '%s: one vt line says a trace exists and this run writes %s'
             % (what, new))
        tr = t.trace(run, what, prefix='%s.%d' % (PREFIX, n))
        t.enter_counts(tr.loc('Master thread'), EXPECTED, what)

    what = 'VT_FILE_PREFIX=myrun'
    run = t.run(exe, env={'VT_FILE_PREFIX': 'myrun'}, gdir=gdir, label='prefix')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what, prefix='myrun')
    t.enter_counts(tr.loc('Master thread'), EXPECTED, what)
    t.eq(archive(gdir, PREFIX), first, '%s: the first archive is byte-identical' % what)
    t.eq(sorted(f for f in os.listdir(gdir) if f.endswith('.otf2')),
         sorted([PREFIX + '.otf2', PREFIX + '.1.otf2', PREFIX + '.2.otf2', 'myrun.otf2']),
         'anchors in the directory')

    # The default directory is the working directory.
    what = 'VT_PFORM_GDIR unset'
    run = t.run(exe, env={'VT_PFORM_GDIR': None}, label='cwd')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    t.eq(run.gdir, run.cwd, '%s: the trace goes to the working directory' % what)
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), EXPECTED, what)


vttest.main('existing', body)
