#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The viewers' speed and memory: a trace of N events is written by vt itself (bench/overhead.c
through the build tree's vtcc: one location, Enter/Leave pairs), then vt-export (to a file,
to /dev/null: the tool without the file system, and gzip), vt-report and vt-profile
--call-tree / --mpi read it, each --runs times, under bench-run (wall time, CPU time, peak
resident size); medians are reported with events/s by wall and by CPU time, and the output's
size. With --baseline OTHER_BUILD, that build's vt-export and vt-report run on the same trace
too, alternating with this build's run by run, and the ratios are printed. The report is then
opened in headless Chromium: the time from the navigation's start to the first view drawn
(data-ready-ms), the page script's part of it (data-render-ms), and chromium's whole
--dump-dom run. The trace and the outputs are deleted at the end (outputs after each run:
a 100M-event export is several GB).

Usage: bench/run-viz.py BUILD_DIR [--events 1000000] [--runs 3] [--no-browser]
                        [--baseline OTHER_BUILD] [--only NAME,...] [--dir DIR]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))


def measured(build, work, cmd):
    """Runs cmd under bench-run; returns (wall s, cpu s, maxrss MiB)."""
    res = os.path.join(work, 'bench-run.txt')
    subprocess.run([os.path.join(build, 'bench', 'bench-run'), res] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(res) as f:
        kv = dict(x.split('=') for x in f.read().split())
    if int(kv['exit']) > 1:
        sys.exit('failed (%s): %s' % (kv['exit'], ' '.join(cmd)))
    return int(kv['wall_ns']) / 1e9, int(kv['cpu_ns']) / 1e9, int(kv['maxrss_kib']) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--events', type=int, default=1000000)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--no-browser', action='store_true')
    ap.add_argument('--baseline', help='another build whose vt-export and vt-report to compare')
    ap.add_argument('--only', help='comma-separated tool names to run (e.g. vt-export,vt-report)')
    ap.add_argument('--dir', default=os.environ.get('TMPDIR', '/tmp'),
                    help='where the trace and the outputs go (default $TMPDIR or /tmp)')
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    tools = os.path.join(build, 'tools')
    work = tempfile.mkdtemp(prefix='vt-bench-viz.', dir=args.dir)
    try:
        exe = os.path.join(work, 'overhead')
        benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-O2', os.path.join(HERE, 'overhead.c'),
            '-o', exe])
        print('writing a trace of ~%d events ...' % args.events, flush=True)
        out = benchlib.sh([exe, str(args.events // 2)], env=dict(os.environ, VT_PFORM_GDIR=work))
        m = re.search(r'trace written to \S+ \((\d+) events', out)
        events = int(m.group(1))
        anchor = os.path.join(work, 'overhead.vt.otf2')
        print('trace: %d events' % events)
        o = os.path.join(work, 'out')

        def variants(tools_dir, tag, o):
            exp = os.path.join(tools_dir, 'vt-export', 'vt-export')
            rep = os.path.join(tools_dir, 'vt-report', 'vt-report')
            prof = os.path.join(tools_dir, 'vt-profile', 'vt-profile')
            v = [('vt-export', [exp, anchor, '-o', o + '.json'], o + '.json'),
                 ('vt-export >/dev/null', [exp, anchor, '-o', '/dev/null'], None),
                 ('vt-export .gz', [exp, anchor, '-o', o + '.json.gz'], o + '.json.gz'),
                 ('vt-report', [rep, anchor, '-o', o + '.html'], o + '.html')]
            if tag == '':
                v += [('vt-profile --call-tree', [prof, '--call-tree', '-f', 'json', anchor],
                       None),
                      ('vt-profile --mpi', [prof, '--mpi', '-f', 'json', anchor], None)]
            if args.only:
                names = args.only.split(',')
                v = [x for x in v if x[0].split()[0] in names]
            return [(name + tag, cmd, out) for name, cmd, out in v]

        def one_run(cmd, output, sizes, name):
            # The tools never replace an existing output unasked (and a baseline build may
            # not know --force): the last run's goes first; the page stays for chromium.
            if output and os.path.exists(output):
                os.unlink(output)
            r = measured(build, work, cmd)
            if output:
                sizes[name] = os.path.getsize(output)
                if not output.endswith('.html'):
                    os.unlink(output)
            return r

        mine = variants(tools, '', o)
        base = variants(os.path.join(os.path.abspath(args.baseline), 'tools'),
                        ' (baseline)', o + '-baseline') if args.baseline else []
        base_of = {b[0]: b for b in base}
        results, sizes = {}, {}
        for name, cmd, output in mine:
            other = base_of.get(name + ' (baseline)')
            for _ in range(args.runs):  # alternating: both see the same load
                results.setdefault(name, []).append(one_run(cmd, output, sizes, name))
                if other:
                    results.setdefault(other[0], []).append(
                        one_run(other[1], other[2], sizes, other[0]))
        print('| tool | wall s | cpu s | M events/s (wall) | M events/s (cpu) | peak RSS MiB '
              '| output MB |')
        print('|---|---|---|---|---|---|---|')
        med = {}
        for name in results:
            runs = results[name]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = statistics.median(r[2] for r in runs)
            med[name] = (wall, cpu, rss)
            print('| %s | %.3f | %.3f | %.1f | %.1f | %.1f | %s |'
                  % (name, wall, cpu, events / wall / 1e6, events / cpu / 1e6, rss,
                     '%.1f' % (sizes[name] / 1e6) if name in sizes else '-'), flush=True)
        for name, _, _ in mine:
            b = name + ' (baseline)'
            if b in med:
                print('%s: baseline / this build: wall %.2fx, cpu %.2fx, output %s'
                      % (name, med[b][0] / med[name][0], med[b][1] / med[name][1],
                         '%.2fx' % (sizes[b] / sizes[name]) if name in sizes else '-'))
        page = o + '.html'
        if not args.no_browser and os.path.exists(page):
            renders, readies, walls = [], [], []
            for i in range(args.runs):
                t0 = time.monotonic()
                dom = benchlib.sh(['chromium', '--headless', '--no-sandbox', '--disable-gpu',
                          '--user-data-dir=' + os.path.join(work, 'chromium-%d' % i),
                          '--window-size=1400,1000', '--dump-dom', 'file://' + page])
                walls.append(time.monotonic() - t0)
                m = re.search(r'data-render-ms="(\d+)"', dom)
                renders.append(int(m.group(1)) if m else float('nan'))
                m = re.search(r'data-ready-ms="(\d+)"', dom)
                readies.append(int(m.group(1)) if m else float('nan'))
            print('chromium: first view drawn %d ms after the navigation began (its script: '
                  '%d ms; median of %d); the whole --dump-dom run, browser start and DOM '
                  'dump included, takes %.2f s' % (statistics.median(readies),
                                                   statistics.median(renders), args.runs,
                                                   statistics.median(walls)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
