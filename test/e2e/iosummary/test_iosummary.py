# SPDX-License-Identifier: BSD-3-Clause
"""e2e "iosummary": the I/O and memory summaries a person reads (issue 26): vt-profile --io
and --memory in their formats and vt-report's I/O and memory sections, rendered by headless
Chromium,
on the traces of programs whose I/O and allocations are known exactly: test iotrace's io.c
(VT_IOTRACE=yes), test memtrace's mem.c (VT_MEMTRACE=yes) and test mpi_io's mpi_io.c on 2
ranks of Open MPI (MPI-IO and the POSIX I/O below it). Every figure is also worked out here
from the events as python3-otf2 reads them (operations matched Begin to Complete or
Cancelled per location, handle and matching id; a handle's file is its IoFile, else the
handle's own name; time in I/O is the sum of Complete - Begin in ticks), and the known ones
are asserted as numbers: on data.bin 7 reads of 3820 bytes, 5 writes of 3800 bytes, 1
flush, 3 handles opened (2 opens, 1 dup), 1 seek, request sizes 8-15 (1), 32-63 (1),
1024-2047 (5) read and 256-511 (2), 512-1023 (3) written; on the pipe 1 read and 1 write of
5 bytes; mem.c's high-water mark and allocation count as the program counts them itself;
on the MPI-IO file 76 bytes written and 76 read by each rank, and POSIX bytes below it on
both ranks. The page's console stays empty, and its screenshots show the request size
bars and the memory plot's point where the page says it drew them. many_files.c writes 250
files: vt-profile lists all, the page the 200 of the most time in I/O, with the totals of all
and a note of what it left out. vt-profile --memory's call paths on a trace
written here with python3-otf2 whose counters go with every Enter and Leave (worked out by
hand: allocations and net bytes per path, inclusive and exclusive), and on mem.c's trace,
whose counters vt records once at the end, none."""

import collections
import csv
import io
import json
import os
import re
import subprocess

import vtmpi
import vtpng
import vttest
from vtmpi import OPENMPI

try:
    import otf2
except ImportError:  # vttest.require_otf2 says so
    otf2 = None

VT_PROFILE = os.environ.get('VT_PROFILE', 'vt-profile')
VT_REPORT = os.path.join(vttest.BUILD_ROOT, 'tools', 'vt-report', 'vt-report')
CHROMIUM = '/usr/bin/chromium'
HERE = os.path.dirname(os.path.abspath(__file__))
IO_C = os.path.join(HERE, '..', 'iotrace', 'io.c')
MEM_C = os.path.join(HERE, '..', 'memtrace', 'mem.c')
MPI_IO_C = os.path.join(HERE, '..', 'mpi_io', 'mpi_io.c')
FIELDS = ('reads', 'writes', 'flushes', 'failed', 'opens', 'seeks', 'bytes_read',
          'bytes_written', 'time_ticks')
MODES = {'READ': 'reads', 'WRITE': 'writes'}
# Colours on the page (report.css, report.js): request size bars, the first process's point.
READ_BAR, WRITE_BAR, MEMORY_POINT = (0x44, 0x88, 0xaa), (0xcc, 0x88, 0x44), (163, 41, 41)


def enum(v):
    return str(v).rsplit('.', 1)[-1]


UNDEFINED = 2**64 - 1  # OTF2_UNDEFINED_UINT64


def bucket_low(n):
    """The smallest size of n's power-of-two bucket: 0, 1, 2, 4, ..."""
    return 0 if n == 0 else 1 << (n.bit_length() - 1)


