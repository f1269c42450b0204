# SPDX-License-Identifier: BSD-3-Clause
"""vt-export --chrome and vt-report on test/lib/omptrace.py's OpenMP trace: teams, tasks, locks."""
# vt-export keeps the thread model: every thread's team membership an async span, every thread
# event an instant with its fields, flows from the fork to the other member, from a task's
# creation to its start, from a lock's release to its next acquisition elsewhere, each bound to
# the slice it belongs to; a window cuts the spans at its edges. vt-report's page, opened by
# headless Chromium, draws the team spans, barriers, tasks, held locks, forks, joins and those
# flows on the right rows, and its Threads section holds vt-profile --threads' numbers.
import collections
import json
import os
import subprocess

import omptrace
import test_report
import vttest

VT_EXPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-export', 'vt-export')
VT_REPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-report', 'vt-report')
M, W = omptrace.MASTER, omptrace.WORKER
TID = {M: 0, W: 1}


def us(ticks):
    return round(ticks / 1000.0, 3)


def export(t, trace, *args):
    d = t.newdir('export')
    out = os.path.join(d, 'omp.json')
    p = subprocess.run([VT_EXPORT, trace, '-o', out] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stderr), (0, ''), 'vt-export %s: exit 0, no warning' % ' '.join(args))
    with open(out, encoding='utf-8') as f:
        return json.load(f)


def spans_of(t, events, what):
    """Async team spans per tid: [(begin, end)], every b with its e of the same id."""
    open_, spans = {}, collections.defaultdict(list)
    for e in events:
        if e['ph'] == 'b':
            open_[e['id']] = e
        elif e['ph'] == 'e':
            b = open_.pop(e['id'], None)
            t.check(b is not None and b['tid'] == e['tid'] and b['name'] == e['name'] and
                    b['cat'] == e['cat'] == 'openmp', '%s: team span %s ends where it began'
                    % (what, e['id']))
            if b:
                spans[b['tid']].append((b['ts'], e['ts']))
    t.eq(open_, {}, '%s: every team span ends' % what)
    return dict(spans)


def check_export(t, trace):
    doc = export(t, trace)
    ev = doc['traceEvents']
    other = doc['otherData']
    t.eq((other['instants'], other['spans'], other['flows']), (14, 4, 5),
         'export: 14 thread instants, 4 team spans, 5 flows')
    want = {TID[loc]: [(us(b), us(e)) for b, e in spans] for loc, spans in omptrace.TEAMS.items()}
    t.eq(spans_of(t, ev, 'export'), want, 'export: each thread\'s team spans, 100-300 and 400-720 ns')
    t.eq([e.get('args') for e in ev if e['ph'] == 'b'],
         [{'team': 'OpenMP team 1', 'size': 2, 'members': [0, 1]}] * 4,
         'export: each team span names its team and its members\' threads (tids 0 and 1)')
    inst = collections.Counter((e['name'], e['tid']) for e in ev if e['ph'] == 'i')
    t.eq(dict(inst), {('ThreadFork', 0): 2, ('ThreadJoin', 0): 2, ('ThreadTaskCreate', 0): 2, ('ThreadTaskSwitch', 0): 1,
                      ('ThreadTaskSwitch', 1): 1, ('ThreadTaskComplete', 0): 1, ('ThreadTaskComplete', 1): 1,
                      ('ThreadAcquireLock', 0): 1, ('ThreadAcquireLock', 1): 1, ('ThreadReleaseLock', 0): 1,
                      ('ThreadReleaseLock', 1): 1}, 'export: the instants per thread')
    acq = sorted((e['ts'], e['args']['lock'], e['args']['order']) for e in ev
                 if e['ph'] == 'i' and e['name'] == 'ThreadAcquireLock')
    t.eq(acq, [(0.47, 7, 1), (0.66, 7, 2)], 'export: lock 7 acquired in order 1, then 2')
    t.eq(sorted((e['ts'], e['args']['creator'], e['args']['generation']) for e in ev
                if e['ph'] == 'i' and e['name'] == 'ThreadTaskCreate'),
         [(0.42, 0, 1), (0.44, 0, 2)], 'export: tasks (0, 1) and (0, 2) created')
    flows = collections.defaultdict(dict)
    for e in ev:
        if e['ph'] in 'sf':
            flows[e['id']][e['ph']] = e
    got = sorted((f['s']['name'], f['s']['tid'], f['s']['ts'], f['f']['tid'], f['f']['ts'],
                  f['f'].get('bp')) for f in flows.values() if 's' in f and 'f' in f)
    want = sorted([('fork', 0, 0.1, 1, 0.1, None), ('fork', 0, 0.4, 1, 0.4, None)] +
                  [('task', TID[c], us(tc), TID[x], us(ts), None)
                   for tc, c, x, ts, _ in omptrace.TASKS.values()] +
                  [('lock', 0, 0.49, 1, 0.66, 'e')])
    t.eq(got, want, 'export: flows fork -> member, creation -> task start, release -> acquire')
    # Each flow binds to a slice: an "f" without bp to the slice beginning there, a "bp":"e"
    # end and every start to a slice around it.
    stacks, around = collections.defaultdict(list), []
    begins = {(e['tid'], e['ts']) for e in ev if e['ph'] == 'B'}
    slices = collections.defaultdict(list)
    for e in ev:
        if e['ph'] == 'B':
            stacks[e['tid']].append(e)
        elif e['ph'] == 'E':
            b = stacks[e['tid']].pop()
            slices[e['tid']].append((b['ts'], e['ts'], b['name']))
    for f in flows.values():
        s, e = f['s'], f['f']
        inside = lambda x: any(b <= x['ts'] < en for b, en, _ in slices[x['tid']])  # noqa: E731
        around.append(inside(s) and ((e['tid'], e['ts']) in begins if 'bp' not in e else inside(e)))
    t.check(around and all(around), 'export: every flow bound to a slice on both ends', around)
    # A window from 450 to 650 ns: the second team's spans cut at its edges, no flow with an
    # end outside, the instants inside.
    doc = export(t, trace, '--window', '0.00000045:0.00000065')
    ev = doc['traceEvents']
    t.eq(spans_of(t, ev, 'window'), {0: [(0.45, 0.65)], 1: [(0.45, 0.65)]},
         'window: team spans cut at 450 and 650 ns')
    t.eq(sorted((e['name'], e['ts']) for e in ev if e['ph'] == 'i'),
         [('ThreadAcquireLock', 0.47), ('ThreadReleaseLock', 0.49), ('ThreadTaskComplete', 0.61),
          ('ThreadTaskComplete', 0.65), ('ThreadTaskSwitch', 0.51)], 'window: the instants inside it')
    t.eq([e for e in ev if e['ph'] in 'sf'], [], 'window: no flow with an end outside it')


