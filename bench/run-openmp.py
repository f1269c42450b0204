#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""OpenMP benchmark: what vt adds per parallel region, barrier, parallel for, task, lock and
critical section (bench/omp-costs.c), against the plain run on the same OpenMP runtime.

The program times each construct itself (ns per construct on the master thread) and is run
  - plain: clang -fopenmp (LLVM's libomp, no tool attached), and gcc -fopenmp (libgomp) for
    the other runtime's own cost;
  - under vtrun with VT_OPENMP=off, regions and all: the same binary, vt's OMPT tool alone
    (libvt preloaded; no function is instrumented);
  - built with vtcc (clang) and VT_OPENMP=all: OMPT and the compiler's function hooks on
    the outlined regions, what a user who replaced cc gets;
  - the floor of the technique: the plain binary with bench/ompt-null.c as its tool
    (OMP_TOOL_LIBRARIES), which registers the callbacks vt's tool registers for regions and
    for all, with empty bodies: libomp's own cost of a tool.
Per construct: ns each, the added ns over plain and the ratio to plain (the runtime's own
cost is the plain figure), and what vt adds over the floor. Medians of --runs runs, with
OMP_NUM_THREADS=--threads.

Usage: bench/run-openmp.py BUILD_DIR [--runs N] [--threads N] [--scale N] [--json FILE]"""

import argparse
import json
import os
import statistics
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'omp-costs.c')
NULL_TOOL = os.path.join(HERE, 'ompt-null.c')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--scale', type=int, default=1)
    ap.add_argument('--json')
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = tempfile.mkdtemp(prefix='vt-omp-')
    vtcc = os.path.join(build, 'vtcc', 'vtcc')
    vtrun = os.path.join(build, 'vtcc', 'vtrun')
    exes = {n: os.path.join(work, n) for n in ('clang', 'gcc', 'vtcc')}
    benchlib.sh(['clang', '-O2', '-fopenmp', SRC, '-o', exes['clang']])
    benchlib.sh(['gcc', '-O2', '-fopenmp', SRC, '-o', exes['gcc']])
    benchlib.sh([vtcc, '-vt:cc', 'clang', '-O2', '-fopenmp', SRC, '-o', exes['vtcc']])
    null = os.path.join(work, 'libomptnull.so')
    benchlib.sh(['clang', '-O2', '-shared', '-fPIC', NULL_TOOL, '-o', null])
    base = {k: v for k, v in os.environ.items() if not k.startswith(('VT_', 'OMP_'))}
    base['OMP_NUM_THREADS'] = str(a.threads)
    base['OMP_WAIT_POLICY'] = 'passive' if a.threads > os.cpu_count() else 'active'
    scale = [str(a.scale)]
    variants = [
        ('plain libgomp', [exes['gcc']] + scale, {}),
        ('plain libomp', [exes['clang']] + scale, {}),
        ('vtrun off', [vtrun, exes['clang']] + scale, {'VT_OPENMP': 'off'}),
        ('vtrun regions', [vtrun, exes['clang']] + scale, {'VT_OPENMP': 'regions'}),
        ('vtrun all', [vtrun, exes['clang']] + scale, {'VT_OPENMP': 'all'}),
        ('vtcc all', [exes['vtcc']] + scale, {'VT_OPENMP': 'all'}),
        ('floor regions', [exes['clang']] + scale,
         {'OMP_TOOL_LIBRARIES': null, 'OMPT_NULL_REGIONS': '1'}),
        ('floor all', [exes['clang']] + scale, {'OMP_TOOL_LIBRARIES': null}),
    ]
    runs = {name: [] for name, _, _ in variants}
    for r in range(a.runs):
        for name, cmd, env in variants:
            cwd = os.path.join(work, 'run-%d-%s' % (r, name.replace(' ', '-')))
            os.makedirs(cwd)
            runs[name].append(benchlib.costs(cmd, dict(base, **env), cwd))
        print('run %d of %d done' % (r + 1, a.runs), file=sys.stderr)
    med = {name: {c: statistics.median(x[c] for x in rs) for c in rs[0]}
           for name, rs in runs.items()}
    plain = med['plain libomp']
    print('OpenMP constructs, %d threads, ns each (median of %d runs); added = over plain '
          'libomp, ratio = to plain libomp' % (a.threads, a.runs))
    print('%-14s' % 'variant' + ''.join('%16s' % c for c in plain))
    for name, _, _ in variants:
        print('%-14s' % name + ''.join('%16.1f' % med[name][c] for c in plain))
    for name, _, _ in variants[2:]:
        print('%-14s' % ('+' + name[:13]) +
              ''.join('%9.0f (%4.2fx)' % (med[name][c] - plain[c], med[name][c] / plain[c])
                      for c in plain))
    print('vt over the floor (a tool with the same callbacks, empty): added ns (ratio)')
    for name, floor in (('vtrun regions', 'floor regions'), ('vtrun all', 'floor all')):
        f = med[floor]
        print('%-14s' % name + ''.join('%9.0f (%4.2fx)' % (med[name][c] - f[c],
                                                          med[name][c] / f[c]) for c in plain))
    print('compilers: %s; %s' % (benchlib.first_line(['clang', '--version']),
                                 benchlib.first_line(['gcc', '--version'])))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'threads': a.threads, 'runs': a.runs, 'scale': a.scale,
                       'median_ns': med}, f, indent=1)


if __name__ == '__main__':
    main()
