# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sde": PAPI software-defined events (sdelib.c, built with plain cc and libsde) recorded
through VT_METRICS: a registered counter, a registered counter of doubles ([double]), a
created counter, a group, a callback counter and a recorder ([recorder]: its count with
every event, its values on a METRIC location of the process). Exact values at each of the
program's events, read with python3-otf2 and otf2-print:
- sdeprog.c built with vtcc: every kind but the group (vt starts before the library's
  constructor registers its events, and PAPI never counts a group named before it was
  registered: vt says so in one line and records 0, never PAPI's placeholder, checked too);
- sdeuser.c built without vt, with user-API regions, run with libvt preloaded (vt starts
  after the library's constructor): every kind, the group included.
vt-info --metrics lists the events of the library and of the program that needs it, named as
VT_METRICS wants them; a bad tag gets its line and the run goes on; without vt the program
runs as it does with it."""

import os
import subprocess

import vtmetrics
import vttest

LIB = 'sde:::Sdelib::'
ALL = ('iterations', 'residual[double]', 'allocs', 'work_total', 'pending', 'sizes[recorder]')
SPEC = ':'.join(LIB + n for n in ALL)
SPEC_NO_GROUP = ':'.join(LIB + n for n in ALL if n != 'work_total')
STEPS = 5
LISTING = [
    'sde:::Sdelib::iterations long long, delta: steps taken',
    'sde:::Sdelib::residual[double] double, instant',
    'sde:::Sdelib::allocs long long, delta, created',
    'sde:::Sdelib::work_total group (sum) of iterations allocs',
    'sde:::Sdelib::pending long long, instant, callback',
    'sde:::Sdelib::sizes[recorder] recorder of 8-byte values; its count is sizes:CNT',
]


def values_after(done, group=True):
    """The counters' values once `done` steps have run (what each event reads)."""
    v = {LIB + 'iterations': done, LIB + 'residual': 1.0 / (done + 1),
         LIB + 'allocs': 2 * done, LIB + 'work_total': 3 * done,
         LIB + 'pending': 10 * (done - 1) if done else 0, LIB + 'sizes:CNT': done}
    if not group:
        del v[LIB + 'work_total']
    return v


def check_values(t, run, want, what):
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    t.eq(mv.member(LIB + 'residual').value_type, 'DOUBLE', '%s: [double] is a double' % what)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq(len(seq), len(want), '%s: every Enter and Leave' % what)
    for k, (got, exp) in enumerate(zip(seq, want)):
        t.eq(got, exp, '%s: event %d: each SDE\'s value, exactly' % (what, k))
    recs = mv.locs_of_type('METRIC')
    t.eq([l.name for l in recs], [LIB + 'sizes@Master thread'],
         '%s: the recorder\'s values have a METRIC location of the process' % what)
    if recs:
        got = [e.values[0] for e in mv.metric_events(recs[0].ref)]
        t.eq(got, [100 + i for i in range(STEPS)],
             '%s: every value the recorder recorded, in order' % what)


def listing(t, exe_or_lib, what):
    p = subprocess.run([vttest.VT_INFO, '--metrics', exe_or_lib], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: vt-info --metrics runs cleanly' % what)
    lines = p.stdout.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith('PAPI software-defined events of')]
    got = [' '.join(l.split()) for l in lines[head[0] + 1:]] if head else []
    t.eq(got, LISTING, '%s: vt-info lists every SDE, with the tags VT_METRICS needs' % what)


def body(t):
    libdir = t.newdir('lib')
    lib = os.path.join(libdir, 'libsdelib.so')
    cmd = ['cc', '-O1', '-shared', '-fPIC', t.source('sdelib.c'), '-o', lib, '-lsde']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise vttest.Failure('library build failed: %s\n%s' % (' '.join(cmd), p.stdout))
    link = ['-L' + libdir, '-lsdelib', '-Wl,-rpath,' + libdir]
    exe = t.compile('sdeprog', ['sdeprog.c'], opt='-O1', flags=link)
    plain = t.compile('sdeprog', ['sdeprog.c'], opt='-O1', flags=link, instrument=False)
    listing(t, lib, 'the library')
    listing(t, exe, 'the program')

    p = t.run(plain, label='plain')
    t.eq((p.status, p.stdout), (0, 'done\n'), 'without vt')
    run = t.run(exe, env={'VT_METRICS': SPEC_NO_GROUP}, label='sde')
    t.same_as_plain(run, p, 'vtcc')
    t.clean_run(run, 'vtcc')
    want = [values_after(0, False)]
    for i in range(STEPS):
        want += [values_after(i, False), values_after(i + 1, False)]
    want.append(values_after(STEPS, False))
    check_values(t, run, want, 'vtcc')

    group = t.run(exe, env={'VT_METRICS': LIB + 'work_total'}, label='late-group')
    t.eq(group.warnings, ["warning: VT_METRICS: PAPI read 'sde:::Sdelib::work_total' as not "
                          "registered at every event of a thread (recorded as 0): no library "
                          "registered it, or it is a group its library registered after vt "
                          "started, which PAPI does not count"],
         'a group registered after vt started: one line')
    t.eq((group.status, group.stdout), (0, 'done\n'), 'a late group: the run goes on')
    # PAPI's placeholder (all bits set) is no value: 0 at every event, not 2^64 - 1.
    mv = vtmetrics.read_metrics(t.trace(group, 'a late group').path)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq(sorted(set(v for e in seq for v in e.values())), [0],
         'a late group: %d events record 0, never the placeholder' % len(seq))

    inc = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include'), '-DVT_USER']
    user = t.compile('sdeuser', ['sdeuser.c'], opt='-O1', flags=inc + link, instrument=False)
    libvt = os.path.join(vttest.BUILD_ROOT, 'runtime', 'libvt.so')
    run = t.run(user, env={'VT_METRICS': SPEC, 'LD_PRELOAD': libvt}, label='preload')
    t.eq((run.status, run.stdout), (0, 'done\n'), 'preloaded: runs')
    t.clean_run(run, 'preloaded')
    want = []
    for i in range(STEPS):
        want += [values_after(i), values_after(i + 1)]
    check_values(t, run, want, 'preloaded')

    bad = t.run(exe, env={'VT_METRICS': LIB + 'iterations[float]:' + LIB + 'allocs'},
                label='bad-tag')
    t.eq(bad.errors, ["error: VT_METRICS: event 'sde:::Sdelib::iterations[float]': tags are for "
                      "SDEs (sde:::LIB::NAME) and are [double], [recorder] or "
                      "[recorder,double]; it is left out"], 'a bad tag: one line')
    t.eq((bad.status, bad.stdout), (0, 'done\n'), 'a bad tag: the run goes on')
    tr = t.trace(bad, 'bad tag')
    mv = vtmetrics.read_metrics(tr.path)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq([sorted(v) for v in seq[:1]], [[LIB + 'allocs']], 'a bad tag: the good event stays')


vttest.main('sde', body)
