#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The trace-size workflow on the mini-app pattern (bench/score-app.c: accessors called tens
of millions of times inside real work): run time, events and trace size of the program
plain, traced whole, and traced with the filter vt-score proposes, applied at run time
(VT_FILTER_SPEC) and at compile time (vtcc -vt:filter). Medians of --runs runs.

Usage: bench/run-score.py BUILD_DIR [--runs N] [--scale K] [--cc CC]"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'score-app.c')


def run(cmd, env=None, cwd=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit('run-score: %s failed: %s' % (' '.join(cmd), p.stderr.strip()[-500:]))
    return dt, p


def size_of(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('build_dir')
    a.add_argument('--runs', type=int, default=5)
    a.add_argument('--cc', default='gcc')
    a.add_argument('--scale', type=int, default=5,
                   help='steps x100 (default 5: about 0.5 s plain, so vt\'s start and end '
                   '(about 30 ms) do not dominate)')
    args = a.parse_args()
    b = os.path.abspath(args.build_dir)
    vtcc = os.path.join(b, 'vtcc', 'vtcc')
    score = os.path.join(b, 'tools', 'vt-score', 'vt-score')
    work = tempfile.mkdtemp(prefix='vt-score-bench.')
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    env['VT_CC'] = args.cc
    exe = {'plain': os.path.join(work, 'plain'), 'vt': os.path.join(work, 'vt')}
    run([args.cc, '-O2', SRC, '-o', exe['plain']])
    run([vtcc, '-O2', SRC, '-o', exe['vt']], env=env)

    def timed(name, path, extra_env=None):
        times, events, size = [], None, None
        for i in range(args.runs):
            d = os.path.join(work, '%s-%d' % (name, i))
            os.makedirs(d)
            e = dict(env, VT_PFORM_GDIR=d, **(extra_env or {}))
            dt, p = run([path, str(args.scale)], env=e, cwd=d)
            times.append(dt)
            m = re.search(r'trace written to (\S+) \((\d+) events', p.stderr)
            if m:
                events = int(m.group(2))
                size = size_of(d)
        return statistics.median(times), events, size

    rows = [('plain', *timed('plain', exe['plain']))]
    rows.append(('vt, whole', *timed('whole', exe['vt'])))
    trace = os.path.join(work, 'whole-0', 'vt.vt.otf2')
    filt = os.path.join(work, 'proposed.filter')
    _, p = run([score, trace, '-o', filt])
    print(p.stdout)
    rows.append(('vt, VT_FILTER_SPEC', *timed('runtime', exe['vt'], {'VT_FILTER_SPEC': filt})))
    exe['ct'] = os.path.join(work, 'ct')
    run([vtcc, '-O2', '-vt:filter', filt, SRC, '-o', exe['ct']], env=env)
    rows.append(('vt, -vt:filter', *timed('ct', exe['ct'])))
    base = rows[0][1]
    print('%-22s %9s %8s %12s %12s' % ('variant', 'seconds', 'x plain', 'events', 'trace MB'))
    for name, t, ev, sz in rows:
        print('%-22s %9.3f %8.2f %12s %12s' % (name, t, t / base, ev if ev else '-',
                                              '%.1f' % (sz / 1e6) if sz else '-'))
    print('(medians of %d runs; target: with the filter within 1.3x of plain)' % args.runs)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