def check_export_pthreads(t, trace):
    doc = export(t, trace)
    ev = doc['traceEvents']
    t.eq(sorted((e['name'], e['tid'], e['ts'], e['cat'], e['args'].get('sequence'))
                for e in ev if e['ph'] == 'i' and 'sequence' in e['args']),
         [('ThreadBegin', 1, 0.03, 'pthread', 1), ('ThreadCreate', 0, 0.015, 'pthread', 1),
          ('ThreadEnd', 1, 0.14, 'pthread', 1), ('ThreadWait', 0, 0.15, 'pthread', 1)],
         'pthreads: create, begin, end and wait instants with the sequence number')
    flows = collections.defaultdict(dict)
    for e in ev:
        if e['ph'] in 'sf':
            flows[e['id']][e['ph']] = e
    t.eq(sorted((f['s']['name'], f['s']['cat'], f['s']['tid'], f['s']['ts'], f['f']['tid'],
                 f['f']['ts']) for f in flows.values()),
         [('lock', 'pthread', 0, 0.07, 1, 0.075), ('thread', 'pthread', 0, 0.015, 1, 0.03)],
         'pthreads: flows from the creation to the thread, from the release to the acquire')


def check_many_tasks(t):
    """3000 tasks started in a shuffled order: every creation's flow ends where its task
    starts (the pending tasks' table grows and shrinks through many states)."""
    n = 3000
    trace, runs = omptrace.write_many_tasks(os.path.join(t.newdir('tasks'), 'tasks'), n)
    doc = export(t, trace)
    flows = collections.defaultdict(dict)
    for e in doc['traceEvents']:
        if e['ph'] in 'sf' and e['name'] == 'task':
            flows[e['id']][e['ph']] = e
    got = sorted((round(f['s']['ts'] * 100) + 1, f['f']['tid'], round(f['f']['ts'] * 1000))
                 for f in flows.values())
    want = sorted((gen, tid, ts) for gen, (tid, ts) in runs.items())
    t.check(got == want, 'many tasks: %d flows, each from its creation to its start' % n,
            '%d flows, first differences %r' % (
                len(got), [(a, b) for a, b in zip(got, want) if a != b][:3]))


