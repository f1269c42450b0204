# SPDX-License-Identifier: BSD-3-Clause
"""vt-report on the trace of a real run (Open MPI, 4 ranks, 2 threads each, a counter plugin),
opened by headless Chromium: the rendered DOM has a row per location, a bar per kernel call,
message lines between the rows of the right ranks, collectives marked, a counter plot, profile
tables whose numbers are vt-profile's, the message matrix and load per rank the program
implies; a screenshot is not blank where the timeline is; the page reports no script error.
The page is self-contained (nothing fetched)."""
import collections
import html.parser
import json
import os
import re
import subprocess

import vizprog
import vtpng
import vttest

VT_REPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-report', 'vt-report')
VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')
CHROMIUM = '/usr/bin/chromium'
SIZE = (1400, 1000)


class Dom(html.parser.HTMLParser):
    """The elements of the dumped DOM with their attributes (and each td's text)."""

    def __init__(self, text):
        super().__init__()
        self.elements = []
        self._td = None
        self.errors_text = ''
        self._in_errors = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        a['<tag>'] = tag
        self.elements.append(a)
        if tag == 'td':
            self._td = a
            a['<text>'] = ''
        self._in_errors = a.get('id') == 'errors'

    def handle_endtag(self, tag):
        if tag == 'td':
            self._td = None
        self._in_errors = False

    def handle_data(self, data):
        if self._td is not None:
            self._td['<text>'] += data
        if self._in_errors:
            self.errors_text += data

    def find(self, tag, **attrs):
        return [e for e in self.elements if e['<tag>'] == tag and
                all(e.get(k.replace('_', '-')) == v for k, v in attrs.items())]

    def with_class(self, tag, cls):
        return [e for e in self.elements if e['<tag>'] == tag and
                cls in (e.get('class') or '').split()]


