#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What vt adds to a Kokkos kernel launch: bench/kokkos-launch.cpp (N launches of an empty
parallel_for of one element, built with g++ -O2 against Debian's Kokkos) without a tool and
with BUILD_DIR's libvt as Kokkos's tool (preloaded and named by KOKKOS_PROFILE_LIBRARY and
KOKKOS_TOOLS_LIBS, as vtrun does).

Usage: bench/run-kokkos.py BUILD_DIR [--runs R] [--launches N] [--no-callgrind]

Two figures per variant, neither a wall-clock time (the machine may be busy):
- CPU time: the child's user+system time (getrusage) of R runs of N launches, median, in ns
  per launch; "added" is the tool's median minus the median without a tool.
- instructions: callgrind with --toggle-collect on launches() only, with N/10 and 2N/10
  launches; (I(2n) - I(n)) / n is one launch, independent of anything done once.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_of(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(exe, n, env, work):
    out = os.path.join(work, 'cg.%d' % n)
    subprocess.run(['valgrind', '--tool=callgrind', '--collect-atstart=no',
                    '--toggle-collect=launches*', '--callgrind-out-file=' + out, exe, str(n)],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        for line in f:
            if line.startswith('summary:') or line.startswith('totals:'):
                return int(line.split()[1])
    raise RuntimeError('no totals in ' + out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--launches', type=int, default=200000)
    ap.add_argument('--no-callgrind', action='store_true')
    a = ap.parse_args()
    libvt = os.path.join(os.path.abspath(a.build), 'runtime', 'libvt.so')
    if not os.path.exists(libvt):
        sys.exit('run-kokkos: %s: no libvt.so (expected a built vt tree)' % a.build)
    work = tempfile.mkdtemp(prefix='vt-bench-kokkos.')
    exe = os.path.join(work, 'launch')
    subprocess.run(['g++', '-O2', os.path.join(HERE, 'kokkos-launch.cpp'), '-o', exe,
                    '-I/usr/include/trilinos', '-ltrilinos_kokkoscore'], check=True)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith('VT_') and not k.startswith('KOKKOS_')}
    base['VT_PFORM_GDIR'] = work
    tool = dict(base, LD_PRELOAD=libvt, KOKKOS_PROFILE_LIBRARY=libvt, KOKKOS_TOOLS_LIBS=libvt,
                VT_BUFFER_SIZE='1G')
    variants = [('no tool', base), ('vt', tool)]
    n = a.launches
    cpu = {}
    for name, env in variants:
        runs = [cpu_of([exe, str(n)], env) for _ in range(a.runs)]
        cpu[name] = statistics.median(runs) / n * 1e9
        print('%-8s CPU %8.1f ns/launch (median of %d runs of %d launches; min %.1f max %.1f)'
              % (name, cpu[name], a.runs, n, min(runs) / n * 1e9, max(runs) / n * 1e9))
    print('added    CPU %8.1f ns/launch' % (cpu['vt'] - cpu['no tool']))
    if not a.no_callgrind and shutil.which('valgrind'):
        m = max(n // 10, 1000)
        ins = {}
        for name, env in variants:
            i1, i2 = instructions(exe, m, env, work), instructions(exe, 2 * m, env, work)
            ins[name] = (i2 - i1) / m
            print('%-8s %8.1f instructions/launch (callgrind, %d and %d launches)'
                  % (name, ins[name], m, 2 * m))
        print('added    %8.1f instructions/launch' % (ins['vt'] - ins['no tool']))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
