# SPDX-License-Identifier: BSD-3-Clause
"""e2e "forks": a vfork child that execs (or fails to and calls _exit) leaves its parent's
trace alone: the parent's events after the child are recorded and the trace is written once,
by the parent. A child forked without exec is not traced and says so in one line at the
default verbosity; the parent's trace holds only the parent's events. Output and status are
those of the uninstrumented program. daemon(3), whose parent ends in _exit: its trace holds
the parent's events up to daemon() (readable, main closed by vt), one line says the daemon is
not traced, and the daemon runs as it would (it writes its file, with its own pid)."""

import os
import time

import vttest

PARENT = {'main': 1, 'work': 30}


def body(t):
    exe, plain = t.parallel(lambda a: t.compile(*a), [
        ('forks', ['forks.c'], 'c', 'gcc', '-O2'),
        ('forks-plain', ['forks.c'], 'c', 'gcc', '-O2', (), False)])

    for how, status in (('vfork', 0), ('vfork-fail', 127)):
        ref = t.run(plain, [how], label='plain-' + how)
        run = t.run(exe, [how], label=how)
        t.same_as_plain(run, ref, how)
        t.eq(run.stdout.splitlines()[-1], 'parent after, child status %d' % status,
             '%s: the parent went on after the child' % how)
        t.clean_run(run, how)
        t.check(not any('before the process image is replaced' in m for m in run.messages),
                '%s: the child did not write the trace' % how)
        tr = t.trace(run, how)
        t.enter_counts(tr.loc('Master thread'), PARENT, '%s: every call of the parent' % how)

    ref = t.run(plain, ['fork'], label='plain-fork')
    run = t.run(exe, ['fork'], label='fork')
    t.same_as_plain(run, ref, 'fork')
    t.eq(run.errors + run.warnings, [], 'fork: no vt errors or warnings')
    notes = [(pid, m) for pid, m in run.vt if m.startswith('forked child')]
    t.eq(len(notes), 1, 'fork: one line about the child')
    t.check(notes and notes[0][0] != run.pid and
            notes[0][1].startswith('forked child of process %d: not traced' % run.pid),
            'fork: the line comes from the child and names the parent', repr(notes))
    tr = t.trace(run, 'fork')
    t.eq(len(tr.locations), 1, 'fork: one location, the parent\'s')
    t.enter_counts(tr.loc('Master thread'), PARENT, 'fork: the parent\'s calls only')

    # daemon(): the parent's trace up to it; the daemon runs on, untraced.
    for label, prog in (('daemon', exe), ('plain-daemon', plain)):
        marker = os.path.join(t.newdir(label + '-out'), 'daemon.txt')
        run = t.run(prog, ['daemon', marker], label=label)
        t.eq((run.status, run.stdout), (0, 'parent before\n'),
             '%s: the parent ends as daemon() makes it' % label)
        deadline = time.monotonic() + 60
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        with open(marker) if os.path.exists(marker) else open(os.devnull) as f:
            text = f.read()
        t.check(text.startswith('daemon ') and text.split()[1] != str(run.pid),
                '%s: the daemon ran on in a process of its own' % label, repr(text))
        if label != 'daemon':
            continue
        t.eq(run.errors + run.warnings, [], 'daemon: no vt errors or warnings')
        notes = [m for pid, m in run.vt if pid == run.pid and m.startswith('daemon():')]
        t.eq(notes, ['daemon(): the trace ends here; the daemon (process %s) is not traced'
                     % text.split()[1] if text else '?'], 'daemon: one line names the daemon')
        tr = t.trace(run, 'daemon')
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'work': 10},
                       'daemon: the parent\'s calls up to daemon()')


vttest.main('forks', body)
