#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Short-lived threads (bench/threads-exit.c): the time from the end of main to the end of
the process (vt's finalisation: every location closed and its files written), per location,
at 1, 100 and 1000 threads that ran one after the other, and the process's virtual and
resident size after them, with vt and plain. Medians of --runs runs. The trace directory is
--dir (default: a fresh one under /tmp); file creation dominates on a disk file system, so
the figures are given for the directory's file system as it is.

Usage: bench/run-threads.py BUILD_DIR [--runs N] [--dir DIR]"""

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
COUNTS = (1, 100, 1000)


def one(exe, n, cwd):
    for f in os.listdir(cwd):
        p = os.path.join(cwd, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    p = subprocess.Popen([exe, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=cwd, env=env, universal_newlines=True)
    out, err = p.communicate()
    done = time.monotonic()
    if p.returncode != 0:
        sys.exit('run-threads: %s %d failed: %s' % (exe, n, err.strip()[-300:]))
    end = float(re.search(r'main end ([\d.]+)', out).group(1))
    vm = int(re.search(r'VmSize:\s+(\d+)', out).group(1))
    rss = int(re.search(r'VmRSS:\s+(\d+)', out).group(1))
    return done - end, vm, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--dir')
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='vt-threads-')
    cwd = a.dir or os.path.join(work, 'run')
    os.makedirs(cwd, exist_ok=True)
    vtcc = os.path.join(a.build, 'vtcc', 'vtcc')
    exes = {'vt': os.path.join(work, 'threads-vt'), 'plain': os.path.join(work, 'threads')}
    subprocess.run([vtcc, '-O2', '-pthread', SRC, '-o', exes['vt']], check=True)
    subprocess.run(['gcc', '-O2', '-pthread', SRC, '-o', exes['plain']], check=True)
    print('%-6s %7s %14s %14s %12s %12s' % ('', 'threads', 'exit ms', 'us/location',
                                           'VmSize MiB', 'VmRSS MiB'))
    for n in COUNTS:
        for name in ('plain', 'vt'):
            rs = [one(exes[name], n, cwd) for _ in range(a.runs)]
            t = statistics.median(r[0] for r in rs)
            vm = statistics.median(r[1] for r in rs) / 1024
            rss = statistics.median(r[2] for r in rs) / 1024
            print('%-6s %7d %14.2f %14.1f %12.0f %12.1f' % (name, n, t * 1e3,
                                                          t * 1e6 / (n + 1), vm, rss))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