def expected(path):
    """The I/O summary worked out from the events: per (paradigm, file) and per (paradigm,
    file, process) the figures of FIELDS and the request sizes {mode: {low: count}}, and every
    operation's (duration, mode, requested, done or None, paradigm, file, process)."""
    files = collections.defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    rows = collections.defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    sizes = collections.defaultdict(lambda: {'read': collections.Counter(),
                                             'write': collections.Counter()})
    ops, open_ops = [], {}
    with otf2.reader.open(path) as reader:
        key_of = {}
        for h in reader.definitions.io_handles:
            key_of[h._ref] = (h.io_paradigm.identification,
                              h.file.name if h.file is not None else h.name)
        for loc, ev in reader.events:
            k = type(ev).__name__
            if not k.startswith('Io'):
                continue
            proc = loc.group.name

            def add(handle, field, n=1):
                for table, key in ((files, key_of[handle]), (rows, key_of[handle] + (proc,))):
                    table[key][field] += n
            if k == 'IoOperationBegin':
                open_ops[(loc._ref, ev.handle._ref, ev.matching_id)] = (
                    ev.time, enum(ev.mode), ev.bytes_request)
            elif k in ('IoOperationComplete', 'IoOperationCancelled'):
                t0, mode, req = open_ops.pop((loc._ref, ev.handle._ref, ev.matching_id))
                h = ev.handle._ref
                failed = k == 'IoOperationCancelled'
                done = None if failed else ev.bytes_result
                add(h, 'time_ticks', ev.time - t0)
                add(h, 'failed' if failed else MODES.get(mode, 'flushes'))
                if mode in MODES and not failed:
                    add(h, 'bytes_read' if mode == 'READ' else 'bytes_written', done)
                if mode in MODES and req != UNDEFINED:  # a printf's size is not known
                    sizes[key_of[h]][mode.lower()][bucket_low(req)] += 1
                ops.append((ev.time - t0, mode.lower(), req, done) + key_of[h] + (proc,))
            elif k == 'IoCreateHandle':
                add(ev.handle._ref, 'opens')
            elif k == 'IoDuplicateHandle':
                add(ev.new_handle._ref, 'opens')
            elif k == 'IoSeek':
                add(ev.handle._ref, 'seeks')
    return dict(files), dict(rows), {k: {m: dict(c) for m, c in v.items()}
                                     for k, v in sizes.items()}, ops, len(open_ops)


def vt_profile(t, what, *args):
    p = subprocess.run([VT_PROFILE] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: vt-profile %s: status 0, nothing on stderr'
         % (what, ' '.join(args[:-1])))
    return p.stdout


def profile_json(t, what, path, top=None):
    args = ['--io', '--format', 'json'] + (['--top', str(top)] if top else []) + [path]
    out = vt_profile(t, what, *args)
    try:
        return json.loads(out)
    except ValueError as e:
        t.fail('%s: vt-profile --io JSON parses' % what, '%s\n%s' % (e, out[:2000]))
        return None


def figures(d):
    return {f: d[f] for f in FIELDS}


def json_sizes(d):
    return {m: {low: n for low, n in d['sizes'][m]} for m in ('read', 'write')
            if d['sizes'][m]}


def check_json(t, what, js, want):
    """vt-profile --io --format json against the figures worked out from the events."""
    files, rows, sizes, ops, left_open = want
    if js is None:
        return
    t.eq((js['unmatched'], js['open_at_end']), (0, left_open),
         '%s: JSON: no operation end without its begin' % what)
    got = {(f['paradigm'], f['file']): figures(f) for f in js['files']}
    t.eq(got, files, '%s: JSON: per file the operations, bytes and time' % what)
    got = {(f['paradigm'], f['file'], p['process']): figures(p)
           for f in js['files'] for p in f['processes']}
    t.eq(got, rows, '%s: JSON: per file and process the same' % what)
    got = {(f['paradigm'], f['file']): json_sizes(f) for f in js['files']}
    t.eq({k: v for k, v in got.items() if v},
         {k: {m: c for m, c in v.items() if c} for k, v in sizes.items()},
         '%s: JSON: per file the request sizes in powers of two' % what)
    t.eq([(f['paradigm'], f['file']) for f in js['files']], sorted(files),
         '%s: JSON: files in order of paradigm and name' % what)
    durations = sorted((o[0] for o in ops), reverse=True)
    t.eq([o['time_ticks'] for o in js['slowest']], durations[:10],
         '%s: JSON: the 10 slowest operations\' durations, longest first' % what)
    byduration = collections.defaultdict(set)
    for o in ops:
        byduration[o[0]].add(o[1:])
    bad = [o for o in js['slowest'] if (o['op'], o['requested'], o['done'], o['paradigm'],
                                         o['file'], o['process']) not in byduration[o['time_ticks']]]
    t.eq(bad, [], '%s: JSON: each slowest operation is one of that duration '
         '(op, bytes requested and done, file, process)' % what)


