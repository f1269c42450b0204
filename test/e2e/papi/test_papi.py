# SPDX-License-Identifier: BSD-3-Clause
"""e2e "papi": PAPI events as counters (VT_METRICS), the metric source of
runtime/src/metrics/vt_metric_papi.c, with PAPI's perf_event software events (this machine
has no hardware counters). The program is test/e2e/rusage/rusage.c: two threads that each
fault in 20 fresh mappings of 1 MiB.
- perf::PAGE-FAULTS and perf::TASK-CLOCK: both values at every Enter and Leave of each thread,
  never decreasing, each thread's page faults grown by at least the pages it touched;
- an event this machine cannot count (PAPI_TOT_CYC) and one PAPI does not know: one line each
  naming it, the others recorded, the program as without vt;
- vt-info --metrics lists the PAPI events that can be counted here and the getrusage fields:
  every event it lists is recorded when VT_METRICS names it, with no error.
PAPI counts perf_event's software events only where libpfm4 finds a CPU PMU; on a virtual
machine without one PAPI disables its perf_event component and can count nothing per thread.
There vt-info lists no PAPI event, and the test checks what still holds: each of the events
gets its one line, the run goes on as without vt, and the trace has no PAPI counter."""

import os
import subprocess

import vtmetrics
import vttest

ROUNDS, PAGES = 20, (1 << 20) // 4096
THREADS = ['Master thread', 'Thread 1']
EVENTS = ['perf::PAGE-FAULTS', 'perf::TASK-CLOCK']


def build(t):
    """test/e2e/rusage/rusage.c with and without vt: (exe, plain exe)."""
    src = os.path.join(os.path.dirname(t.source('test_papi.py')), '..', 'rusage', 'rusage.c')
    return t.parallel(lambda inst: t.compile('rusage', [src], opt='-O1', flags=['-pthread'],
                                             instrument=inst), [True, False])


def body(t):
    exe, plain_exe = build(t)
    plain = t.run(plain_exe, label='plain')

    what = 'two software events'
    run = t.run(exe, env={'VT_METRICS': ':'.join(EVENTS)}, label='two')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    t.eq(sorted(m.name for m in mv.members.values()), EVENTS, '%s: both defined' % what)
    for name in THREADS:
        w = '%s: %s' % (what, name)
        seq = vtmetrics.values_per_event(mv, mv.loc(name).ref)
        # main's pthread_create and pthread_join are regions too (VT_PTHREAD, by default).
        want = 2 * (ROUNDS + 1) + (6 if name == 'Master thread' else 0)
        t.eq(len(seq), want, '%s: every Enter and Leave recorded' % w)
        t.eq([sorted(v) for v in seq if sorted(v) != EVENTS], [],
             '%s: each carries both values' % w)
        for e in EVENTS:
            got = [v.get(e, 0) for v in seq]
            t.eq([i for i in range(1, len(got)) if got[i] < got[i - 1]], [],
                 '%s: %s never decreases' % (w, e))
        grew = seq[-1].get(EVENTS[0], 0) - seq[0].get(EVENTS[0], 0)
        t.check(grew >= ROUNDS * PAGES, '%s: page faults grew by at least the %d pages touched'
                % (w, ROUNDS * PAGES), 'grew by %d' % grew)

    what = 'events that cannot be counted'
    run = t.run(exe, env={'VT_METRICS': 'PAPI_TOT_CYC:perf::PAGE-FAULTS:no_such_event'},
                label='bad')
    t.same_as_plain(run, plain, what)
    for ev in ('PAPI_TOT_CYC', 'no_such_event'):
        lines = [m for m in run.errors if "VT_METRICS: event '%s' cannot be counted here" % ev
                 in m and m.endswith('; it is left out')]
        t.eq(len(lines), 1, '%s: one line names %s' % (what, ev))
    t.eq(len(run.errors), 2, '%s: no other error' % what)
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    t.eq(sorted(m.name for m in mv.members.values()), ['perf::PAGE-FAULTS'],
         '%s: the countable event is recorded' % what)


def listed(t):
    """(PAPI events, rusage fields) that vt-info --metrics lists."""
    p = subprocess.run([vttest.VT_INFO, '--metrics'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq(p.returncode, 0, 'vt-info --metrics: exit status 0')
    papi, rusage, part = [], [], None
    for line in p.stdout.splitlines():
        if line.startswith('PAPI events'):
            part = papi
        elif line.startswith('getrusage fields'):
            part = rusage
        elif line.startswith('  ') and part is not None and line.strip() != '(none)':
            part.append(line.split()[0])
    return papi, rusage


def check_listing(t, exe, plain):
    papi, rusage = listed(t)
    t.eq(rusage, ['utime', 'stime', 'maxrss', 'minflt', 'majflt', 'inblock', 'oublock',
                  'nvcsw', 'nivcsw'], 'vt-info --metrics: the getrusage fields')
    t.check(set(EVENTS) <= set(papi), 'vt-info --metrics: lists %s' % ', '.join(EVENTS),
            repr(papi[:20]))
    t.check('PAPI_TOT_CYC' not in papi, 'vt-info --metrics: not an event it cannot count')
    some = papi[:8]
    what = 'the events vt-info lists'
    run = t.run(exe, env={'VT_METRICS': ':'.join(some)}, label='listed')
    t.same_as_plain(run, plain, what)
    t.clean_run(run, what)
    mv = vtmetrics.read_metrics(t.trace(run, what).path)
    t.eq(sorted(m.name for m in mv.members.values()), sorted(some),
         '%s: every one is recorded' % what)


def no_perf_events(t):
    """PAPI's perf_event component is disabled here: every event gets its line."""
    papi, _ = listed(t)
    t.eq([e for e in papi if e.startswith('perf::')], [],
         'no PMU: vt-info lists no perf:: event either')
    exe, plain_exe = build(t)
    plain = t.run(plain_exe, label='plain')
    what = 'no PMU: events that cannot be counted'
    names = ['PAPI_TOT_CYC', 'perf::PAGE-FAULTS', 'no_such_event']
    run = t.run(exe, env={'VT_METRICS': ':'.join(names)}, label='no-pmu')
    t.same_as_plain(run, plain, what)
    for ev in names:
        lines = [m for m in run.errors if "VT_METRICS: event '%s' cannot be counted here" % ev
                 in m and m.endswith('; it is left out')]
        t.eq(len(lines), 1, '%s: one line names %s' % (what, ev))
    t.eq(len(run.errors), 3, '%s: no other error' % what)
    mv = vtmetrics.read_metrics(t.trace(run, what).path)
    t.eq(sorted(m.name for m in mv.members.values()), [], '%s: no PAPI counter' % what)


def all_parts(t):
    papi, _ = listed(t)
    if not set(EVENTS) <= set(papi):
        t.note('PAPI cannot count %s on this machine (its perf_event component is disabled: '
               'no CPU PMU); checking the messages only' % ', '.join(EVENTS))
        no_perf_events(t)
        return
    body(t)
    exe, plain_exe = build(t)
    check_listing(t, exe, t.run(plain_exe, label='plain-2'))


vttest.main('papi', all_parts)
