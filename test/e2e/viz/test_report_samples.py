# SPDX-License-Identifier: BSD-3-Clause
"""vt-report's flame graph of calling-context samples, opened by headless Chromium.
The sampling test's split.c (built without vt, gcc -g -O1) runs under `vtrun -vt:sampling yes`
on two threads; heavy() does three times light()'s work by construction. In the rendered DOM:
a frame per call path of functions whose sample counts (at and below, and own) are those
python3-otf2 counts from the trace's samples and those of `vt-profile --samples` for the same
path; the root holds every sample python3-otf2 reads; each frame's children fit in it
(counts and x ranges) and the own samples of all frames add up to every sample; heavy's and
light's widths have the ratio of their counts (about 3); titles name function, line and
count; a click on heavy zooms it to full width with its ancestors, the reset control goes
back; --min-share 20 folds light into an (other) frame with its count; each thread has its own
graph with its own counts, drawn when picked in the selector; a screenshot is drawn where the
graph is; no script error."""
import collections
import json
import os
import re
import subprocess

import vtsamples
import vttest
from test_report import CHROMIUM, VT_REPORT, Dom, chromium, page_data, png_pixels

VTRUN = os.path.join(os.path.dirname(vttest.VTCC), 'vtrun')


class FlameDom(Dom):
    """Dom, plus the text of each flame frame's <title>."""

    def __init__(self, text):
        self._frame = None
        self._in_title = False
        super().__init__(text)

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        e = self.elements[-1]
        if tag == 'rect' and 'flame-frame' in (e.get('class') or '').split():
            self._frame = e
            e['<title>'] = ''
        self._in_title = tag == 'title' and self._frame is not None

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if tag == 'title':
            self._in_title = False
        elif tag == 'rect':
            self._frame = None

    def handle_data(self, data):
        super().handle_data(data)
        if self._in_title:
            self._frame['<title>'] += data

    def frames(self):
        return self.with_class('rect', 'flame-frame')


def path_counts(samples):
    """{path 'a;b;c': (samples at and below, samples with c innermost)} of samples."""
    total, own = collections.Counter(), collections.Counter()
    for s in samples:
        names = s.names
        for i in range(1, len(names) + 1):
            total[';'.join(names[:i])] += 1
        if names:
            own[';'.join(names)] += 1
    return {p: (n, own[p]) for p, n in total.items()}


def profile_paths(doc):
    """vt-profile --samples --format json's contexts summed per path of functions."""
    ctx = {c['id']: c for c in doc['contexts']}
    out = collections.defaultdict(lambda: [0, 0])

    def path(c):
        names = []
        while c is not None:
            names.append(ctx[c]['function'])
            c = ctx[c]['parent']
        return ';'.join(reversed(names))
    for c in doc['contexts']:
        if c['total']:
            p = path(c['id'])
            out[p][0] += c['total']
            out[p][1] += c['self']
    return {p: tuple(v) for p, v in out.items()}


def check_tree(t, frames, total, what):
    """Children fit in their parents (counts and x ranges) and own samples add up to all."""
    by_id = {int(f['data-id']): f for f in frames}
    kids = collections.defaultdict(list)
    for f in frames:
        if int(f['data-parent']) >= 0:
            kids[int(f['data-parent'])].append(f)
    bad = []
    for i, f in by_id.items():
        n, own = int(f['data-count']), int(f['data-self'])
        below = sum(int(k['data-count']) for k in kids[i])
        x0, x1 = float(f['x']), float(f['x']) + float(f['width'])
        inside = all(x0 - 0.02 <= float(k['x']) and
                     float(k['x']) + float(k['width']) <= x1 + 0.02 for k in kids[i])
        if below > n or n - below != own or not inside:
            bad.append((f['data-path'], n, own, below, inside))
    t.eq(bad, [], '%s: children within their parent: counts (own = count - children\'s) and '
         'x ranges' % what)
    t.eq(sum(int(f['data-self']) for f in frames), total,
         '%s: the frames\' own samples add up to every sample (%d)' % (what, total))