def chromium(t, args, url, what):
    d = t.newdir('chromium')
    cmd = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
           '--user-data-dir=' + os.path.join(d, 'profile'), '--enable-logging=stderr', '--v=0',
           '--window-size=%d,%d' % SIZE] + args + [url]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors='replace', timeout=120, cwd=d)
    t.eq(p.returncode, 0, '%s: chromium exits 0' % what)
    console = [line for line in p.stderr.splitlines() if re.search(r':CONSOLE[:(]\d+\)?\]', line)]
    t.eq(console, [], '%s: nothing on the browser console (no script error)' % what)
    return p.stdout


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of a screenshot Chromium wrote."""
    return vtpng.pixels(path)


def profile_json(*args):
    p = subprocess.run([VT_PROFILE, '--format', 'json'] + list(args), stdout=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    return json.loads(p.stdout)


def check_page_file(t, page):
    with open(page, encoding='utf-8') as f:
        text = f.read()
    t.check(len(text) < 2 * 1024 * 1024, 'the page of a small trace is small',
            '%d bytes' % len(text))
    external = re.findall(r'(?:src|href)\s*=\s*"(?!#)[^"]*"|@import|url\(', text)
    t.eq(external, [], 'the page refers to no other file or site')


def check_dom(t, dom, facts, trace, what):
    t.eq(dom.find('body', data_ready='1') != [], True, '%s: the script ran to its end' % what)
    t.eq(dom.errors_text.strip(), '', '%s: no error caught by the page' % what)
    t.eq((dom.find('section', id='samples-section'), dom.with_class('rect', 'flame-frame')),
         ([], []), '%s: no Samples section: the trace has no samples' % what)
    rows = dom.with_class('g', 'row')
    t.eq(len(rows), len(facts.locations), '%s: one timeline row per location' % what)
    labels = [e for e in dom.elements if e['<tag>'] == 'rect' and
              'rowbg' in (e.get('class') or '')]
    box = {int(r['data-loc']): (float(b['y']), float(b['y']) + float(b['height']))
           for r, b in zip(rows, labels)}
    return box


def check_full_view(t, dom, facts, trace):
    what = 'full view'
    box = check_dom(t, dom, facts, trace, what)
    ref = [ref for ref, _, _ in facts.locations]
    rank = lambda loc: facts.rank_of[ref[loc]]  # noqa: E731
    lines = dom.with_class('line', 'msg')
    t.eq(sorted((rank(int(m['data-from'])), rank(int(m['data-to']))) for m in lines),
         sorted((r, (r + 1) % vizprog.NP) for r in range(vizprog.NP)),
         '%s: a message line from each rank r to r + 1' % what)
    t.check(lines and all(box[int(m['data-from'])][0] <= float(m['y1']) <=
                          box[int(m['data-from'])][1] and
                          box[int(m['data-to'])][0] <= float(m['y2']) <= box[int(m['data-to'])][1]
                          for m in lines), '%s: message lines join the rows of their ends' % what)
    marks = collections.Counter(m['data-op'] for m in dom.with_class('rect', 'coll'))
    t.eq(dict(marks), dict(facts.coll_ends), '%s: every rank\'s part in every collective '
         'marked' % what)
    plots = dom.with_class('svg', 'counter')
    t.eq([p['data-name'] for p in plots], ['x'], '%s: one counter plot, the plugin\'s' % what)
    series = dom.with_class('polyline', 'series')
    t.eq(sorted(ref[int(s['data-loc'])] for s in series), sorted(facts.metrics),
         '%s: a counter line per location with counter values' % what)
    # Profiles: the numbers vt-profile gives.
    flat = profile_json(trace)
    want = {r['name']: (str(r['calls']), str(r['incl_ticks']), str(r['excl_ticks']))
            for r in flat['regions']}
    got = {}
    for tr_cells in _rows_of(dom, 'flat'):
        got[tr_cells[0]['data-region']] = tuple(c['data-value'] for c in tr_cells[1:4])
    t.eq(got, want, '%s: the flat profile table is vt-profile\'s' % what)
    paths = profile_json('--call-tree', trace)
    want = {';'.join(p['path']): (str(p['calls']), str(p['incl_ticks']), str(p['excl_ticks']))
            for p in paths['paths']}
    got = {}
    for cells in _rows_of(dom, 'calltree'):
        got[cells[0]['data-path']] = tuple(c['data-value'] for c in cells[1:4])
    t.eq(got, want, '%s: the call-path table is vt-profile --call-tree\'s' % what)
    t.eq(got.get('worker;kernel', ('',))[0], str(vizprog.THREADS * vizprog.CALLS * vizprog.NP),
         '%s: worker;kernel called 32 times' % what)
    cells = [(int(c['data-from']), int(c['data-to']), int(c['data-count']), int(c['data-bytes']))
             for c in dom.find('td', **{'class': 'cell'})]
    t.eq(sorted(cells), sorted((r, (r + 1) % 4, 1, 64 * (r + 1)) for r in range(4)),
         '%s: the message matrix: one message of 64 (r + 1) bytes from r to r + 1' % what)
    bars = dom.with_class('rect', 'size-bar')
    t.eq(sum(int(b['data-count']) for b in bars), vizprog.NP, '%s: 4 messages in the size '
         'histogram' % what)
    kinds = {c['data-kind'] for c in dom.find('td') if 'data-kind' in c}
    t.eq(kinds, set(facts.coll_ends), '%s: the collective kinds in their table' % what)
    # Load: per rank, MPI = exclusive time of the MPI_ regions, user = the rest.
    per_loc = profile_json('--per-location', trace)
    group = {loc['id']: loc['group'] for loc in per_loc['locations']}
    want = collections.defaultdict(lambda: [0, 0])
    for loc in per_loc['locations']:
        for r in loc['regions']:
            want[group[loc['id']]][r['name'].startswith('MPI_')] += r['excl_ticks']
    got = collections.defaultdict(lambda: [0, 0])
    for b in dom.with_class('rect', 'load-bar'):
        got[b['data-name']][b['data-kind'] == 'mpi'] = int(b['data-value'])
    t.eq(dict(got), dict(want), '%s: load bars per rank: user code and MPI' % what)
    meta = {r[0]['<text>']: r[1]['<text>'] for r in _rows_of(dom, 'meta') if len(r) == 2}
    t.eq((meta.get('program'), meta.get('ranks'), meta.get('threads'), meta.get('events')),
         ('viz_prog', str(vizprog.NP), str(len(facts.locations)),
          str(facts.events)),
         '%s: metadata: program, ranks, threads, events' % what)
    # the settings the run was recorded with: the ones given, and the defaults
    t.eq((meta.get('VT_PLUGIN_CNTR_METRICS'), meta.get('VT_BUFFER_SIZE'),
          meta.get('VT_MPITRACE'), meta.get('VT_FILTER_SPEC')),
         ('random_x', '8M', 'yes', '(unset)'),
         '%s: metadata: the recording\'s settings, given and default' % what)
    return dom


def _rows_of(dom, table_id):
    """The td elements of a table's body rows (the parser keeps document order)."""
    out, inside, row = [], False, None
    for e in dom.elements:
        if e['<tag>'] == 'table':
            inside = e.get('id') == table_id
        elif inside and e['<tag>'] == 'tr':
            row = []
            out.append(row)
        elif inside and e['<tag>'] == 'td' and row is not None:
            row.append(e)
    return [r for r in out if r]


