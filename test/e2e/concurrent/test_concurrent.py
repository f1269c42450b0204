# SPDX-License-Identifier: BSD-3-Clause
"""e2e "concurrent": runs started at once in one directory each get an archive of their own,
and a killed run's leftovers are never taken for a trace.

Eight copies of the program start together, wait until they are all past vt's start, and
are let go at once: each must write its own archive (NAME, NAME.1, ... NAME.7), whole and
exact. Before, the name was picked by looking, and two runs could both pick one (4 of 60
pairs wrote mixed event files). A run killed with SIGKILL leaves a directory and an empty
anchor: the next run says the name is taken by an unfinished trace, not that a trace
exists, and writes NAME.1; the leftovers stay as they were.
"""

import os
import re
import signal
import subprocess
import time

import vttest

RUNS = 8
CALLS = 2000
PREFIX = 'concurrent.vt'
UNFINISHED = re.compile(r'^(.+) is taken by another run or an unfinished trace \(no anchor\); '
                        r'this run writes (.+\.otf2)$')


def start(t, exe, args, gdir, label):
    """Starts exe like t.run does, without waiting: (Popen, cmd, env given, cwd)."""
    cwd = os.path.join(t.newdir(label), 'cwd')
    os.makedirs(cwd)
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    env['VT_PFORM_GDIR'] = gdir
    cmd = [exe] + list(args)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
                         universal_newlines=True, errors='replace')
    return p, cmd, {'VT_PFORM_GDIR': gdir}, cwd


def finish(started, timeout=120):
    p, cmd, env, cwd = started
    out, err = p.communicate(timeout=timeout)
    run = vttest.Run(cmd, env, cwd, env['VT_PFORM_GDIR'], p, out, err)
    print('run: %s -> status %d' % (run.describe(), run.status))
    for line in err.splitlines()[:5]:
        print('  stderr: %s' % line)
    return run


def body(t):
    exe, plain_exe = t.parallel(
        lambda instrument: t.compile('concurrent', ['concurrent.c'], compiler='gcc',
                                     opt='-O0', instrument=instrument), [True, False])
    files = t.newdir('files')
    go = os.path.join(files, 'go')
    open(go, 'w').close()
    plain = t.run(plain_exe, args=[str(CALLS), go], label='plain')
    t.eq(plain.status, 0, 'uninstrumented: exit status 0')
    os.unlink(go)

    what = '%d runs at once' % RUNS
    gdir = t.newdir('traces')
    runs = [start(t, exe, [str(CALLS), go], gdir, 'at-once') for _ in range(RUNS)]
    # vt reserves the name at load, before main: once every run has its directory, all go.
    deadline = time.time() + 60
    while time.time() < deadline and \
            len([d for d in os.listdir(gdir) if os.path.isdir(os.path.join(gdir, d))
                     and not d.startswith('.')]) < RUNS:
        time.sleep(0.01)
    open(go, 'w').close()
    runs = [finish(r) for r in runs]
    anchors = []
    for run in runs:
        t.same_as_plain(run, plain, what)
        t.eq(run.errors + run.warnings, [], '%s: no vt error or warning' % what)
        t.eq(len(run.written), 1, '%s: run %d says once where its trace went' % (what, run.pid))
        anchors += [os.path.realpath(w[0]) for w in run.written]
    want = sorted(os.path.join(os.path.realpath(gdir), PREFIX + ('.%d' % i if i else '') + '.otf2')
                  for i in range(RUNS))
    t.eq(sorted(anchors), want, '%s: every run its own archive, %s.otf2 to %s.%d.otf2' %
         (what, PREFIX, PREFIX, RUNS - 1))
    for run in runs:
        if len(run.written) != 1:
            continue
        prefix = os.path.basename(run.written[0][0])[:-len('.otf2')]
        tr = t.trace(run, '%s: pid %d' % (what, run.pid), prefix=prefix, profile=False)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': CALLS},
                       '%s: pid %d' % (what, run.pid))
        t.eq(len(tr.locations), 1, '%s: pid %d: one location, no one else\'s' % (what, run.pid))

    what = 'after a killed run'
    gdir = t.newdir('killed')
    os.unlink(go)
    victim = start(t, exe, [str(CALLS), go], gdir, 'killed')
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.isdir(os.path.join(gdir, PREFIX)):
        time.sleep(0.01)
    time.sleep(0.1)
    victim[0].send_signal(signal.SIGKILL)
    victim[0].communicate()
    left = vttest.sha256_tree(gdir)
    t.check(PREFIX + '.otf2' not in left or os.path.getsize(os.path.join(gdir, PREFIX + '.otf2'))
            == 0, '%s: the killed run left no anchor with content' % what, repr(sorted(left)))
    open(go, 'w').close()
    run = t.run(exe, args=[str(CALLS), go], gdir=gdir, label='next')
    t.same_as_plain(run, plain, what)
    t.eq([m for m in run.messages if 'exists' in m], [],
         '%s: no line says a trace exists' % what)
    said = [UNFINISHED.match(m) for m in run.messages if UNFINISHED.match(m)]
    t.eq([(m.group(1), m.group(2)) for m in said],
         [(os.path.join(gdir, PREFIX), os.path.join(gdir, PREFIX + '.1.otf2'))],
         '%s: one line: the name is taken by an unfinished trace, this run writes %s.1'
         % (what, PREFIX))
    tr = t.trace(run, what, prefix=PREFIX + '.1')
    t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': CALLS}, what)
    now = vttest.sha256_tree(gdir)
    t.eq({k: v for k, v in now.items() if k in left}, left,
         '%s: the leftovers are as the killed run left them' % what)


vttest.main('concurrent', body)
