# SPDX-License-Identifier: BSD-3-Clause
"""e2e "symlinks": symbolic links planted in the trace directory during the run are never
followed at exit, and a racer that keeps planting them never wins.

While the program waits, NAME.otf2 and NAME.def (the names vt reserves for the anchor and the
global definitions) are replaced by links to a file of someone else's; before, the anchor and
the definitions were written through them, over that file. Now the file stays as it was, vt
says once per link what it removed, and the trace is written and reads whole.

The racer: in a world-writable directory without the sticky bit, a process of another user
(nobody) keeps replacing NAME.otf2, NAME.def and NAME (the events' directory) with links to a
file and a directory of root's, from vt's reservation of the name until the program has
ended, 20 runs one after the other. Before, libotf2 opened the names by path after vt's check
(fopen, following links): the racer made root write the anchor over the file in 8 of 20 runs.
Now vt writes the archive in a directory of its own and renames it into place, so: the
victims are never written, and each run either publishes a whole trace or says in one line
where its trace stayed. The racer takes back what it removed when that held content (a
published file): destroying a finished trace is not a redirected write, and nothing stops
it in such a directory.

A directory with a file in it put at NAME during the run cannot be replaced by rename: the
trace stays whole in vt's own directory, and the one line says where and why.
"""

import ctypes
import errno
import os
import re
import stat
import subprocess
import time

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
    obstacle(t, exe, plain, files)
    racer_runs(t, exe, plain, files)


def obstacle(t, exe, plain, files):
    """A directory with a file in it put at NAME during the run: rename cannot replace it,
    so the trace stays whole in vt's own directory, and one line says where."""
    what = 'a directory with files put at the events\' name'
    gdir = t.newdir('obstacle')
    go = os.path.join(files, 'go')
    if os.path.exists(go):
        os.unlink(go)
    pid = os.fork()
    if pid == 0:
        try:
            deadline = time.time() + 60
            evdir = os.path.join(gdir, PREFIX)
            while time.time() < deadline and not os.path.isdir(evdir):
                time.sleep(0.01)
            os.rmdir(evdir)
            os.mkdir(evdir)
            open(os.path.join(evdir, 'mine'), 'w').close()
            open(go, 'w').close()
        finally:
            os._exit(0)
    run = t.run(exe, args=[str(CALLS), go], gdir=gdir, label='obstacle')
    os.waitpid(pid, 0)
    t.same_as_plain(run, plain, what)
    t.vt_pids(run, what)
    said = [LEFT.match(m) for m in run.messages if LEFT.match(m)]
    t.eq([m for m in run.messages if not LEFT.match(m)], [], '%s: no other vt line' % what)
    t.eq(len(said), 1, '%s: one line says where the trace is' % what)
    t.eq(os.listdir(os.path.join(gdir, PREFIX)), ['mine'], '%s: the directory is as it was'
         % what)
    if said:
        t.eq(said[0].group(4), os.path.join(gdir, PREFIX) + ': a directory with files in it '
             'is there', '%s: the line says what was in the way' % what)
        prefix = os.path.relpath(said[0].group(1), gdir)[:-len('.otf2')]
        t.check(re.match(r'\.' + re.escape(PREFIX) + r'\.vt-\w{6}/' + re.escape(PREFIX) + '$',
                         prefix), '%s: the trace stays in vt\'s own directory' % what, prefix)
        tr = t.trace(run, what, prefix=prefix, notice=False, profile=False)
        t.eq((tr.events, len(tr.locations)), (int(said[0].group(2)), int(said[0].group(3))),
             '%s: the events and locations the line gives' % what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': CALLS}, what)


RACES = 20
NOBODY = 65534
LEFT = re.compile(r'^warning: trace written to (.+\.otf2) \((\d+) events?, (\d+) locations?\) '
                  r'and left there: not moved into VT_PFORM_GDIR \((.+)\)$')


AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2


def rename2(libc, a, b, flags):
    """renameat2(2): a planted without replacing anything, or a and b swapped at once."""
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), b)


def race(targets, reserved, hold, stop):
    """The racer's loop, as user nobody, once vt has reserved the name (reserved exists):
    every name of targets (path -> what its link points to) that is missing, vt's empty
    placeholder or a link becomes a link, until stop exists. A name is swapped with the
    racer's link in one step; when what it held had content (a finished file of the trace),
    it is swapped back at once."""
    libc = ctypes.CDLL(None, use_errno=True)
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    os.mkdir(hold)
    while not os.path.lexists(reserved) and not os.path.exists(stop):
        time.sleep(0.001)
    mine = os.path.join(hold, 'link')
    rounds = 0
    while not os.path.exists(stop):
        for path, target in targets.items():
            try:
                if os.path.lexists(mine):
                    os.unlink(mine)
                os.symlink(target, mine)
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rmdir(path)  # only an empty one: vt's placeholder
                if not os.path.lexists(path):
                    rename2(libc, mine, path, RENAME_NOREPLACE)
                    continue
                rename2(libc, mine, path, RENAME_EXCHANGE)
                st = os.lstat(mine)
                if stat.S_ISREG(st.st_mode) and st.st_size > 0:
                    rename2(libc, mine, path, RENAME_EXCHANGE)  # content: put back
            except OSError as e:
                if e.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST,
                                   errno.EISDIR, errno.ENOTDIR, errno.EACCES, errno.EPERM):
                    raise
        rounds += 1
    with open(os.path.join(hold, 'rounds'), 'w') as f:
        f.write('%d\n' % rounds)


