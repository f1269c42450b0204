#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The viewers' speed and memory: a trace of N events is written by vt itself (bench/overhead.c
through the build tree's vtcc: one location, Enter/Leave pairs), then vt-export (plain and
gzip), vt-report and vt-profile --call-tree / --mpi read it, each --runs times, under
bench-run (wall time, CPU time, peak resident size); medians are reported with events/s.
The report is then opened in headless Chromium: the time from the navigation's start to the
first view drawn (data-ready-ms), the page script's part of it (data-render-ms), and
chromium's whole --dump-dom run. The trace is deleted at the end.

Usage: bench/run-viz.py BUILD_DIR [--events 1000000] [--runs 3] [--no-browser]
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

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if p.returncode != 0:
        sys.exit('failed (%d): %s\n%s%s' % (p.returncode, ' '.join(cmd), p.stdout, p.stderr))
    return p.stdout + p.stderr


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
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    tools = os.path.join(build, 'tools')
    work = tempfile.mkdtemp(prefix='vt-bench-viz.', dir=os.environ.get('TMPDIR', '/tmp'))
    try:
        exe = os.path.join(work, 'overhead')
        sh([os.path.join(build, 'vtcc', 'vtcc'), '-O2', os.path.join(HERE, 'overhead.c'),
            '-o', exe])
        print('writing a trace of ~%d events ...' % args.events, flush=True)
        out = sh([exe, str(args.events // 2)], env=dict(os.environ, VT_PFORM_GDIR=work))
        m = re.search(r'trace written to \S+ \((\d+) events', out)
        events = int(m.group(1))
        anchor = os.path.join(work, 'overhead.vt.otf2')
        print('trace: %d events' % events)
        o = os.path.join(work, 'out')
        variants = [
            ('vt-export', [os.path.join(tools, 'vt-export', 'vt-export'), anchor, '-o',
                           o + '.json'], o + '.json'),
            ('vt-export .gz', [os.path.join(tools, 'vt-export', 'vt-export'), anchor, '-o',
                               o + '.json.gz'], o + '.json.gz'),
            ('vt-report', [os.path.join(tools, 'vt-report', 'vt-report'), anchor, '-o',
                           o + '.html'], o + '.html'),
            ('vt-profile --call-tree', [os.path.join(tools, 'vt-profile', 'vt-profile'),
                                        '--call-tree', '-f', 'json', anchor], None),
            ('vt-profile --mpi', [os.path.join(tools, 'vt-profile', 'vt-profile'), '--mpi',
                                  '-f', 'json', anchor], None),
        ]
        print('| tool | wall s | cpu s | M events/s (wall) | peak RSS MiB | output MB |')
        print('|---|---|---|---|---|---|')
        for name, cmd, output in variants:
            runs = [measured(build, work, cmd) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = statistics.median(r[2] for r in runs)
            size = os.path.getsize(output) / 1e6 if output else 0
            print('| %s | %.3f | %.3f | %.1f | %.1f | %s |'
                  % (name, wall, cpu, events / wall / 1e6, rss,
                     '%.1f' % size if output else '-'), flush=True)
        if not args.no_browser:
            page = o + '.html'
            renders, readies, walls = [], [], []
            for i in range(args.runs):
                t0 = time.monotonic()
                dom = sh(['chromium', '--headless', '--no-sandbox', '--disable-gpu',
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