def known_io(t, what, js):
    """io.c's own figures, as numbers."""
    if js is None:
        return
    f = {x['file']: x for x in js['files'] if x['paradigm'] == 'POSIX'}
    data = f.get('data.bin')
    # The program's pipe, and the harness's pipe on its stdout: the POSIX handle below the
    # ISOC stdout of its printf, opened once, with no POSIX operation of its own.
    pipes = [x for n, x in f.items() if re.match(r'^pipe:\[\d+\]$', n)]
    pipe = [x for x in pipes if x['reads'] or x['writes']]
    t.eq(sorted((x['reads'], x['writes'], x['opens']) for x in pipes if x not in pipe),
         [(0, 0, 1)], '%s: stdout\'s descriptor, a pipe: one handle, no POSIX operation' % what)
    t.eq(sorted(n for n in f if n != 'data.bin' and not n.startswith('pipe:')), [],
         '%s: only data.bin and the pipes' % what)
    t.eq(figures(data) if data else None,
         dict(figures(data or {f: 0 for f in FIELDS}), reads=7, writes=5, flushes=1, failed=0,
              opens=3, seeks=1, bytes_read=3820, bytes_written=3800),
         '%s: data.bin: 7 reads (3820 bytes), 5 writes (3800 bytes), 1 flush, 3 handles '
         'opened (2 opens, 1 dup), 1 seek' % what)
    if data:
        t.eq(json_sizes(data), {'read': {8: 1, 32: 1, 1024: 5}, 'write': {256: 2, 512: 3}},
             '%s: data.bin: request sizes 10 (8-15), 50 (32-63), 5 x 1024 (1024-2047) read; '
             '2 x 300 (256-511), 3 x 1000 and 500 (512-1023) written' % what)
    t.eq([(x['reads'], x['writes'], x['bytes_read'], x['bytes_written'], x['opens'])
          for x in pipe], [(1, 1, 5, 5, 2)],
         '%s: the pipe: 1 read and 1 write of 5 bytes, both ends opened' % what)


def check_csv_text(t, what, path, want):
    files, rows, _, ops, _ = want
    out = vt_profile(t, what, '--io', '--format', 'csv', '--top', '3', path)
    rec = list(csv.DictReader(io.StringIO(out)))
    got = {(r['paradigm'], r['file']): {f: int(r[f]) for f in FIELDS}
           for r in rec if r['section'] == 'file'}
    t.eq(got, files, '%s: CSV: the file rows' % what)
    got = {(r['paradigm'], r['file'], r['process']): {f: int(r[f]) for f in FIELDS}
           for r in rec if r['section'] == 'process'}
    t.eq(got, rows, '%s: CSV: the file and process rows' % what)
    t.eq([int(r['time_ticks']) for r in rec if r['section'] == 'slowest'],
         sorted((o[0] for o in ops), reverse=True)[:3], '%s: CSV: --top 3 slowest' % what)
    text = vt_profile(t, what, '--io', path)
    per_file = text.split('\nper file:\n', 1)[-1].split('\n\n', 1)[0]
    line = [l for l in per_file.splitlines() if l.split()[-1:] == ['data.bin']]
    t.eq([l.split()[1:9] for l in line], [['7', '5', '1', '0', '3', '1', '3820', '3800']],
         '%s: text: the per-file line of data.bin' % what)


class Dom:
    """What the tests read of the rendered page: tables' cells, elements' attributes."""

    def __init__(self, text):
        # the page's own script and data hold markup in strings: not what was rendered
        self.text = re.sub(r'<script\b.*?</script>', '', text, flags=re.S)

    def table(self, tid):
        m = re.search(r'<table id="%s"[^>]*>(.*?)</table>' % re.escape(tid), self.text, re.S)
        if not m:
            return None
        body = m.group(1).split('<tbody>', 1)[-1]
        return [[re.sub(r'<[^>]+>', '', c) for c in re.findall(r'<td[^>]*>(.*?)</td>', tr, re.S)]
                for tr in re.findall(r'<tr>(.*?)</tr>', body, re.S)]

    def elements(self, tag, cls):
        out = []
        for attrs in re.findall(r'<%s ([^>]*)>' % tag, self.text):
            a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
            if cls in a.get('class', '').split():
                out.append(a)
        return out


