#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What VT_PTHREAD adds per uncontended pthread_mutex_lock/unlock pair and per thread
create/join (bench/pthread-ops.c), against the plain program and with VT_PTHREAD=no.

Usage: bench/run-pthread.py BUILD_DIR [--runs R] [--pairs N] [--threads M]

The program is built plain (cc -O2 -pthread) and with BUILD_DIR/vtcc/vtcc -vt:inst none
(libvt linked, nothing instrumented: only the wrappers of pthread calls are at work). For
each of plain, VT_PTHREAD=no and VT_PTHREAD=yes: the instructions of one pair, counted by
callgrind inside lock_loop() as (I(2N) - I(N)) / N, so nothing done once counts; the
wall-clock nanoseconds per pair and microseconds per create/join, the median of R runs.
VT_BUFFER_SIZE=1G: nothing is flushed while the loop runs. Only the standard library.
"""
import argparse
import os
import statistics
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))


def run(exe, args, env, cwd):
    full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    full.update(env)
    return benchlib.sh([exe] + args, with_stderr=False, env=full, cwd=cwd)


def instructions(exe, n, env, cwd):
    out = os.path.join(cwd, 'cg.out')
    full = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    full.update(env)
    benchlib.sh(['valgrind', '--tool=callgrind', '--collect-atstart=no',
                 '--toggle-collect=lock_loop', '--callgrind-out-file=' + out, exe, 'lock',
                 str(n)], env=full, cwd=cwd)
    with open(out) as f:
        for line in f:
            if line.startswith('summary:') or line.startswith('totals:'):
                return int(line.split()[1])
    sys.exit('no totals in ' + out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--pairs', type=int, default=2000000)
    ap.add_argument('--threads', type=int, default=2000)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='vt-bench-pthread-')
    src = os.path.join(HERE, 'pthread-ops.c')
    plain = os.path.join(tmp, 'plain')
    vt = os.path.join(tmp, 'vt')
    benchlib.sh(['cc', '-O2', '-pthread', src, '-o', plain])
    benchlib.sh([os.path.join(a.build, 'vtcc', 'vtcc'), '-vt:inst', 'none', '-O2', '-pthread',
                 src, '-o', vt])
    variants = [('plain', plain, {}),
                ('VT_PTHREAD=no', vt, {'VT_PTHREAD': 'no'}),
                ('VT_PTHREAD=yes', vt, {'VT_PTHREAD': 'yes'})]
    n = 100000
    print('%-16s %14s %10s %12s %16s' % ('variant', 'instr/pair', 'added', 'ns/pair',
                                         'us/create+join'))
    base = None
    for name, exe, env in variants:
        env = dict(env, VT_BUFFER_SIZE='1G', VT_PFORM_GDIR=tmp, VT_VERBOSE='0')
        i1 = instructions(exe, n, env, tmp)
        i2 = instructions(exe, 2 * n, env, tmp)
        per = (i2 - i1) / n
        base = per if base is None else base
        ns = statistics.median(float(run(exe, ['lock', str(a.pairs)], env, tmp).split()[0])
                               for _ in range(a.runs))
        us = statistics.median(float(run(exe, ['create', str(a.threads)], env, tmp).split()[0])
                               for _ in range(a.runs))
        print('%-16s %14.1f %10.1f %12.2f %16.2f' % (name, per, per - base, ns, us))
    print('(median of %d runs; %d pairs, %d threads per run; build files in %s)'
          % (a.runs, a.pairs, a.threads, tmp))


if __name__ == '__main__':
    main()