def racer_runs(t, exe, plain, files):
    what = 'a racer planting links'
    victim = os.path.join(files, 'victim')
    content = b'root\'s own file\n'
    victim_dir = os.path.join(files, 'victim-dir')
    os.mkdir(victim_dir)
    published, left, rounds, won = 0, 0, 0, 0
    for i in range(RACES):
        # Each run starts from the same victims: the runs the racer wins are counted.
        with open(victim, 'wb') as f:
            f.write(content)
        for n in os.listdir(victim_dir):
            subprocess.run(['rm', '-rf', os.path.join(victim_dir, n)], check=True)
        label = 'race-%d' % (i + 1)
        gdir = t.newdir(label)
        os.chmod(gdir, 0o777)  # world-writable, no sticky bit
        targets = {os.path.join(gdir, PREFIX + '.otf2'): victim,
                   os.path.join(gdir, PREFIX + '.def'): victim,
                   os.path.join(gdir, PREFIX): victim_dir}
        hold = os.path.join(gdir, '.racer')
        stop = os.path.join(files, 'stop-%d' % i)
        go = os.path.join(files, 'go')
        if os.path.exists(go):
            os.unlink(go)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                # vt makes NAME/ last of the three names it reserves.
                race(targets, os.path.join(gdir, PREFIX), hold, stop)
                code = 0
            finally:
                os._exit(code)
        # The program waits for go: it is given once the racer has planted its first link.
        proc = os.fork()
        if proc == 0:
            try:
                deadline = time.time() + 60
                while time.time() < deadline and \
                        not os.path.islink(os.path.join(gdir, PREFIX + '.otf2')):
                    time.sleep(0.001)
                open(go, 'w').close()
            finally:
                os._exit(0)
        run = t.run(exe, args=[str(CALLS), go], gdir=gdir, label=label)
        os.waitpid(proc, 0)
        open(stop, 'w').close()
        _, status = os.waitpid(pid, 0)
        w = '%s, run %d' % (what, i + 1)
        t.eq(status, 0, '%s: the racer ran as nobody to the end' % w)
        with open(os.path.join(hold, 'rounds')) if os.path.exists(os.path.join(hold, 'rounds')) \
                else open(os.devnull) as f:
            rounds += int(f.read() or 0)
        t.same_as_plain(run, plain, w)
        t.vt_pids(run, w)
        with open(victim, 'rb') as f:
            same = f.read() == content
        t.check(same, '%s: the linked file is unchanged' % w)
        into = os.listdir(victim_dir)
        t.eq(into, [], '%s: nothing written into the linked directory' % w)
        won += not same or bool(into)
        said = [LEFT.match(m) for m in run.messages if LEFT.match(m)]
        others = [m for m in run.errors + run.warnings
                  if not REPLACED.match(m) and not LEFT.match(m)]
        t.eq(others, [], '%s: no vt error or warning but "replaced" and "left there"' % w)
        if said:
            # One line says where the trace is: in vt's own directory, whole.
            left += 1
            t.eq(len(said) + len(run.written), 1, '%s: one line says where the trace is' % w)
            path = said[0].group(1)
            t.check(re.match(re.escape(gdir) + r'/\.' + re.escape(PREFIX) +
                             r'\.vt-\w{6}/' + re.escape(PREFIX) + r'\.otf2$', path),
                    '%s: the trace stays in vt\'s own directory' % w, path)
            prefix = os.path.relpath(path, gdir)[:-len('.otf2')]
            tr = t.trace(run, w, prefix=prefix, notice=False, profile=False)
            t.eq((tr.events, len(tr.locations)), (int(said[0].group(2)), int(said[0].group(3))),
                 '%s: the events and locations the line gives' % w)
        else:
            published += 1
            tr = t.trace(run, w, profile=False)
            t.eq(sorted(n for n in os.listdir(gdir) if n.startswith('.' + PREFIX)), [],
                 '%s: vt\'s own directory is gone' % w)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': CALLS}, w)
    t.note('%s: %d of %d runs published their trace, %d said where it stayed, %d wrote '
           'through a link; the racer made %d rounds' % (what, published, RACES, left, won,
                                                         rounds))
    t.eq(won, 0, '%s: no run wrote through a link' % what)
    t.eq(published + left, RACES, '%s: every run\'s trace is whole somewhere' % what)


vttest.main('symlinks', body)