def chromium(t, what, d, args):
    cmd = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
           '--user-data-dir=' + os.path.join(d, 'profile'), '--enable-logging=stderr',
           '--v=0'] + args
    c = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors='replace', timeout=180, cwd=d)
    t.eq(c.returncode, 0, '%s: chromium exits 0' % what)
    console = [l for l in c.stderr.splitlines() if re.search(r':CONSOLE[:(]\d+\)?\]', l)]
    t.eq(console, [], '%s: nothing on the browser console (no script error)' % what)
    return c.stdout


def shot_colours(t, what, dom, attr):
    """The colours Chromium's screenshot of the page shows inside the box the page gives in
    attr of its body (page coordinates), with how many pixels of each."""
    m = re.search(r'<body [^>]*%s="(\d+),(\d+),(\d+),(\d+)"' % attr, dom.text)
    if not t.check(m, '%s: the page says where it drew (%s)' % (what, attr)):
        return {}
    box = [int(v) for v in m.groups()]
    d = os.path.dirname(dom.page)
    shot = os.path.join(d, attr + '.png')
    chromium(t, what + ' (screenshot)', d, ['--window-size=1400,%d' % (box[1] + box[3] + 40),
                                             '--screenshot=' + shot, 'file://' + dom.page])
    if not t.check(os.path.isfile(shot), '%s: screenshot written' % what):
        return {}
    _, _, rows = vtpng.pixels(shot)
    return vtpng.colours_in(rows, box)


def near(colours, rgb, tolerance=10):
    """Pixels of colours within tolerance of rgb in every channel."""
    return sum(n for c, n in colours.items()
               if all(abs(a - b) <= tolerance for a, b in zip(c, rgb)))


def render(t, what, trace):
    """vt-report's page of trace, as headless Chromium renders it (its DOM), with nothing on
    the browser's console."""
    d = t.newdir('report')
    page = os.path.join(d, 'report.html')
    p = subprocess.run([VT_REPORT, trace, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stderr), (0, ''), '%s: vt-report: status 0, nothing on stderr' % what)
    out = chromium(t, what, d, ['--window-size=1400,1000', '--dump-dom', 'file://' + page])
    dom = Dom(out)
    dom.page = page
    errors = re.search(r'<div id="errors">(.*?)</div>', out, re.S)
    t.eq(errors.group(1) if errors else None, '', '%s: the page shows no error' % what)
    return dom


def check_report_io(t, what, dom, want, screenshot=True):
    files, rows, sizes, ops, _ = want
    cells = dom.table('io-files') or []
    got = {(c[0], c[1]): dict(zip(FIELDS[:-1], map(int, c[2:10]))) for c in cells}
    t.eq(got, {k: {f: v[f] for f in FIELDS[:-1]} for k, v in files.items()},
         '%s: page: the per-file table, as rendered' % what)
    cells = dom.table('io-rows') or []
    got = {(c[0], c[1], c[3]): dict(zip(FIELDS[:-1], map(int, c[4:12]))) for c in cells}
    t.eq(got, {k: {f: v[f] for f in FIELDS[:-1]} for k, v in rows.items()},
         '%s: page: the per file and process table, as rendered' % what)
    bars = collections.defaultdict(dict)
    for svg in re.findall(r'<svg [^>]*class="io-sizes"[^>]*>.*?</svg>', dom.text, re.S):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', svg.split('>', 1)[0]))
        for bar in Dom(svg).elements('rect', 'io-size-bar'):
            bars[(a['data-paradigm'], a['data-file'])].setdefault(
                bar['data-mode'], {})[int(bar['data-low'])] = int(bar['data-count'])
    t.eq(dict(bars), {k: {m: c for m, c in v.items() if c} for k, v in sizes.items()},
         '%s: page: a bar per request size bucket, reads and writes, per file' % what)
    slow = dom.table('io-slowest') or []
    t.eq(len(slow), min(10, len(ops)), '%s: page: the 10 slowest operations listed' % what)
    if not screenshot:
        return
    seen = shot_colours(t, what, dom, 'data-io-sizes-box')
    t.check(near(seen, READ_BAR) > 100 and near(seen, WRITE_BAR) > 100,
            '%s: screenshot: the request size charts show read and write bars' % what,
            'read %d, write %d pixels' % (near(seen, READ_BAR), near(seen, WRITE_BAR)))


