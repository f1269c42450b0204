#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The trace layer's reading speed and memory (tools/lib): a trace of N events is written by
vt itself (bench/overhead.c through the build tree's vtcc), then read by bench/read-bench
location by location and merged in time order, each --runs times; medians are reported with
the peak resident size. The trace is deleted at the end.

Usage: bench/run-read.py BUILD_DIR [--events 100000000] [--runs 3]
"""
import argparse
import os
import shutil
import statistics
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--events', type=int, default=100000000)
    ap.add_argument('--runs', type=int, default=3)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    reader = os.path.join(build, 'bench', 'read-bench')
    work = tempfile.mkdtemp(prefix='vt-bench-read.', dir=os.environ.get('TMPDIR', '/tmp'))
    try:
        exe = os.path.join(work, 'overhead')
        benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-O2', os.path.join(HERE, 'overhead.c'),
            '-o', exe])
        calls = args.events // 2
        print('writing a trace of ~%d events ...' % args.events, flush=True)
        out = benchlib.sh([exe, str(calls)],
                          env=dict(os.environ, VT_PFORM_GDIR=work, VT_VERBOSE='1'))
        anchor = os.path.join(work, 'overhead.vt.otf2')
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(work)
                   for f in fs if not f == 'overhead')
        print(out.strip().splitlines()[-1])
        print('trace: %.1f MB' % (size / 1e6))
        for mode in ('locations', 'merged'):
            runs = []
            for _ in range(args.runs):
                vals = benchlib.sh([reader, anchor, mode]).split()
                runs.append(dict(zip(vals[::2], vals[1::2])))
            med = lambda k: statistics.median(float(r[k]) for r in runs)
            print('%-9s events %d  %.2f s  %.1f M events/s  maxrss %.1f MiB (median of %d)'
                  % (mode, int(runs[0]['events']), med('seconds'), med('mev_per_s'),
                     med('maxrss_kib') / 1024, args.runs))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
