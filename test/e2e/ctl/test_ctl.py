# SPDX-License-Identifier: BSD-3-Clause
"""e2e "ctl": vt-ctl switches recording of a running program off and on, refuses a snapshot
in file mode and takes one in ring mode (B's calls and no C's, the run's own trace whole),
lists traced processes, and says clearly what it cannot do. The program runs
phases A, B and C, each started by a line the test writes on its stdin, so vt-ctl acts
between two phases and no timing is involved. MPI: vt-ctl off --job reaches both ranks.
A read() that a thread is blocked in when recording goes off keeps its IoOperationComplete
(and its Leave): the OFF follows it."""

import os
import re
import shutil
import signal
import subprocess

import vttest

VT_CTL = os.path.join(os.path.dirname(vttest.VTCC), 'vt-ctl')
REFUSED = 'snapshots are taken in ring mode (VT_MODE=ring)'
ALL = {'main': 1, 'wait_go': 3, 'phase_a': 100, 'phase_b': 200, 'phase_c': 300}


def vtctl(t, *args):
    p = subprocess.run([VT_CTL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    print('vt-ctl %s -> %d: %r %r' % (' '.join(args), p.returncode, p.stdout, p.stderr))
    return p.returncode, p.stdout, p.stderr


class Live:
    """The program running with a pipe on its stdin; each go() starts the next phase."""

    def __init__(self, t, exe, env=None, label='run', prefix=(), args=()):
        base = t.newdir(label)
        self.cwd = os.path.join(base, 'cwd')
        self.gdir = os.path.join(base, 'trace')
        os.makedirs(self.cwd)
        os.makedirs(self.gdir)
        if prefix:  # another user runs it: the directories are everyone's
            os.chmod(self.cwd, 0o777)
            os.chmod(self.gdir, 0o777)
        full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
        # File mode has a channel only when asked for (VT_CTL_SIGNAL's default is auto).
        self.given = {'VT_PFORM_GDIR': self.gdir, 'VT_CTL_SIGNAL': 'SIGUSR2'}
        self.given.update(env or {})
        full.update(self.given)
        self.cmd = [exe] + list(args)
        self.proc = subprocess.Popen(list(prefix) + self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=self.cwd, env=full,
                                     universal_newlines=True)
        self.pid = self.proc.pid
        self.lines = [self.proc.stdout.readline().strip()]

    def go(self):
        self.proc.stdin.write('\n')
        self.proc.stdin.flush()
        self.lines.append(self.proc.stdout.readline().strip())
        return self.lines[-1]

    def end(self):
        # Not communicate(): lines readline() buffered would be lost. stderr stays small.
        self.proc.stdin.close()
        out = self.proc.stdout.read()
        err = self.proc.stderr.read()
        self.proc.wait(timeout=120)
        self.lines += out.splitlines()
        run = vttest.Run(self.cmd, self.given, self.cwd, self.gdir, self.proc, out, err)
        print('run: %s -> status %d' % (run.describe(), run.status))
        for line in err.splitlines()[:20]:
            print('  stderr: %s' % line)
        return run


def off_on(t, exe):
    what = 'off before B, on after B'
    live = Live(t, exe, label='offon')
    t.eq(live.lines, ['ready'], '%s: the program waits before A' % what)
    t.eq(live.go(), 'A done', '%s: A ran' % what)
    rc, out, err = vtctl(t, 'off', str(live.pid))
    t.eq((rc, out, err), (0, 'recording off (1 thread)\n', ''),
         '%s: vt-ctl off answers "recording off (1 thread)", status 0' % what)
    t.eq(live.go(), 'B done', '%s: B ran' % what)
    rc, out, err = vtctl(t, 'status', str(live.pid))
    t.check(rc == 0 and out.startswith('recording off; 1 thread; trace ')
            and out.rstrip().endswith('.otf2'), '%s: vt-ctl status says recording off' % what,
            repr((rc, out, err)))
    rc, out, err = vtctl(t, 'on', str(live.pid))
    t.eq((rc, out, err), (0, 'recording on (1 thread)\n', ''),
         '%s: vt-ctl on answers "recording on (1 thread)", status 0' % what)
    live.go()
    run = live.end()
    t.eq((run.status, live.lines), (0, ['ready', 'A done', 'B done', 'C done 179300']),
         '%s: the program ran its phases and ended as usual' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    master = tr.loc('Master thread')
    # wait_go's second call was entered before off (its Leave, during off, is lost and the
    # third call's Leave closes it); B's calls and the third Enter fall in the gap.
    t.enter_counts(master, {'main': 1, 'wait_go': 2, 'phase_a': 100, 'phase_c': 300}, what)
    t.eq([mode for _, mode in master.onoff], ['OFF', 'ON'],
         '%s: MeasurementOnOff OFF then ON on the master thread' % what)
    seq = master.kinds_seq
    off_at, on_at = [i for i, _ in master.onoff]
    enters_between = seq[off_at:on_at].count('Enter') + seq[off_at:on_at].count('Leave')
    t.eq(enters_between, 0, '%s: no Enter or Leave between OFF and ON' % what)
    t.eq(sum(1 for l in tr.locations for _ in l.onoff), 2, '%s: 2 MeasurementOnOff in all' % what)
    reg = '/tmp/vt-%d/%d.reg' % (os.geteuid(), run.pid)
    t.check(not os.path.exists(reg), '%s: registration %s removed at the end' % (what, reg))


def in_syscall(pid, tid, nr, fd):
    """Whether thread tid of pid waits in system call nr on descriptor fd (/proc's syscall:
    the number, then the arguments)."""
    try:
        with open('/proc/%d/task/%d/syscall' % (pid, tid)) as f:
            words = f.read().split()
    except OSError:
        return False
    return len(words) > 1 and words[0] == str(nr) and int(words[1], 16) == fd


def io_blocked(t, exe):
    """VT_IOTRACE=yes: vt-ctl off while the main thread waits in read() on stdin and another
    in read() on a pipe; each read's IoOperationComplete and Leave come before its thread's
    OFF, with the bytes read (1 and 3)."""
    what = 'off across a blocked read'
    live = Live(t, exe, env={'VT_IOTRACE': 'yes'}, label='ioblock')
    ready = live.lines[0].split()
    t.eq(ready[:1], ['ready'], '%s: the program starts its reader' % what)
    reader, pipe = int(ready[1]), int(ready[2])
    # Both threads inside read() (0 on x86-64) before off: a state, polled, not timed.
    for _ in range(6000):
        if in_syscall(live.pid, live.pid, 0, 0) and in_syscall(live.pid, reader, 0, pipe):
            break
        subprocess.run(['sleep', '0.01'])
    t.check(in_syscall(live.pid, live.pid, 0, 0) and in_syscall(live.pid, reader, 0, pipe),
            '%s: both threads wait in read()' % what)
    rc, out, err = vtctl(t, 'off', str(live.pid))
    t.eq((rc, out, err), (0, 'recording off (2 threads)\n', ''),
         '%s: vt-ctl off answers for both threads' % what)
    t.eq(live.go(), 'read 3', '%s: the reader read the 3 bytes written' % what)
    rc, out, err = vtctl(t, 'on', str(live.pid))
    t.eq((rc, out, err), (0, 'recording on (1 thread)\n', ''),
         '%s: vt-ctl on answers for the main thread' % what)
    live.go()
    run = live.end()
    t.eq((run.status, live.lines[-1]), (0, 'done'), '%s: the program ends as usual' % what)
    t.clean_run(run, what)
    t.trace(run, what)  # balanced, time-ordered, python3-otf2 and otf2-print agree
    problems = []
    per = {}
    for m in vttest.otf2_print_events(run.anchor(), problems):
        kind, loc, time, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4) or ''
        if kind.startswith('IO_OPERATION') or kind == 'MEASUREMENT_ON_OFF':
            per.setdefault(loc, []).append((kind, time, rest))
    t.eq(problems, [], '%s: otf2-print reads the trace' % what)
    # The POSIX reads (the pipes' handles; stdio's writes to stdout left out) and on/off.
    seqs = {}
    for loc, evs in per.items():
        seq = []
        for kind, time, rest in evs:
            if kind == 'MEASUREMENT_ON_OFF':
                seq.append(rest.split('Mode: ')[-1].strip())
                continue
            m = re.match(r'Handle: "(pipe:[^"]*)" <\d+>, .*Bytes (?:Request|Result): (\d+), '
                         r'Matching Id: (\d+)$', rest)
            if m:
                seq.append((kind, int(m.group(2)), m.group(1), int(m.group(3))))
        seqs[loc] = seq
        times = [time for _, time, _ in evs]
        t.eq(times, sorted(times), '%s: location %d: in time order' % (what, loc))
    print('pipe reads and on/off per location: %r' % seqs)
    # The main thread: its stdin read (16 bytes asked, 1 read) ends before OFF; the second
    # began during off (no Begin) and its end, after ON, is not written either. The reader:
    # its pipe read (16 asked, 3 read), then OFF; it ends during off. Each Begin and its
    # Complete: one handle, one matching id.
    shapes = sorted(([x[:2] if isinstance(x, tuple) else x for x in seq]
                     for seq in seqs.values()), key=len, reverse=True)
    t.eq(shapes, [[('IO_OPERATION_BEGIN', 16), ('IO_OPERATION_COMPLETE', 1), 'OFF', 'ON'],
                  [('IO_OPERATION_BEGIN', 16), ('IO_OPERATION_COMPLETE', 3), 'OFF']],
         '%s: each read\'s Begin and Complete before its thread\'s OFF' % what)
    for loc, seq in seqs.items():
        ops = [x[2:] for x in seq if isinstance(x, tuple)]
        t.check(len(ops) == 2 and ops[0] == ops[1], '%s: location %d: Begin and Complete of '
                'one handle and matching id' % (what, loc), repr(ops))


def snapshot(t, exe):
    what = 'snapshot in file mode'
    live = Live(t, exe, label='snapshot')
    rc, out, err = vtctl(t, 'snapshot', str(live.pid))
    t.eq((rc, out, err), (1, '', 'vt-ctl: snapshot of %d refused: %s\n' % (live.pid, REFUSED)),
         '%s: vt-ctl says the exact refusal, status 1' % what)
    for want in ('A done', 'B done'):
        t.eq(live.go(), want, '%s: the program goes on (%s)' % (what, want))
    live.go()
    run = live.end()
    t.eq(run.status, 0, '%s: the program ends with status 0' % what)
    t.check(('snapshot of %d refused: %s' % (run.pid, REFUSED)) in run.messages,
            '%s: the runtime logs the refusal in one line' % what, repr(run.messages))
    tr = t.trace(run, what)
    t.enter_counts(tr.loc('Master thread'), ALL, what)
    t.no_onoff(tr, what)


def ring_snapshot(t, exe):
    """VT_MODE=ring: vt-ctl snapshot between B and C; the snapshot holds A's and B's calls
    and none of C's (the ring holds the whole run), the run's own trace all of them."""
    what = 'snapshot in ring mode'
    live = Live(t, exe, env={'VT_MODE': 'ring', 'VT_CTL_SIGNAL': 'auto'}, label='ringsnap')
    for want in ('A done', 'B done'):
        t.eq(live.go(), want, '%s: %s' % (what, want))
    rc, out, err = vtctl(t, 'snapshot', str(live.pid))
    t.eq((rc, out, err), (0, "snapshot taken; a process of vt's writes it beside the trace\n",
                          ''), '%s: vt-ctl says the snapshot is taken, status 0' % what)
    live.go()
    # end() reads stderr to its end: the snapshot's writing process holds it until done.
    run = live.end()
    t.eq((run.status, live.lines[-1].startswith('C done')), (0, True),
         '%s: the program ends as without vt' % what)
    snap_prefix = run.prefix + '.snap-1'
    t.eq(sorted(p for p, _, _ in run.written), sorted([run.anchor(), run.anchor(snap_prefix)]),
         '%s: two "trace written" lines: the snapshot and the run' % what)
    t.enter_counts(t.trace(run, what, notice=False).loc('Master thread'), ALL, what)
    snap = t.trace(run, what + ': the snapshot', prefix=snap_prefix, notice=False)
    t.enter_counts(snap.loc('Master thread'),
                   {'main': 1, 'wait_go': 3, 'phase_a': 100, 'phase_b': 200},
                   what + ': the snapshot')
    props = vttest.otf2_properties(run.anchor(snap_prefix))
    t.eq(props.get('VT::SNAPSHOT'), 'vt-ctl', '%s: its property VT::SNAPSHOT' % what)


def listing_and_errors(t, exe):
    what = 'list and errors'
    live = Live(t, exe, label='list')
    rc, out, err = vtctl(t, 'list')
    mine = [l.split() for l in out.splitlines()[1:] if l.split()[:1] == [str(live.pid)]]
    t.eq((rc, out.splitlines()[0].split()), (0, ['PID', 'RANK', 'JOB', 'PROGRAM', 'TRACE']),
         '%s: vt-ctl list prints its header, status 0' % what)
    t.eq(mine, [[str(live.pid), '-', '-', 'ctl_phases',
                 os.path.join(live.gdir, 'ctl_phases.vt.otf2')]],
         '%s: vt-ctl list shows the program: pid, no rank, no job, name, trace' % what)
    rc, out, err = vtctl(t, 'resume', str(live.pid))
    t.eq((rc, err), (2, "vt-ctl: unknown command 'resume'; expected list, status, off, on or "
                        "snapshot (vt-ctl --help)\n"), '%s: a bad command, status 2' % what)
    rc, out, err = vtctl(t, 'off', '12x')
    t.eq((rc, err), (2, "vt-ctl: off: '12x' is not a process id (a positive integer) "
                        "(vt-ctl --help)\n"), '%s: a bad pid, status 2' % what)
    rc, out, err = vtctl(t, 'off', str(os.getpid()))
    t.eq((rc, err.split(' (')[0]), (3, 'vt-ctl: process %d is not traced by vt' % os.getpid()),
         '%s: a process that is not traced, status 3' % what)
    rc, out, err = vtctl(t, 'on', '--job', '999999999')
    t.eq((rc, err.split(' (')[0]), (3, 'vt-ctl: no traced process of job 999999999'),
         '%s: a job without traced processes, status 3' % what)
    rc, out, err = vtctl(t, '--help')
    t.check(rc == 0 and out.startswith('usage: vt-ctl'), '%s: --help, status 0' % what)
    for _ in range(3):
        live.go()
    run = live.end()
    t.eq(run.status, 0, '%s: the program ends with status 0' % what)
    rc, out, err = vtctl(t, 'status', str(run.pid))
    t.eq((rc, err), (3, 'vt-ctl: no process %d\n' % run.pid), '%s: a dead process, status 3'
         % what)
    # The program sets its own SIGUSR2 handler (after vt's start): the channel ends, and
    # vt-ctl never signals the program's handler.
    live = Live(t, exe, args=['usr2'], env={'VT_VERBOSE': '2'}, label='usr2')
    rc, out, err = vtctl(t, 'off', str(live.pid))
    t.eq((rc, err.split(' (')[0]), (3, 'vt-ctl: process %d is not traced by vt' % live.pid),
         'a program with its own SIGUSR2 handler: vt-ctl finds no channel, status 3')
    for _ in range(3):
        live.go()
    run = live.end()
    t.eq((run.status, live.lines[-1]), (0, 'usr2 0'),
         'a program with its own SIGUSR2 handler: its handler never ran')
    t.check('control channel off: the program sets its own disposition of signal %d'
            % signal.SIGUSR2 in run.messages, 'a program with its own SIGUSR2 handler: '
            'the channel ends with one line (VT_VERBOSE=2)', repr(run.messages))
    t.enter_counts(t.trace(run, 'own SIGUSR2 handler').loc('Master thread'), ALL,
                   'own SIGUSR2 handler')
    # A fatal signal writes a partial trace, and the registration goes with it.
    live = Live(t, exe, label='sigterm')
    reg = '/tmp/vt-%d/%d.reg' % (os.geteuid(), live.pid)
    t.check(os.path.exists(reg), 'SIGTERM: registered while it runs (%s)' % reg)
    rc, out, err = vtctl(t, 'off', str(live.pid))
    t.eq(rc, 0, 'SIGTERM: off before the signal')
    live.proc.send_signal(signal.SIGTERM)
    run = live.end()
    t.eq(run.status, -signal.SIGTERM, 'SIGTERM: the program ends by the signal')
    t.eq(len(run.written), 1, 'SIGTERM: the trace is written')
    t.check(not os.path.exists(reg), 'SIGTERM: the registration is removed')
    tr = t.trace(run, 'SIGTERM while off')
    t.eq([m for _, m in tr.loc('Master thread').onoff], ['OFF'],
         'SIGTERM while off: the partial trace is balanced and ends in the gap')
    rc, out, err = vtctl(t, 'status', str(run.pid))
    t.eq(rc, 3, 'SIGTERM: vt-ctl finds no process afterwards')
    # The default, auto, in file mode (and no thread of its own), and none: no channel, and
    # the trace as usual.
    for value, where in (('auto', ' in file mode'), ('none', '')):
        what = 'VT_CTL_SIGNAL=%s' % value
        live = Live(t, exe, env={'VT_CTL_SIGNAL': value}, label=value)
        rc, out, err = vtctl(t, 'status', str(live.pid))
        t.eq((rc, err.split(' (')[0]), (3, 'vt-ctl: process %d is not traced by vt' % live.pid),
             '%s%s: vt-ctl finds no channel, status 3' % (what, where))
        if value == 'auto':
            t.eq(len(os.listdir('/proc/%d/task' % live.pid)), 1,
                 '%s%s: the program has one thread' % (what, where))
        for _ in range(3):
            live.go()
        run = live.end()
        t.clean_run(run, what)
        t.enter_counts(t.trace(run, what).loc('Master thread'), ALL, what)


def threads(t, exe):
    """Off reaches every thread: two blocked in a barrier, the master reading stdin, one
    calling a function all the while; a thread started while off starts paused."""
    what = 'threads'
    live = Live(t, exe, label='threads')
    t.eq(live.lines, ['A done'], '%s: A ran' % what)
    rc, out, err = vtctl(t, 'off', str(live.pid))
    t.eq((rc, out, err), (0, 'recording off (4 threads)\n', ''),
         '%s: vt-ctl off: the master, 2 workers and the spinner follow' % what)
    t.eq(live.go(), 'B done', '%s: B ran, with a thread started and joined' % what)
    rc, out, err = vtctl(t, 'on', str(live.pid))
    t.eq((rc, out, err), (0, 'recording on (4 threads)\n', ''),
         '%s: vt-ctl on: the 4 threads alive follow' % what)
    live.go()
    run = live.end()
    t.eq((run.status, live.lines[-1]), (0, 'C done'), '%s: the program ends as usual' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    t.eq(len(tr.locations), 5, '%s: 5 locations (master, 2 workers, spinner, late)' % what)
    roles = {'main': [], 'worker': [], 'spinner': [], 'late': []}
    for loc in tr.locations:
        role = [r for r in ('main', 'worker', 'spinner') if loc.enters[r]] or ['late']
        roles[role[0]].append(loc)
    t.eq({r: len(l) for r, l in roles.items()}, {'main': 1, 'worker': 2, 'spinner': 1, 'late': 1},
         '%s: the locations by the function they start in' % what)
    for loc in roles['main'] + roles['worker']:
        t.enter_counts(loc, {'phase_a': 100, 'phase_b': 0, 'phase_c': 300}, what, only=False)
    for loc in roles['main'] + roles['worker'] + roles['spinner']:
        t.eq([m for _, m in loc.onoff], ['OFF', 'ON'], '%s: %s: OFF then ON' % (what, loc.name))
        if len(loc.onoff) == 2:
            (a, _), (b, _) = loc.onoff
            between = [k for k in loc.kinds_seq[a + 1:b] if k in ('Enter', 'Leave')]
            t.eq(between, [], '%s: %s: no Enter or Leave in the gap' % (what, loc.name))
    for loc in roles['late']:
        t.eq(([m for _, m in loc.onoff], loc.enters['phase_b']), (['OFF'], 0),
             '%s: the thread started while off: paused from its start, no phase_b' % what)


NOBODY = 65534
AS_NOBODY = ['setpriv', '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY, '--clear-groups']


def unsafe_dir(t, exe):
    """The control directory of user nobody, made unsafe beforehand: the program says so in
    one error line and runs on, traced, without a channel; made by the program itself, it
    is nobody's alone, and only nobody's vt-ctl finds the program there."""
    if os.geteuid() != 0:
        t.note('not root: the control directory cases run the program as another user')
        return
    d = '/tmp/vt-%d' % NOBODY
    if os.path.lexists(d):
        t.note('%s exists: the unsafe-directory cases are left out' % d)
        return
    cases = [('a directory of root', 0, 0o700, None, '(owner 0, mode 700)'),
             ('a directory others can read', NOBODY, 0o755, None, '(owner %d, mode 755)' % NOBODY),
             ('a symbolic link', 0, 0, '/tmp', '(owner 0, mode 777)')]
    try:
        for what, owner, mode, link, said in cases:
            if link:
                os.symlink(link, d)
            else:
                os.mkdir(d)
                os.chown(d, owner, owner)
                os.chmod(d, mode)
            live = Live(t, exe, label='unsafe', prefix=AS_NOBODY)
            for _ in range(3):
                live.go()
            run = live.end()
            t.eq(run.errors, ['error: control channel off: %s is not a directory of user %d '
                              'with mode 0700 %s; vt-ctl cannot reach this process'
                              % (d, NOBODY, said)],
                 '%s as the control directory: one error line naming it' % what)
            t.check(not os.path.lexists(os.path.join(link or d, '%d.reg' % run.pid)),
                    '%s: no registration written there' % what)
            t.enter_counts(t.trace(run, what).loc('Master thread'), ALL, what)
            os.unlink(d) if link else os.rmdir(d)
        # Made by the program: 0700, nobody's; root's vt-ctl looks in its own directory.
        live = Live(t, exe, label='nobody', prefix=AS_NOBODY)
        st = os.lstat(d)
        t.eq((st.st_uid, oct(st.st_mode & 0o7777)), (NOBODY, '0o700'),
             'made by a program of user nobody: %s is nobody\'s, mode 0700' % d)
        reg = os.stat(os.path.join(d, '%d.reg' % live.pid))
        t.eq((reg.st_uid, oct(reg.st_mode & 0o777)), (NOBODY, '0o600'),
             'the registration is nobody\'s, mode 0600')
        rc, out, err = vtctl(t, 'status', str(live.pid))
        t.eq(rc, 3, 'root\'s vt-ctl does not find a process of nobody in /tmp/vt-0')
        p = subprocess.run(AS_NOBODY + [VT_CTL, 'off', str(live.pid)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        t.eq((p.returncode, p.stdout), (0, 'recording off (1 thread)\n'),
             'nobody\'s vt-ctl switches nobody\'s program off')
        for _ in range(3):
            live.go()
        run = live.end()
        t.clean_run(run, 'as nobody')
        t.eq(run.status, 0, 'as nobody: the program ends with status 0')
        t.check(not os.path.exists(os.path.join(d, '%d.reg' % run.pid)),
                'as nobody: the registration is removed at the end')
    finally:
        if os.path.islink(d):
            os.unlink(d)
        elif os.path.isdir(d):
            shutil.rmtree(d)


def body(t):
    exe = t.compile('ctl_phases', ['ctl_phases.c'], compiler='gcc', opt='-O0')
    off_on(t, exe)
    threads(t, t.compile('ctl_threads', ['ctl_threads.c'], compiler='gcc', opt='-O0',
                         flags=['-pthread']))
    snapshot(t, exe)
    io_blocked(t, t.compile('ctl_ioblock', ['ctl_ioblock.c'], compiler='gcc', opt='-O0',
                            flags=['-pthread']))
    ring_snapshot(t, exe)
    listing_and_errors(t, exe)
    unsafe_dir(t, exe)


vttest.main('ctl', body)
