# SPDX-License-Identifier: BSD-3-Clause
"""e2e "symlinks": symbolic links planted in the trace directory during the run are never
followed at exit.

While the program waits, NAME.otf2 and NAME.def (the files libotf2 writes beside the
archive's directory with O_CREAT|O_TRUNC) are replaced by links to a file of someone else's;
before, the anchor and the definitions were written through them, over that file. Now the
file stays as it was, vt says once per link what it removed, and the trace is written and
reads whole.
"""

import os
import re

import vttest

CALLS = 1000
PREFIX = 'symlinks.vt'
REPLACED = re.compile(r'^warning: (.+) was replaced during the run \(by a symbolic link\); vt '
                      r'removed it and writes the trace\'s own file$')


# The concurrent test's program: links are planted while it waits for its file.
GATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'concurrent',
                     'concurrent.c')


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('symlinks', [GATED], compiler='gcc', opt='-O0',
                                     instrument=instrument), [True, False])
    files = t.newdir('files')
    go = os.path.join(files, 'go')
    open(go, 'w').close()
    plain = t.run(plain_exe, args=[str(CALLS), go], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    os.unlink(go)

    victim = os.path.join(files, 'precious')
    with open(victim, 'w') as f:
        f.write('someone else\'s file\n')
    gdir = t.newdir('traces')
    links = [os.path.join(gdir, PREFIX + s) for s in ('.otf2', '.def')]
    # The program waits for go: the links are planted meanwhile, as a program's own work
    # would give time to.
    pid = os.fork()
    if pid == 0:  # the planter
        try:
            import time
            deadline = time.time() + 60
            while time.time() < deadline and not os.path.isdir(os.path.join(gdir, PREFIX)):
                time.sleep(0.01)
            for link in links:
                if os.path.lexists(link):
                    os.unlink(link)
                os.symlink(victim, link)
            open(go, 'w').close()
        finally:
            os._exit(0)
    run = t.run(exe, args=[str(CALLS), go], gdir=gdir, label='planted')
    os.waitpid(pid, 0)
    what = 'links planted during the run'
    t.same_as_plain(run, plain, what)
    t.vt_pids(run, what)
    with open(victim) as f:
        t.eq(f.read(), 'someone else\'s file\n', '%s: the linked file is unchanged' % what)
    said = sorted(REPLACED.match(m).group(1) for m in run.messages if REPLACED.match(m))
    t.eq(said, sorted(links), '%s: one line per link removed' % what)
    t.eq([m for m in run.errors + run.warnings if not REPLACED.match(m)], [],
         '%s: no other vt error or warning' % what)
    for link in links:
        t.check(os.path.isfile(link) and not os.path.islink(link),
                '%s: %s is the trace\'s own file' % (what, os.path.basename(link)))
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': CALLS}, what)


vttest.main('symlinks', body)