def body(t):
    if not t.check(os.access(CHROMIUM, os.X_OK), 'chromium installed (scripts/install-deps.sh)'):
        return
    split = os.path.join(t.src, '..', 'sampling', 'split.c')
    exe = t.compile('split', [split], opt='-O1', flags=['-g', '-pthread'], instrument=False)
    # VT_PTHREAD=no: the program's pthread calls would be its only regions, and this trace
    # is the one without any (the load per rank's note below).
    run = t.run(VTRUN, args=['-vt:sampling', 'yes', '-vt:sampling-period', '1ms', exe, '300',
                             'threads'], env={'VT_PTHREAD': 'no'}, label='split', timeout=180)
    t.eq((run.status, run.stdout), (0, 'done 300\n'), 'split under vtrun: the program ran')
    t.clean_run(run, 'split')
    tr = t.trace(run, 'split', prefix='split.vt')
    s = vtsamples.read(tr.path)
    everything = [x for v in s.by_loc.values() for x in v]
    total = len(everything)
    t.check(total >= 800, 'python3-otf2: at least 800 samples on the two threads', str(total))
    want = path_counts(everything)
    p = subprocess.run([vttest.VT_PROFILE, '--samples', '--format', 'json', tr.path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    t.eq((p.returncode, p.stderr), (0, ''), 'vt-profile --samples --format json runs cleanly')
    prof = profile_paths(json.loads(p.stdout)) if p.returncode == 0 else {}

    d = t.newdir('report')
    page = os.path.join(d, 'report.html')
    p = subprocess.run([VT_REPORT, tr.path, '-o', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    t.eq((p.returncode, p.stdout, p.stderr), (0, '', ''), 'vt-report: exit 0, nothing printed')
    data = page_data(page)
    url = 'file://' + page
    dom = FlameDom(chromium(t, ['--dump-dom'], url, 'flame graph'))
    t.eq(dom.find('body', data_ready='1') != [], True, 'the script ran to its end')
    t.eq(dom.errors_text.strip(), '', 'no error caught by the page')
    t.eq(len(dom.find('section', id='samples-section')), 1, 'a Samples section')
    t.eq(len(dom.find('svg', id='flame-svg')), 1, 'a flame graph')
    frames = dom.frames()
    roots = [f for f in frames if f['data-depth'] == '0']
    t.eq([(r['data-name'], int(r['data-count'])) for r in roots], [('all samples', total)],
         'the root frame holds every sample python3-otf2 reads (%d)' % total)
    width = float(roots[0]['width']) if roots else 0
    # The menu's link to the Samples section, and the load per rank's: a plain build under
    # vtrun has no regions, and that section says so and points there instead of empty bars.
    t.eq(len(dom.find('a', href='#samples-section')), 2,
         'the Samples section in the menu and in the note of the load per rank')
    t.eq((len(dom.find('p', id='load-none')), len(dom.find('rect', class_='load-bar'))), (1, 0),
         'load per rank: a note that nothing instrumented was recorded, no empty bars')

    # Every frame of a function: python3-otf2's and vt-profile's counts for its call path.
    drawn = {f['data-path']: (int(f['data-count']), int(f['data-self']))
             for f in frames if f['data-name'] not in ('all samples', '(other)')}
    t.eq({p: want.get(p) for p in drawn}, drawn,
         'each frame\'s samples (at and below, own) are python3-otf2\'s for its call path')
    t.eq({p: prof.get(p) for p in drawn}, drawn,
         'each frame\'s samples are vt-profile --samples\'s for the same call path')
    shown = {p: n for p, (n, _) in want.items() if n * 1000 >= total}
    t.eq(sorted(drawn), sorted(shown), 'a frame for every call path with at least 0.1%% of '
         'the samples, no other (%d)' % len(shown))
    others = [f for f in frames if f['data-name'] == '(other)']
    t.check(all(int(f['data-folded']) >= 1 and f['<title>'].startswith('(other)')
                for f in others), 'every (other) frame says how many paths it holds',
            repr(others[:2]))
    check_tree(t, frames, total, 'full view')

    work = {}
    for root in ('main', 'thread_main'):
        paths = [p for p in drawn if (';' + p).endswith(';%s;work;heavy' % root)]
        if not t.eq(len(paths), 1, 'one heavy frame below %s;work' % root):
            continue
        base = paths[0][:-len('heavy')]
        heavy = [f for f in frames if f['data-path'] == base + 'heavy'][0]
        light = [f for f in frames if f['data-path'] == base + 'light']
        if not t.eq(len(light), 1, 'one light frame below %s;work' % root):
            continue
        light = light[0]
        nh, nl = int(heavy['data-count']), int(light['data-count'])
        wh, wl = float(heavy['width']), float(light['width'])
        t.check(abs(wh / wl - nh / nl) <= 0.01 * nh / nl, '%s: heavy\'s and light\'s widths '
                'have the ratio of their samples' % root,
                'widths %.2f / %.2f, samples %d / %d' % (wh, wl, nh, nl))
        t.check(abs(wh - width * nh / total) <= 0.05, '%s: heavy\'s width is its share of the '
                'graph\'s' % root, '%.2f of %.2f for %d of %d' % (wh, width, nh, total))
        t.check(abs(100.0 * nh / (nh + nl) - 75) <= 5, '%s: heavy has 75%% +-5 of heavy and '
                'light\'s samples, by construction' % root, '%d and %d' % (nh, nl))
        hot = vttest.line_of(split, 'HEAVY LOOP')
        title = heavy['<title>'].split('\n')
        counted = [re.match(r'(\d+) samples, ([0-9.]+)%', l) for l in title]
        counted = [(int(m.group(1)), float(m.group(2))) for m in counted if m]
        t.check(title[0] == 'heavy' and any(l.startswith('split.c:%d' % hot) for l in title) and
                len(counted) == 1 and counted[0][0] == nh and
                abs(counted[0][1] - 100.0 * nh / total) <= 0.051,
                '%s: heavy\'s title: function, its loop\'s line, samples and percent' % root,
                repr(title))
        work[root] = base[:-1]

    # Zoom: the page clicks the first heavy frame (main's or thread_main's, the bigger
    # first), which becomes full width below its ancestors; the rest is not drawn.
    first = [f for f in frames if f['data-name'] == 'heavy'][:1]
    zoomed = FlameDom(chromium(t, ['--dump-dom'], url + '#flame=heavy', 'zoomed'))
    z = zoomed.frames()
    t.eq([b.get('data-flame-clicked') for b in zoomed.find('body')], ['1'],
         'zoomed: the page clicked a heavy frame')
    if first:
        path = first[0]['data-path']
        focus = [f for f in z if 'focus' in f['class'].split()]
        t.eq([(f['data-path'], float(f['x']), float(f['width'])) for f in focus],
             [(path, 0.0, width)], 'zoomed: heavy is full width')
        ancestors = sorted((int(f['data-depth']), f['data-path'], float(f['width'])) for f in z
                           if 'ancestor' in f['class'].split())
        parts = path.split(';')
        t.eq(ancestors, [(0, '', width)] + [(i + 1, ';'.join(parts[:i + 1]), width)
                                            for i in range(len(parts) - 1)],
             'zoomed: its ancestors full width above it')
        t.eq(len(z), len(parts) + 1, 'zoomed: nothing else drawn (heavy has no callee)')
    back = FlameDom(chromium(t, ['--dump-dom'], url + '#flame=heavy&reset', 'reset'))
    t.eq(sorted((f['data-path'], f['x'], f['width']) for f in back.frames()),
         sorted((f['data-path'], f['x'], f['width']) for f in frames),
         'reset zoom: the full graph again')

    # --min-share 20: light (an eighth of the samples on each thread) is folded into an
    # (other) frame below each work, with whatever else under 20% has the same parent (a
    # sample of main outside work on a loaded machine): one (other) per parent, saying how
    # many paths it holds and with their samples.
    folded = os.path.join(d, 'folded.html')
    p = subprocess.run([VT_REPORT, '--min-share', '20', tr.path, '-o', folded],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=120)
    t.eq((p.returncode, p.stdout, p.stderr), (0, '', ''), '--min-share 20: exit 0')
    fd = FlameDom(chromium(t, ['--dump-dom'], 'file://' + folded, '--min-share 20'))
    ff = fd.frames()
    got = sorted((f['data-path'], int(f['data-count']), f.get('data-folded'))
                 for f in ff if f['data-name'] == '(other)')
    kept = {p for p, (n, _) in want.items() if n * 5 >= total}  # at least 20%, rounded up
    t.eq([w + ';light' for w in work.values() if w in kept and w + ';light' not in kept],
         [w + ';light' for w in work.values()], '--min-share 20: each work kept, its light not')
    groups = collections.defaultdict(lambda: [0, 0])
    for path, (n, _) in want.items():
        parent = path.rpartition(';')[0]
        if n * 5 < total and (parent in kept or not parent):
            groups[parent][0] += n
            groups[parent][1] += 1
    want_other = sorted(((par + ';' if par else '') + '(other)', n, str(k))
                        for par, (n, k) in groups.items())
    t.eq(got, want_other, '--min-share 20: one (other) per parent of the paths under 20%, '
         'light below each work')
    t.eq(sorted(f['data-path'] for f in ff if f['data-name'] not in ('all samples', '(other)')),
         sorted(p for p, (n, _) in want.items() if n * 5 >= total),
         '--min-share 20: a frame for each path with at least 20% of the samples')
    check_tree(t, ff, total, '--min-share 20')

    # One graph per thread, with that thread's samples.
    locs = (data or {}).get('samples', {}).get('locations', [])
    names = [l['name'] for l in data['locations']] if data else []
    got = {}
    for l in locs:
        fr = l['frames']
        regions = data['regions']
        paths = {}
        for i, f in enumerate(fr):
            name = 'all samples' if f[1] == -1 else '(other)' if f[1] == -2 else regions[f[1]][0]
            paths[i] = '' if f[0] < 0 else name if f[0] == 0 else paths[f[0]] + ';' + name
        got[names[l['loc']]] = (l['total'], fr[0][2],
                                {paths[i]: (f[2], f[3]) for i, f in enumerate(fr)
                                 if f[1] >= 0})
    want_locs = {}
    for loc, samples in s.by_loc.items():
        counts = path_counts(samples)
        want_locs[loc] = (len(samples), len(samples),
                          {p: c for p, c in counts.items() if c[0] * 1000 >= len(samples)})
    t.eq(got, want_locs, 'per thread: a graph of its own samples, the counts python3-otf2 reads')
    options = [e for e in dom.elements if e['<tag>'] == 'option']
    t.eq(len(options), 1 + len(s.by_loc), 'a selector: all locations, and each thread')
    # The selector's second entry (the first thread): its graph is drawn, with its counts.
    if locs:
        first_loc = names[locs[0]['loc']]
        one = FlameDom(chromium(t, ['--dump-dom'], url + '#flameloc=1', 'one thread'))
        t.eq([b.get('data-flame-location') for b in one.find('body')], ['1'],
             'one thread: the page picked it in the selector')
        of = one.frames()
        t.eq(sorted((f['data-path'], int(f['data-count']), int(f['data-self']))
                    for f in of if f['data-name'] not in ('all samples', '(other)')),
             sorted((p, n, own) for p, (n, own) in path_counts(s.by_loc[first_loc]).items()
                    if n * 1000 >= len(s.by_loc[first_loc])),
             'one thread: its frames have the counts of its own samples (%s)' % first_loc)
        t.eq([int(f['data-count']) for f in of if f['data-depth'] == '0'],
             [len(s.by_loc[first_loc])], 'one thread: the root holds its samples')
        check_tree(t, of, len(s.by_loc[first_loc]), 'one thread')

    # A screenshot: the graph is drawn where the page says it is.
    boxes = [b.get('data-flame-box') for b in dom.find('body')]
    if not t.check(boxes and boxes[0], 'the page gives the flame graph\'s box'):
        return
    x, y, bw, bh = [int(v) for v in boxes[0].split(',')]
    shot = os.path.join(t.newdir('shot'), 'shot.png')
    chromium(t, ['--screenshot=' + shot], url, 'screenshot')
    if not t.check(os.path.isfile(shot), 'screenshot written'):
        return
    w, h, rows = png_pixels(shot)
    t.check(y + bh <= h, 'the flame graph is inside the screenshot', '%r in %dx%d' % (boxes, w, h))
    crop = [px for row in rows[y + 2:min(h, y + bh - 2)] for px in row[x + 2:min(w, x + bw - 2)]]
    drawn_px = [px for px in crop if px != (255, 255, 255)]
    t.check(crop and len(drawn_px) > len(crop) // 2, 'screenshot: the flame graph is drawn',
            '%d of %d pixels not white' % (len(drawn_px), len(crop)))
    t.check(len(set(drawn_px)) >= 5, 'screenshot: frames of several colours',
            '%d colours' % len(set(drawn_px)))


if __name__ == '__main__':
    vttest.main('viz_report_samples', body)
