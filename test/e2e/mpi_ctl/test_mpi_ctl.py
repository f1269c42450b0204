# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mpi_ctl": vt-ctl off --job and on --job reach every rank of a 2-rank job (Open MPI,
MPICH) named by its mpirun's pid: both ranks' traces have A's and C's calls, none of B's, and
MeasurementOnOff OFF then ON. In ring mode, vt-ctl snapshot --job between B and C writes
one snapshot of the job, NAME.snap-1, unified: both ranks' locations, A's and B's calls and
none of C's, both windows ending at one time, the property VT::SNAPSHOT 'vt-ctl'; the run's
own trace has every call. The ranks wait for files the test makes, so vt-ctl acts between
phases and no timing is involved."""

import os
import re
import signal
import subprocess
import time

import vtmpi
import vttest
from vtmpi import MPICH, OPENMPI

VT_CTL = os.path.join(os.path.dirname(vttest.VTCC), 'vt-ctl')
ANSWER = re.compile(r'^(\d+) \(rank ([01])\): recording (off|on) \((\d+) threads?\)$')


def vtctl(*args):
    p = subprocess.run([VT_CTL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    print('vt-ctl %s -> %d: %r %r' % (' '.join(args), p.returncode, p.stdout, p.stderr))
    return p.returncode, p.stdout, p.stderr


def read_until(proc, prefix, n, seen):
    """Reads the ranks' lines until n start with prefix."""
    while sum(1 for l in seen if l.startswith(prefix)) < n:
        line = proc.stdout.readline()
        if not line:
            raise vttest.Failure('the job ended early; lines %r' % seen)
        seen.append(line.strip())


def answers(t, rc, out, err, word, what):
    got = [ANSWER.match(l) for l in out.splitlines()]
    t.check(rc == 0 and err == '' and len(got) == 2 and all(got)
            and sorted(m.group(2) for m in got) == ['0', '1']
            and all(m.group(3) == word for m in got),
            '%s: vt-ctl %s --job answers for ranks 0 and 1, status 0' % (what, word),
            repr((rc, out, err)))
    return sorted(int(m.group(1)) for m in got if m)


def job(t, impl, ring=False):
    vtmpi.require_runtime(impl)
    exe = vtmpi.compile(t, impl, 'ctl_mpi', ['ctl_mpi.c'], opt='-O0')
    what = '%s np 2%s' % (impl, ', VT_MODE=ring' if ring else '')
    base = t.newdir('ring' if ring else 'job')
    cwd, gdir, godir = (os.path.join(base, d) for d in ('cwd', 'trace', 'go'))
    for d in (cwd, gdir, godir):
        os.makedirs(d)
    given = {'VT_PFORM_GDIR': gdir}
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    # File mode: a channel only when asked for; ring mode has one.
    given.update({'VT_MODE': 'ring'} if ring else {'VT_CTL_SIGNAL': 'SIGUSR2'})
    env.update(given)
    cmd = list(impl.launcher) + ['-np', '2']
    for k in sorted(given) if impl.export_env else ():
        cmd += ['-x', k]
    cmd += [exe, godir]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env=env, universal_newlines=True, start_new_session=True)
    seen = []
    try:
        read_until(proc, 'A done', 2, seen)
        rc, out, err = vtctl('list')
        rows = [l.split() for l in out.splitlines()[1:]]
        mine = sorted(tuple(r[1:]) for r in rows if r[2] == str(proc.pid))
        arch = os.path.join(gdir, 'ctl_mpi.vt.otf2')
        t.eq(mine, [(r, str(proc.pid), 'ctl_mpi', arch) for r in ('0', '1')],
             '%s: vt-ctl list shows both ranks, their job (mpirun\'s pid) and the archive '
             'MPI_Init named' % what)
        if ring:
            snapshot(t, proc, godir, gdir, seen, what)
        else:
            rc, out, err = vtctl('off', '--job', str(proc.pid))
            pids = answers(t, rc, out, err, 'off', what)
            open(os.path.join(godir, 'go1'), 'w').close()
            read_until(proc, 'B done', 2, seen)
            rc, out, err = vtctl('on', '--job', str(proc.pid))
            t.eq(answers(t, rc, out, err, 'on', what), pids,
                 '%s: the same two processes answer on' % what)
        open(os.path.join(godir, 'go2'), 'w').close()
        out, err = proc.communicate(timeout=120)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    run = vtmpi.MpiRun(impl, 2, exe, cmd, given, cwd, gdir, proc, out, err)
    print('run: %s -> status %d' % (run.describe(), run.status))
    for line in err.splitlines()[:20]:
        print('  stderr: %s' % line)
    t.eq(run.status, 0, '%s: the job ends with status 0' % what)
    vtmpi.clean_run(t, run, what)
    if ring:
        ring_traces(t, run, what)
        return
    tr, mt = vtmpi.trace(t, run, what)
    for r in range(2):
        w = '%s: rank %d' % (what, r)
        ref = mt.loc_of_rank(r).ref
        loc = [l for l in tr.locations if l.ref == ref][0]
        # wait_file's first call was entered before off (its Leave, in the gap, is lost; the
        # second call's Leave closes it); B and that second Enter fall in the gap.
        t.enter_counts(loc, {'main': 1, 'wait_file': 1, 'phase_a': 100, 'phase_b': 0,
                             'phase_c': 300, 'MPI_Barrier': 1}, w, only=False)
        t.eq([m for _, m in loc.onoff], ['OFF', 'ON'], '%s: MeasurementOnOff OFF then ON' % w)


