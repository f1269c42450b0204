# SPDX-License-Identifier: BSD-3-Clause
"""vt-report's Wait states and Critical path sections as headless Chromium renders them, on a
real run (Open MPI, 3 ranks, waits_prog.c: rank 1 40 ms late at 4 barriers, far beyond what
a loaded machine oversleeps a 2 ms nap, rank 2 a late sender): every pattern's row, the top call paths, ranks and communicators per pattern, the
path's share per rank and call path and the delay costs are vt-profile --waits --format json
and --critical-path --format json of the same trace, exactly; the largest delay cost names
rank 1's work and the barrier, the late sender's rank 2's produce; nothing on the console. A
trace without a communicator shows the note instead."""
import html
import os
import re
import subprocess

import vtmpi
import vttest
from test_report import CHROMIUM, Dom, chromium, page_data, profile_json
from vtmpi import OPENMPI
from waittrace import write_plain

VT_REPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-report', 'vt-report')
K, DELAY_MS = 4, 40
TOP, PATHS, COSTS = 5, 50, 10  # rows report.js shows: per pattern and kind, call paths, costs


def report(t, trace, what):
    d = t.newdir('report')
    page = os.path.join(d, 'report.html')
    p = subprocess.run([VT_REPORT, '-q', trace, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    t.eq((p.returncode, p.stdout, p.stderr), (0, '', ''), '%s: vt-report exit 0, nothing '
         'printed' % what)
    text = chromium(t, ['--dump-dom'], 'file://' + page, what)
    dom = Dom(text)
    # The delay costs' sentences (Dom keeps the text of td elements only).
    dom.delay_texts = [html.unescape(x) for x in
                       re.findall(r'<li class="delay-cost"[^>]*>(.*?)</li>', text, re.S)]
    t.eq(dom.find('body', data_ready='1') != [], True, '%s: the script ran to its end' % what)
    t.eq(dom.errors_text.strip(), '', '%s: no error caught by the page' % what)
    return page, dom


def rows_of(dom, table_id):
    """Per body row of the table: its tr's attributes and its td elements."""
    out, inside, in_body = [], False, False
    for e in dom.elements:
        tag = e['<tag>']
        if tag == 'table':
            inside, in_body = e.get('id') == table_id, False
        elif inside and tag == 'tbody':
            in_body = True
        elif inside and in_body and tag == 'tr':
            out.append((e, []))
        elif inside and in_body and tag == 'td' and out:
            out[-1][1].append(e)
    return out


def share(ticks, whole):
    return '%.2f%%' % (ticks / whole * 100 if whole else 0)


def where(x):
    return x['name'] if x['rank'] is None else 'rank %d (%s)' % (x['rank'], x['name'])


def top_rows(W, pattern):
    """The rows report.js shows for a pattern: per breakdown the TOP of most time (ties in
    vt-profile's order)."""
    out = []
    for key, kind, name in (('call_paths', 'call path', lambda x: ' > '.join(x['path'])),
                            ('locations', 'rank', where),
                            ('communicators', 'communicator', lambda x: x['name'])):
        rows = [x for x in W[key] if x['pattern'] == pattern]
        rows = sorted(rows, key=lambda x: -x['time_ticks'])[:TOP]
        out += [(key, kind, name(x), x['instances'], x['time_ticks']) for x in rows]
    return out


def check_waits(t, dom, W, meta):
    what = 'wait states'
    total = dom.find('p', id='waits-total')
    t.eq([e.get('data-ticks') for e in total], [str(W['total_ticks'])],
         '%s: the total is vt-profile\'s' % what)
    run = meta['locations'] * (meta['tmax'] - meta['tmin']) * meta['resolution'] / 1e9
    got = [(tds[0].get('data-pattern'), tds[0]['<text>'], int(tds[1]['data-value']),
            int(tds[2]['data-value']), tds[3]['<text>']) for _, tds in rows_of(dom, 'waits')]
    want = [(p['pattern'], p['name'], p['instances'], p['time_ticks'],
             share(p['time_ticks'], run)) for p in W['patterns']]
    t.eq(got, want, '%s: one row per pattern, name, instances, time and share of the run as '
         'vt-profile gives them' % what)
    shown = [p['pattern'] for p in W['patterns'] if p['time_ticks']]
    t.check({'wait_barrier', 'late_sender'} <= set(shown), '%s: the barriers and the late '
            'sender waited' % what, repr(shown))
    for p in W['patterns']:
        got = [(tr.get('data-kind'), tds[0]['<text>'], tds[1]['<text>'],
                int(tds[2]['data-value']), int(tds[3]['data-value']))
               for tr, tds in rows_of(dom, 'waits-' + p['pattern'])]
        t.eq(got, top_rows(W, p['pattern']) if p['time_ticks'] else [],
             '%s: %s: the top call paths, ranks and communicators' % (what, p['name']))
    barrier = dict((r[0], r) for r in top_rows(W, 'wait_barrier') if r[0] != 'locations')
    t.eq(barrier['call_paths'][2].split(' > ')[-1], 'MPI_Barrier',
         '%s: Wait at Barrier: the call path of most time ends in MPI_Barrier' % what)


def check_critpath(t, dom, C, W):
    what = 'critical path'
    t.eq([e.get('data-ticks') for e in dom.find('p', id='critpath-total')],
         [str(C['length_ticks'])], '%s: the length is vt-profile\'s' % what)
    got = [(tds[0]['<text>'], tds[1]['<text>'], int(tds[2]['data-value']), tds[3]['<text>'])
           for _, tds in rows_of(dom, 'critpath-ranks')]
    want = [('-' if x['rank'] is None else str(x['rank']), x['name'], x['time_ticks'],
             share(x['time_ticks'], C['length_ticks'])) for x in C['locations']]
    t.eq(got, want, '%s: per rank, the time on the path and its share' % what)
    got = [(tds[0]['<text>'], tds[1]['<text>'], int(tds[2]['data-value']), tds[3]['<text>'])
           for _, tds in rows_of(dom, 'critpath-paths')]
    want = [('-' if x['rank'] is None else str(x['rank']), ' > '.join(x['path']),
             x['time_ticks'], share(x['time_ticks'], C['length_ticks']))
            for x in C['call_paths'][:PATHS]]
    t.eq(got, want, '%s: per call path, the time on the path and its share' % what)
    names = {p['pattern']: p['name'] for p in W['patterns']}
    items = dom.with_class('li', 'delay-cost')
    got = [(e.get('data-rank'), e.get('data-path'), e.get('data-pattern'),
            e.get('data-wait-path'), int(e.get('data-waits')), int(e.get('data-ticks')))
           for e in items]
    want = [(str(x['rank']), ';'.join(x['path']), x['pattern'], ';'.join(x['wait_path']),
             x['waits'], x['cost_ticks']) for x in C['delay_costs'][:COSTS]]
    t.eq(got, want, '%s: the largest delay costs, vt-profile\'s' % what)
    texts = dom.delay_texts
    if not t.check(C['delay_costs'] and texts, '%s: delay costs shown' % what):
        return
    top = C['delay_costs'][0]
    t.check(top['rank'] == 1 and top['path'][-1:] == ['work'] and
            top['pattern'] == 'wait_barrier' and top['wait_path'][-1:] == ['MPI_Barrier'] and
            top['waits'] == 2 * K, '%s: the largest cost is rank 1\'s work, for the 2 x %d '
            'waits at the barriers' % (what, K), repr(top))
    lead = "rank 1's work made others wait "
    tail = ' in MPI_Barrier (%s, %d waits)' % (names['wait_barrier'], 2 * K)
    t.check(texts[0].startswith(lead) and texts[0].endswith(tail),
            '%s: the largest cost as a sentence: "%s... %s"' % (what, lead, tail), texts[0])
    late = [x for x in texts if x.startswith("rank 2's produce made a rank wait ") and
            x.endswith(' in MPI_Recv (%s, 1 wait)' % names['late_sender'])]
    t.eq(len(late), 1, '%s: rank 2\'s produce made rank 0 wait in MPI_Recv' % what)


def check_no_comm(t):
    """One location, main from 0 to 5 ms: no communicator, the note in both sections."""
    d = t.newdir('plain')
    path = os.path.join(d, 'plain')
    write_plain(path)
    page, dom = report(t, os.path.join(path, 'traces.otf2'), 'no communicator')
    data = page_data(page)
    t.eq((data['waits'], data['critpath']), (None, None),
         'no communicator: no analysis in the page')
    notes = [e for e in dom.elements if e['<tag>'] == 'p' and 'note' in (e.get('class') or '')]
    t.check(len(dom.find('p', id='waits-total')) == 0 and len(notes) >= 2,
            'no communicator: a note instead of the sections\' tables', repr(notes))


def body(t):
    if not t.check(os.access(CHROMIUM, os.X_OK), 'chromium installed (scripts/install-deps.sh)'):
        return
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'waits_prog', [t.source('waits_prog.c')], opt='-O0')
    r = vtmpi.mpirun(t, OPENMPI, 3, exe, args=[str(K), str(DELAY_MS)])
    vtmpi.clean_run(t, r, 'waits program')
    trace = t.trace(r, 'waits program').path
    W = profile_json('--waits', trace)
    C = profile_json('--critical-path', trace)
    page, dom = report(t, trace, 'waits program')
    data = page_data(page)
    t.eq((data['waits'], data['critpath']), (W, C),
         'the page holds vt-profile\'s --waits and --critical-path JSON as they are')
    check_waits(t, dom, W, data['meta'])
    check_critpath(t, dom, C, W)
    check_no_comm(t)


if __name__ == '__main__':
    vttest.main('viz_report_waits', body)