def check_report(t, trace):
    d = t.newdir('report')
    page = os.path.join(d, 'omp.html')
    p = subprocess.run([VT_REPORT, trace, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stdout, p.stderr), (0, '', ''), 'vt-report: exit 0, nothing printed')
    data = test_report.page_data(page)
    kinds = collections.Counter(x[0] for x in data['threads'])
    t.eq(dict(kinds), {0: 4, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 2, 9: 1},
         'page data: 4 team spans, 2 held locks, 2 forks, 2 joins, 2 tasks created and '
         'completed, 2 fork flows, 1 lock flow')
    dom = test_report.Dom(test_report.chromium(t, ['--dump-dom'], 'file://' + page, 'threads'))
    t.eq(dom.find('body', data_ready='1') != [], True, 'page: the script ran to its end')
    t.eq(dom.errors_text.strip(), '', 'page: no error caught by the page')
    locs = [r['data-loc'] for r in dom.with_class('g', 'row')]
    t.eq(locs, ['0', '1'], 'page: a row per thread')
    teams = dom.with_class('rect', 'team')
    t.eq(sorted(r['data-loc'] for r in teams), ['0', '0', '1', '1'], 'page: two team spans per row')
    widths = sorted(float(r['width']) for r in teams if r['data-loc'] == '0')
    t.check(len(widths) == 2 and abs(widths[0] / widths[1] - 200 / 320) < 0.01,
            'page: team spans as long as the parallel regions (200 : 320 ns)', widths)
    t.eq(sorted(r['data-loc'] for r in dom.with_class('rect', 'lock-held')), ['0', '1'],
         'page: a held lock on each row')
    t.eq((len(dom.with_class('line', 'fork')), len(dom.with_class('line', 'join'))), (2, 2),
         'page: two forks and two joins drawn')
    t.eq(len(dom.with_class('polygon', 'task-create')), 2, 'page: two task creations marked')
    flows = sorted((c['class'], c['data-from'], c['data-to']) for c in dom.with_class('line', 'tflow'))
    t.eq(flows, [('tflow fork-flow', '0', '1')] * 2 + [('tflow lock-flow', '0', '1')],
         'page: fork and lock flows from the master\'s row to the worker\'s')
    role = collections.Counter((cls, e['data-region']) for e in dom.elements
                               for cls in ('barrier', 'task', 'parallel')
                               if e['<tag>'] == 'rect' and 'slice' in (e.get('class') or '').split()
                               and cls in e['class'].split())
    t.eq(dict(role), {('barrier', omptrace.IB1): 2, ('barrier', omptrace.B2): 2,
                      ('barrier', omptrace.IB2): 2, ('task', omptrace.TASK): 2,
                      ('parallel', omptrace.P1): 2, ('parallel', omptrace.P2): 2},
         'page: barriers, tasks and parallel regions drawn as such, by their roles')
    names = {'0': M, '1': W}
    rows = test_report._rows_of(dom, 'thread-times')
    got = {names[r[0]['data-loc']]: [int(c['data-value']) for c in r[1:]] for r in rows}
    keys = ['parallel', 'barrier', 'task', 'taskwait', 'critical', 'lock_held', 'pthread',
            'tasks_created', 'tasks_completed', 'locks']
    t.eq(got, {n: [v[k] for k in keys] for n, v in omptrace.EXPECTED_THREADS.items()},
         'page: the Threads table holds vt-profile --threads\' numbers')
    rows = test_report._rows_of(dom, 'omp-imbalance')
    got = {r[0]['data-region']: (r[1]['data-kind'], r[3]['data-value'], r[5]['data-value'])
           for r in rows}
    t.eq(got, {omptrace.P1: ('parallel', '160', '1.333333'), omptrace.P2: ('parallel', '290', '1.137255'),
               omptrace.IB1: ('barrier', '120', '1.5'), omptrace.B2: ('barrier', '80', '1.6'),
               omptrace.IB2: ('barrier', '20', '1.333333')},
         'page: the imbalance table: kind, max and max/mean per region')


def body(t):
    if not t.check(os.access(test_report.CHROMIUM, os.X_OK), 'chromium installed'):
        return
    trace = omptrace.write(os.path.join(t.newdir('trace'), 'omp'))
    check_export(t, trace)
    check_many_tasks(t)
    check_report(t, trace)
    # A budget of 20: at most 20 / 5 + 1 thread items, the page says how many were left out.
    page = os.path.join(t.newdir('budget'), 'small.html')
    p = subprocess.run([VT_REPORT, '--budget', '20', trace, '-o', page], timeout=120)
    data = test_report.page_data(page)
    t.eq((p.returncode, len(data['threads']), data['meta']['threads_left_out']), (0, 5, 12),
         'budget 20: 5 thread items kept, 12 left out and counted')
    text = test_report.chromium(t, ['--dump-dom'], 'file://' + page, 'budget')
    dom = test_report.Dom(text)
    t.check(dom.find('body', data_ready='1'), 'budget 20: the page renders')
    t.check('; 12 thread spans, marks and flows not drawn' in text,
            'budget 20: the controls say 12 thread items are not drawn')
    pth = omptrace.write_pthreads(os.path.join(t.newdir('pthreads'), 'pth'))
    check_export_pthreads(t, pth)
    page = os.path.join(t.newdir('pthreads-report'), 'pth.html')
    p = subprocess.run([VT_REPORT, pth, '-o', page], timeout=120)
    t.eq(p.returncode, 0, 'pthreads: vt-report exit 0')
    data = test_report.page_data(page)
    t.eq(sorted(x for x in data['threads'] if x[0] != 1),
         [[6, 0, 15, 15, 1], [7, 0, 150, 150, 1], [9, 0, 70, 75, 1]],
         'pthreads page: thread created and waited for (sequence 1), the mutex handed over')
    t.eq(sorted(x for x in data['threads'] if x[0] == 1), [[1, 0, 55, 70, 3], [1, 1, 75, 90, 3]],
         'pthreads page: mutex 3 held 55-70 ns by the master, 75-90 ns by the thread')


if __name__ == '__main__':
    vttest.main('viz_threads', body)