def check_memory(t, exe):
    what = 'mem.c'
    run = t.run(exe, env={'VT_MEMTRACE': 'yes'}, label='mem')
    t.eq(run.status, 0, '%s: exit status 0' % what)
    m = re.search(r'^allocs (\d+) high_water (\d+) now (-?\d+)$', run.stdout, re.M)
    if not t.check(m, '%s: the program printed its own figures' % what, run.stdout):
        return
    allocs, high, now = (int(x) for x in m.groups())
    asan = bool(os.environ.get('VT_TEST_PRELOAD'))
    if asan:
        t.note('%s: under ASan the program\'s malloc is not vt\'s: no memory counter' % what)
    tr = t.trace(run, what)
    dom = render(t, what, tr.path)
    got = {}
    with otf2.reader.open(tr.path) as reader:
        for loc, ev in reader.events:
            if type(ev).__name__ == 'Metric':
                m = ev.metric
                members = m.metric_class.members if hasattr(m, 'metric_class') else m.members
                for member, value in zip(members, ev.values):
                    got.setdefault(member.name, []).append((loc.group.name, value))
    if asan:
        t.eq(dom.table('memory'), [], '%s: under ASan, no memory row' % what)
        return
    t.eq((allocs, sorted(v for _, v in got.get('mem_high_water', []))), (11, [high]),
         '%s: python3-otf2 reads one high-water mark, the program\'s own' % what)
    proc = got['mem_high_water'][0][0] if got.get('mem_high_water') else None
    t.eq(dom.table('memory'), [[proc, '\u2013', str(high), str(allocs), str(now)]],
         '%s: page: the memory table: the process, its high-water mark %d, %d allocations, '
         '%d bytes still allocated' % (what, high, allocs, now))
    points = [(p['data-process'], int(p['data-bytes'])) for p in dom.elements('circle',
                                                                              'memory-point')]
    t.eq(points, [(proc, high)], '%s: page: the plot has the process\'s point at its '
         'high-water mark' % what)
    t.check(re.search(r'<svg [^>]*id="memory-svg"', dom.text), '%s: page: the plot is an SVG'
            % what)
    seen = shot_colours(t, what, dom, 'data-memory-box')
    t.check(near(seen, MEMORY_POINT) >= 5, '%s: screenshot: the plot shows the point' % what,
            '%d pixels of its colour' % near(seen, MEMORY_POINT))
    js = json.loads(vt_profile(t, what, '--memory', '--format', 'json', tr.path))
    t.eq([(p['high_water'], p['allocations'], p['allocated']) for p in js['processes']],
         [(high, allocs, now)], '%s: vt-profile --memory: the process\'s figures' % what)
    t.eq((js['attributed'], js['paths']), (0, []),
         '%s: vt-profile --memory: no call path (vt records the counters at the end only)'
         % what)


# Memory per call path, by hand: location A (Process 0) records the counters before each Enter
# and Leave (synchronous), location B (Process 1) none. (time, event, region, allocations,
# bytes allocated now, high-water mark)
MEM_EVENTS = [(0, 'E', 'main', 0, 0, 0), (10, 'E', 'compute', 2, 300, 300),
              (20, 'E', 'alloc', 5, 1300, 1300), (30, 'L', 'alloc', 9, 5300, 5300),
              (40, 'L', 'compute', 10, 5000, 5300), (50, 'E', 'alloc', 10, 5000, 5300),
              (60, 'L', 'alloc', 12, 5100, 5300), (70, 'L', 'main', 15, 200, 5300)]