def snapshot(t, proc, godir, gdir, seen, what):
    """Between B and C: vt-ctl snapshot --job, then the job's snapshot written (its writing
    processes run on while the ranks wait)."""
    open(os.path.join(godir, 'go1'), 'w').close()
    read_until(proc, 'B done', 2, seen)
    rc, out, err = vtctl('snapshot', '--job', str(proc.pid))
    lines = out.splitlines()
    t.check(rc == 0 and err == '' and len(lines) == 2 and
            all(l.endswith("snapshot taken; a process of vt's writes it beside the trace")
                for l in lines),
            '%s: vt-ctl snapshot --job: both ranks took it, status 0' % what, repr((rc, out, err)))
    anchor = os.path.join(gdir, 'ctl_mpi.vt.snap-1.otf2')
    for _ in range(1200):  # the writing processes meet and write it
        if os.path.exists(anchor):
            break
        time.sleep(0.05)


def ring_traces(t, run, what):
    """Two "trace written" lines (the snapshot's and the run's): each trace read alone."""
    t.eq(sorted(os.path.basename(p) for p, _, _ in run.written),
         ['ctl_mpi.vt.otf2', 'ctl_mpi.vt.snap-1.otf2'],
         '%s: the run\'s trace and the job\'s snapshot written' % what)
    tr = t.trace(run, what, notice=False)
    mt = vtmpi.read_mpi(tr.path)
    for r in range(2):
        w = '%s: rank %d' % (what, r)
        loc = [l for l in tr.locations if l.ref == mt.loc_of_rank(r).ref][0]
        t.enter_counts(loc, {'main': 1, 'wait_file': 2, 'phase_a': 100, 'phase_b': 200,
                             'phase_c': 300, 'MPI_Barrier': 1}, w, only=False)
    w = what + ': the job\'s snapshot'
    st = t.trace(run, w, prefix=run.prefix + '.snap-1', notice=False)
    smt = vtmpi.read_mpi(st.path)
    t.eq(len(st.locations), 2, '%s: both ranks\' locations' % w)
    for r in range(2):
        loc = [l for l in st.locations if l.ref == smt.loc_of_rank(r).ref][0]
        t.enter_counts(loc, {'main': 1, 'wait_file': 2, 'phase_a': 100, 'phase_b': 200,
                             'phase_c': 0, 'MPI_Barrier': 1}, '%s: rank %d' % (w, r), only=False)
    ends = sorted(set(l.last_time for l in st.locations))
    t.check(len(ends) == 1, '%s: both windows end at the same time' % w, repr(ends))
    props = vttest.otf2_properties(run.anchor(run.prefix + '.snap-1'))
    t.eq(props.get('VT::SNAPSHOT'), 'vt-ctl', '%s: its property VT::SNAPSHOT' % w)


def body(t):
    for impl in (OPENMPI, MPICH):
        job(t, impl)
        job(t, impl, ring=True)


vttest.main('mpi_ctl', body)