def check_zoomed(t, dom, facts, trace):
    what = 'zoomed to the kernels'
    check_dom(t, dom, facts, trace, what)
    bars = [e for e in dom.with_class('rect', 'slice') if e.get('data-region') == 'kernel']
    t.eq(len(bars), vizprog.NP * vizprog.THREADS * vizprog.CALLS,
         '%s: a bar per kernel call' % what)
    ref = [ref for ref, _, _ in facts.locations]
    per_loc = collections.Counter(ref[int(b['data-loc'])] for b in bars)
    want = collections.Counter({r: sum(1 for n, _, _ in s if n == 'kernel')
                                for r, s in facts.slices.items()})
    t.eq(+per_loc, +want, '%s: kernel bars on the rows of their threads' % what)


def check_screenshot(t, url, box):
    d = t.newdir('shot')
    shot = os.path.join(d, 'shot.png')
    chromium(t, ['--screenshot=' + shot], url, 'screenshot')
    if not t.check(os.path.isfile(shot), 'screenshot written'):
        return
    w, h, rows = png_pixels(shot)
    x, y, bw, bh = box
    crop = [px for row in rows[y:min(h, y + bh)] for px in row[x + 200:min(w, x + bw)]]
    background = {(255, 255, 255), (250, 250, 250), (240, 242, 245)}
    drawn = [px for px in crop if px not in background]
    t.check(crop and len(drawn) > len(crop) // 50, 'screenshot: the timeline area is drawn',
            '%d of %d pixels not background' % (len(drawn), len(crop)))
    t.check(len(set(drawn)) >= 5, 'screenshot: bars of several colours in the timeline',
            '%d colours' % len(set(drawn)))


