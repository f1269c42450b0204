#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Short-lived threads (bench/threads-exit.c): per location, vt's finalisation (the time
from the end of main to the end of the process: every location closed and its files
written) and what vt adds to the threads' own run (each thread's event file is written when
it ends), at 1, 100 and 1000 threads that ran one after the other; the process's virtual and
resident size after them, with vt and plain; and the floor of OTF2's file-per-location layout
on the same directory: a program without threads or vt that creates, writes (one write) and
closes a location's files of the sizes vt wrote, one location after the other (`floor 2`:
event and local definition file; `floor 1`: one file, what finalisation writes per location;
`floor link`: one file, then a hard link per location). Medians of --runs runs; the variants
run in turn, each in the emptied directory, so that each finds the file system as the
others do (on an ext4 without a journal, an inode deleted in the last minutes is skipped by
the allocator, one look-up each: the creates of a run after a deletion pay for it).

Usage: bench/run-threads.py BUILD_DIR [--runs N] [--dir DIR] [--counts 1,100,1000]"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'threads-exit.c')


def empty(cwd):
    for f in os.listdir(cwd):
        p = os.path.join(cwd, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)


def one(exe, n, cwd):
    """(exit seconds, threads' run seconds, VmSize KiB, VmRSS KiB, file sizes by suffix)."""
    empty(cwd)
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    p = subprocess.Popen([exe, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=cwd, env=env, universal_newlines=True)
    out, err = p.communicate()
    done = time.monotonic()
    if p.returncode != 0:
        sys.exit('run-threads: %s %d failed: %s' % (exe, n, err.strip()[-300:]))
    end = float(re.search(r'main end ([\d.]+)', out).group(1))
    run = float(re.search(r'threads took ([\d.]+)', out).group(1))
    vm = int(re.search(r'VmSize:\s+(\d+)', out).group(1))
    rss = int(re.search(r'VmRSS:\s+(\d+)', out).group(1))
    sizes = {}
    for root, _, files in os.walk(cwd):
        for f in files:
            sizes.setdefault(os.path.splitext(f)[1], []).append(
                os.path.getsize(os.path.join(root, f)))
    return done - end, run, vm, rss, sizes


def floor(exe, mode, n, sizes, cwd):
    empty(cwd)
    out = subprocess.run([exe, mode, str(n)] + [str(s) for s in sizes], cwd=cwd, check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    return float(re.search(r'([\d.]+) us per location', out).group(1)) * 1e-6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--dir')
    ap.add_argument('--counts', default='1,100,1000')
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='vt-threads-')
    cwd = a.dir or os.path.join(work, 'run')
    os.makedirs(cwd, exist_ok=True)
    vtcc = os.path.join(a.build, 'vtcc', 'vtcc')
    exes = {'vt': os.path.join(work, 'threads-vt'), 'plain': os.path.join(work, 'threads')}
    subprocess.run([vtcc, '-O2', '-pthread', SRC, '-o', exes['vt']], check=True)
    subprocess.run(['gcc', '-O2', '-pthread', SRC, '-o', exes['plain']], check=True)
    print('directory %s' % cwd)
    print('%-10s %7s %10s %12s %14s %10s %10s' % ('', 'threads', 'exit ms', 'exit us/loc',
                                                 'run us/thread', 'VmSize MiB', 'VmRSS MiB'))
    for n in (int(c) for c in a.counts.split(',')):
        rs = {'plain': [], 'vt': [], 'floor 2': [], 'floor 1': [], 'floor link': []}
        for _ in range(a.runs):
            rs['plain'].append(one(exes['plain'], n, cwd))
            r = one(exes['vt'], n, cwd)
            rs['vt'].append(r)
            evt = statistics.median(r[4].get('.evt', [0]))
            loc_def = statistics.median(r[4].get('.def', [0]))
            rs['floor 2'].append(floor(exes['plain'], '--floor', n + 1, [evt, loc_def], cwd))
            rs['floor 1'].append(floor(exes['plain'], '--floor', n + 1, [loc_def], cwd))
            rs['floor link'].append(floor(exes['plain'], '--floor-link', n + 1, [loc_def],
                                          cwd))
        for name in ('plain', 'vt'):
            t = statistics.median(r[0] for r in rs[name])
            run = statistics.median(r[1] for r in rs[name])
            vm = statistics.median(r[2] for r in rs[name]) / 1024
            rss = statistics.median(r[3] for r in rs[name]) / 1024
            print('%-10s %7d %10.2f %12.1f %14.1f %10.0f %10.1f' % (
                name, n, t * 1e3, t * 1e6 / (n + 1), run * 1e6 / max(n, 1), vm, rss))
        for name in ('floor 2', 'floor 1', 'floor link'):
            t = statistics.median(rs[name])
            print('%-10s %7d %10.2f %12.1f' % (name, n, t * (n + 1) * 1e3, t * 1e6))
        sys.stdout.flush()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