# path: (calls, allocations incl, excl, net bytes incl, excl), in the order of the output
# (allocations excl, then bytes excl, largest first); main's second call is B's, not attributed
MEM_PATHS = [('main', 2, 15, 5, 200, -4600), ('main;compute;alloc', 1, 4, 4, 4000, 4000),
             ('main;compute', 1, 8, 4, 4700, 700), ('main;alloc', 1, 2, 2, 100, 100)]


def write_memory_trace(path):
    E, L = otf2.events.Enter, otf2.events.Leave
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        node = d.system_tree_node('node')
        procs = [d.location_group('Process %d' % i, system_tree_parent=node) for i in (0, 1)]
        members = [d.metric_member(n, value_type=vt, unit=u) for n, vt, u in (
            ('mem_allocations', otf2.Type.UINT64, '#'), ('mem_allocated', otf2.Type.INT64, 'bytes'),
            ('mem_high_water', otf2.Type.UINT64, 'bytes'))]
        cls = d.metric_class(members, occurrence=otf2.MetricOccurrence.SYNCHRONOUS_STRICT,
                             recorder_kind=otf2.RecorderKind.CPU)
        r = {n: d.region(n) for n in ('main', 'compute', 'alloc')}
        w = trace.event_writer('A', group=procs[0])
        for time, kind, name, allocs, now, high in MEM_EVENTS:
            w(otf2.events.Metric(time, cls, [allocs, now, high]))
            w((E if kind == 'E' else L)(time, r[name]))
        w = trace.event_writer('B', group=procs[1])
        w(E(0, r['main']))
        w(L(5, r['main']))


def check_memory_paths(t):
    what = 'memory by hand'
    d = os.path.join(t.newdir('memtrace'), 'trace')
    write_memory_trace(d)
    path = os.path.join(d, 'traces.otf2')
    js = json.loads(vt_profile(t, what, '--memory', '--format', 'json', path))
    t.eq(js['processes'], [{'process': 'Process 0', 'rank': None, 'allocations': 15,
                            'allocated': 200, 'high_water': 5300}],
         '%s: JSON: Process 0\'s last values (Process 1 has none)' % what)
    t.eq((js['attributed'], js['unattributed']), (4, 1),
         '%s: JSON: A\'s 4 activations attributed, B\'s one not' % what)
    t.eq([(p['path'], p['calls'], p['allocations_incl'], p['allocations_excl'],
           p['bytes_incl'], p['bytes_excl']) for p in js['paths']], MEM_PATHS,
         '%s: JSON: per call path the allocations and net bytes, inclusive and exclusive, '
         'most allocations first' % what)
    rec = list(csv.DictReader(io.StringIO(vt_profile(t, what, '--memory', '--format', 'csv',
                                                     '--top', '2', path))))
    t.eq([(r['path'], int(r['calls']), int(r['allocations_incl']), int(r['allocations_excl']),
           int(r['bytes_incl']), int(r['bytes_excl'])) for r in rec if r['section'] == 'path'],
         MEM_PATHS[:2], '%s: CSV: --top 2 paths' % what)
    text = vt_profile(t, what, '--memory', path).splitlines()
    t.eq([l.split() for l in text if l.endswith(' main;compute')], [['4', '8', '700', '4700', '1',
                                                                     'main;compute']],
         '%s: text: the row of main;compute' % what)