def page_data(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="vt-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)) if m else None


def check_vt_report_env(t, run, trace, page):
    """VT_REPORT=yes: the run itself wrote PREFIX.html next to its trace, said so, and it
    holds what vt-report writes for that trace."""
    html = trace[:-len('.otf2')] + '.html'
    notices = [m for m in run.messages if m.startswith('report written to ')]
    t.eq([os.path.basename(m.split()[-1]) for m in notices], [os.path.basename(html)],
         'VT_REPORT=yes: one notice naming the report')
    if not t.check(os.path.isfile(html), 'VT_REPORT=yes: %s written' % html):
        return
    mine, theirs = page_data(html), page_data(page)
    if t.check(mine is not None and theirs is not None, 'VT_REPORT=yes: the page has its data'):
        mine['meta'].pop('trace')
        theirs['meta'].pop('trace')
        t.eq(mine, theirs, 'VT_REPORT=yes: the same report as vt-report\'s')


def check_selftest(t, url, facts):
    """Zoom and pan: the page drives its own key and wheel handlers (#selftest) and notes the
    view after each: '+' halves it around its middle, ArrowRight moves it a quarter on, '-'
    doubles it, '0' shows everything, the wheel zooms in around the pointer."""
    dom = Dom(chromium(t, ['--dump-dom'], url + '#selftest', 'selftest'))
    bodies = dom.find('body')
    views = [tuple(float(x) for x in v.split(':'))
             for v in (bodies[0].get('data-selftest') or '').split()] if bodies else []
    if not t.eq(len(views), 6, 'selftest: six views noted'):
        return
    full, zin, right, zout, reset, wheel = views
    span = full[1] - full[0]
    near = lambda a, b: abs(a - b) <= max(2.0, 1e-9 * abs(b))  # noqa: E731
    mid = (full[0] + full[1]) / 2
    t.check(near(zin[1] - zin[0], span / 2) and near((zin[0] + zin[1]) / 2, mid),
            "selftest: '+' halves the view around its middle", repr(views))
    t.check(near(right[0] - zin[0], span / 8) and near(right[1] - right[0], span / 2),
            'selftest: ArrowRight moves it a quarter of its width', repr(views))
    t.check(near(zout[1] - zout[0], span), "selftest: '-' doubles it", repr(views))
    t.check(near(reset[0], full[0]) and near(reset[1], full[1]), "selftest: '0' shows all",
            repr(views))
    t.check(near(wheel[1] - wheel[0], span * 0.8) and wheel[0] > full[0],
            'selftest: the wheel zooms in around the pointer (right of the middle)', repr(views))


def check_budget(t, trace, facts):
    """A budget far below the trace's events: levels of detail. Nothing is lost: the slices
    kept one by one and those summed in bins add up to every activation, the long ones are
    exact, and the page still renders without error."""
    d = t.newdir('budget')
    page = os.path.join(d, 'small.html')
    p = subprocess.run([VT_REPORT, '--budget', '20', trace, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq(p.returncode, 0, 'budget 20: exit 0')
    data = page_data(page)
    if not data:
        return t.fail('budget 20: the page has its data')
    t.eq(data['meta']['aggregated'], True, 'budget 20: levels of detail')
    total = sum(len(s) for s in facts.slices.values())
    t.eq(len(data['slices']) + sum(b[4] for b in data['bins']), total,
         'budget 20: slices one by one + in bins = every activation (%d)' % total)
    width = data['meta']['bin_ns']
    t.check(all(s[4] - s[3] >= width for s in data['slices']) and data['bins'],
            'budget 20: exactly the activations at least a bin long kept one by one')
    dom = Dom(chromium(t, ['--dump-dom'], 'file://' + page, 'budget 20'))
    t.eq(dom.find('body', data_ready='1') != [], True, 'budget 20: the script ran to its end')
    t.check(len(dom.with_class('rect', 'bin')) > 0, 'budget 20: bins drawn')


def body(t):
    if not t.check(os.access(CHROMIUM, os.X_OK), 'chromium installed (scripts/install-deps.sh)'):
        return
    run, trace = vizprog.traced_run(t, env={'VT_REPORT': 'yes'})
    facts = vizprog.Facts(trace)
    d = t.newdir('report')
    page = os.path.join(d, 'report.html')
    p = subprocess.run([VT_REPORT, trace, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stdout, p.stderr), (0, '', ''), 'vt-report: exit 0, nothing printed')
    check_page_file(t, page)
    check_vt_report_env(t, run, trace, page)
    url = 'file://' + page
    dom = Dom(chromium(t, ['--dump-dom'], url, 'full view'))
    check_full_view(t, dom, facts, trace)
    boxes = [e.get('data-timeline-box') for e in dom.find('body')]
    kernels = [(b, e) for s in facts.slices.values() for n, b, e in s if n == 'kernel']
    lo = (min(b for b, _ in kernels) - facts.offset) * 10**9 // facts.resolution
    hi = (max(e for _, e in kernels) - facts.offset) * 10**9 // facts.resolution
    zoomed = Dom(chromium(t, ['--dump-dom'], '%s#view=%d,%d' % (url, lo - 1000, hi + 1000),
                          'zoomed'))
    check_zoomed(t, zoomed, facts, trace)
    check_budget(t, trace, facts)
    check_selftest(t, url, facts)
    if boxes and boxes[0]:
        check_screenshot(t, url, [int(v) for v in boxes[0].split(',')])
    else:
        t.fail('the page gives the timeline\'s box')


if __name__ == '__main__':
    vttest.main('viz_report', body)
