# SPDX-License-Identifier: BSD-3-Clause
"""e2e "sync_group": a thread's strict synchronous counters are one metric class, and the
values of one event one Metric record (issue 30). syncprog.c runs main and one thread with
the counters of bench/plugin-sync.c (libbenchsync.so, built here): constK returns 42, incK
1, 2, 3, ... on each thread, read once per Enter and Leave. With K = 1, 2, 4 counters
(const0, inc0, const1, inc1, in that order), read with python3-otf2 as written:
- K = 1: each Enter and Leave is followed by one Metric event of the counter's own class;
- K >= 2: one MetricClass whose members are the K counters in order, SYNCHRONOUS_STRICT,
  CPU, and each Enter and Leave followed by exactly one Metric event of it at its time,
  carrying K values: 42 for a constK, the event's number on its thread for an incK;
and otf2-print shows the same records with each member's value; the counters' own classes
are still defined, one member each. vt-export's Chrome trace has a counter event per value
of each counter, named by it, as with one record per counter."""

import collections
import json
import os
import subprocess

import vtmetrics
import vtplugins
import vttest

ORDER = ['const0', 'inc0', 'const1', 'inc1']
CALLS = 5
# Enter/Leave per location: main, work x CALLS, pthread_create, pthread_join (VT_PTHREAD);
# the thread: thread_main, work x 2.
EVENTS = {'Master thread': 2 * (1 + CALLS + 2), 'Thread 1': 2 * (1 + 2)}


def want_value(name, k):
    """The value of counter name at the k-th (0-based) Enter/Leave of a thread."""
    return 42 if name.startswith('const') else k + 1


def check(t, run, names):
    what = '%d counter%s' % (len(names), '' if len(names) == 1 else 's')
    tr = t.trace(run, what)
    mv = vtmetrics.read_metrics(tr.path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(tr.path), what)
    alone = [mv.class_of(n) for n in names]
    t.eq([(c.occurrence, c.recorder_kind) for c in alone],
         [('SYNCHRONOUS_STRICT', 'CPU')] * len(names),
         '%s: each counter has its class of one member' % what)
    members = tuple(c.members[0] for c in alone)
    groups = [c for c in mv.classes.values() if len(c.members) > 1]
    if len(names) == 1:
        t.eq(groups, [], '%s: no class of several members' % what)
        cls = alone[0].ref
    else:
        t.eq([(c.members, c.occurrence, c.recorder_kind) for c in groups],
             [(members, 'SYNCHRONOUS_STRICT', 'CPU')],
             '%s: one class whose members are the counters, in order' % what)
        cls = groups[0].ref if len(groups) == 1 else None
    for name, n_events in EVENTS.items():
        w = '%s: %s' % (what, name)
        evs = mv.raw_events.get(mv.loc(name).ref, [])
        heads = [i for i, e in enumerate(evs) if e.kind in ('Enter', 'Leave')]
        t.eq(len(heads), n_events, '%s: %d Enter/Leave events' % (w, n_events))
        metrics = [e for e in evs if e.kind == 'Metric']
        t.eq(len(metrics), n_events, '%s: one Metric record per Enter/Leave, for %d counters'
             % (w, len(names)))
        bad = []
        for k, i in enumerate(heads):
            e = evs[i]
            want = (cls, e.time, tuple(want_value(n, k) for n in names))
            m = evs[i + 1] if i + 1 < len(evs) else None
            if m is None or m.kind != 'Metric' or (m.metric, m.time, m.values) != want:
                bad.append('%s #%d: expected %r, got %r' % (e.kind, k, want, m))
        t.eq(bad[:3], [], '%s: after each Enter/Leave one Metric record of class %s with '
             'the %d values read' % (w, cls, len(names)))
        # What readers see per counter (vtmetrics.values_per_event: one value per member)
        seq = vtmetrics.values_per_event(mv, mv.loc(name).ref)
        t.eq(seq, [{n: want_value(n, k) for n in names} for k in range(n_events)],
             '%s: each counter\'s value at each event, member by member' % w)
    return tr


def chrome_counters(t, tr, names):
    """{keys of a counter event's args: number of such events} of vt-export's Chrome trace."""
    out = os.path.join(t.newdir('export-%d' % len(names)), 'chrome.json')
    exe = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-export', 'vt-export')
    p = subprocess.run([exe, '--chrome', tr.path, '-o', out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if not t.check(p.returncode == 0, '%d counters: vt-export --chrome works' % len(names),
                   p.stderr[-300:]):
        return {}
    with open(out) as f:
        evs = json.load(f)['traceEvents']
    return dict(collections.Counter(tuple(sorted(e.get('args', {})))
                                    for e in evs if e.get('ph') == 'C'))


def body(t):
    plugdir = t.newdir('plugin')
    vtplugins.build_plugin(t, plugdir, 'benchsync',
                           os.path.join(vttest.SOURCE_ROOT, 'bench', 'plugin-sync.c'))
    exe, plain_exe = t.parallel(
        lambda inst: t.compile('syncprog', [t.source('syncprog.c')], opt='-O1',
                               flags=['-pthread'], instrument=inst), [True, False])
    plain = t.run(plain_exe, label='plain')
    for k in (1, 2, 4):
        names = ORDER[:k]
        env = {'VT_PLUGIN_CNTR_PATH': plugdir,
               'VT_PLUGIN_CNTR_METRICS': ':'.join('benchsync_' + n for n in names)}
        run = t.run(exe, env=env, label='k%d' % k)
        t.same_as_plain(run, plain, '%d counters' % k)
        t.clean_run(run, '%d counters' % k)
        tr = check(t, run, names)
        counts = chrome_counters(t, tr, names)
        total = sum(EVENTS.values())
        t.eq(counts, {(n,): total for n in names},
             '%d counters: vt-export chrome: %d counter events of each counter, one value each'
             % (k, total))


vttest.main('sync_group', body)