def check_many_files(t, exe):
    """many_files.c: 250 files; the page shows the 200 of the most time in I/O and says so."""
    what = 'many_files.c'
    run = t.run(exe, env={'VT_IOTRACE': 'yes'}, label='many')
    t.eq(run.status, 0, '%s: exit status 0' % what)
    tr = t.trace(run, what)
    files = expected(tr.path)[0]
    t.eq(sorted((f, v['writes'], v['bytes_written']) for (_, f), v in files.items()),
         [('f%03d' % i, 1, i + 1) for i in range(250)],
         '%s: python3-otf2: 250 files, file i written once with i + 1 bytes' % what)
    js = profile_json(t, what, tr.path)
    if js:
        t.eq(sorted((f['file'], f['writes'], f['bytes_written']) for f in js['files']),
             [('f%03d' % i, 1, i + 1) for i in range(250)], '%s: vt-profile --io: all 250 files'
             % what)
    dom = render(t, what, tr.path)
    most = sorted(files, key=lambda k: (-files[k]['time_ticks'], k))
    t.eq(sorted(tuple(c[:2]) for c in dom.table('io-files') or []), sorted(most[:200]),
         '%s: page: the 200 files of the most time in I/O' % what)
    t.eq(len(dom.table('io-rows') or []), 200, '%s: page: their 200 rows' % what)
    m = re.search(r'<p id="io-total">(.*?)</p><p class="note" id="io-left-out">(.*?)</p>',
                  dom.text, re.S)
    t.check(m and m.group(1).startswith('250 operations on 250 files: 0 bytes read (0 B), '
                                        '31375 bytes written') and
            'the 200 of 250 files and 200 of 250' in m.group(2),
            '%s: page: the totals of all 250 files, and a note of what is left out' % what,
            m.group(0) if m else dom.text[:300])


def check_mpi(t):
    what = 'mpi_io Open MPI np 2'
    vtmpi.require_runtime(OPENMPI)
    exe = vtmpi.compile(t, OPENMPI, 'mpi_io', [MPI_IO_C])
    run = vtmpi.mpirun(t, OPENMPI, 2, exe, args=['iosummary.dat'], env={'VT_IOTRACE': 'yes'})
    t.eq((run.status, len(run.lines)), (0, 2), '%s: status 0, one line per rank' % what)
    vtmpi.clean_run(t, run, what)
    tr, _ = vtmpi.trace(t, run, what)
    want = expected(tr.path)
    js = profile_json(t, what, tr.path)
    check_json(t, what, js, want)
    if js is None:
        return
    mpiio = {p['rank']: (p['writes'], p['bytes_written'], p['reads'], p['bytes_read'])
             for f in js['files'] if f['paradigm'] == 'MPI-IO' and f['file'] == 'iosummary.dat'
             for p in f['processes']}
    t.eq(mpiio, {0: (7, 76, 7, 76), 1: (7, 76, 7, 76)},
         '%s: MPI-IO on the data file: each rank 7 writes of 76 bytes in all, 7 reads of 76 '
         '(the read past the end: 0 bytes)' % what)
    posix = {p['rank']: p['bytes_written'] > 0 and p['bytes_read'] > 0
             for f in js['files'] if f['paradigm'] == 'POSIX' and
             f['file'].endswith('iosummary.dat') for p in f['processes']}
    t.eq(posix, {0: True, 1: True}, '%s: POSIX bytes written and read on the data file below '
         'MPI-IO, on both ranks' % what)
    dom = render(t, what, tr.path)
    check_report_io(t, what, dom, want, screenshot=False)  # io.c's is looked at


def body(t):
    vttest.require_otf2()
    exes = t.parallel(lambda s: t.compile(s[0], [s[1]], opt='-O0'),
                      [('io', IO_C), ('mem', MEM_C), ('many_files', 'many_files.c')])
    what = 'io.c'
    run = t.run(exes[0], env={'VT_IOTRACE': 'yes'}, label='io')
    t.eq(run.status, 0, '%s: exit status 0' % what)
    t.clean_run(run, what)
    tr = t.trace(run, what)
    want = expected(tr.path)
    js = profile_json(t, what, tr.path)
    check_json(t, what, js, want)
    known_io(t, what, js)
    check_csv_text(t, what, tr.path, want)
    dom = render(t, what, tr.path)
    check_report_io(t, what, dom, want)
    t.eq((dom.table('memory'), 'id="memory-none"' in dom.text), ([], True),
         '%s: page: no memory row without VT_MEMTRACE, a note instead' % what)
    p = subprocess.run([VT_PROFILE, '--io', '--memory', tr.path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    t.eq((p.returncode, p.stdout, p.stderr.count('\n'), '--io' in p.stderr and
          '--memory' in p.stderr), (2, '', 1, True),
         'vt-profile --io --memory: status 2, one line naming the options that exclude each other')
    check_memory(t, exes[1])
    check_memory_paths(t)
    check_many_files(t, exes[2])
    check_mpi(t)


vttest.main('iosummary', body)
