#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""vt-profile --waits's speed and memory: bench/waits-app.c, built with the build tree's vtcc
over mpicc, runs on --np ranks (Open MPI) and writes a trace of about --events events; then
`vt-profile --waits --format json` (to /dev/null) and, for comparison, the trace layer's merged
reading alone (bench/read-bench) and the flat profile (vt-profile's first pass, which --waits
makes too), and `vt-profile --critical-path --format json` (the same merged reading, keeping
every Enter and Leave for its backward walk) run --runs times each; medians of the wall and
CPU time, events per second and the peak resident size are reported. The trace is deleted at
the end. Then vt-profile-mpi --waits (Open MPI) on each process count of --par (mpirun
--oversubscribe), its output compared with vt-profile's: wall time and the CPU time of all its
processes (mpirun's children), medians, with the load average before each; then one run
with --stats: per process its peak RSS (getrusage), the records it sent, its exchanges and the
most records it held at once (--window sets the window, default vt-profile-mpi's).
--mode critical-path: vt-profile-mpi --critical-path instead (and vt-profile --critical-path
alone with --only-par), compared with vt-profile --critical-path; --mode mpi: vt-profile-mpi
--mpi (the MPI statistics on --waits' split matching), compared with vt-profile --mpi.

Usage: bench/run-waits.py BUILD_DIR [--events 10000000] [--runs 3] [--np 4] [--par 1,2,4]
                          [--window N] [--only-par] [--mode waits|critical-path|mpi]
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS_PER_ITER = 26.3  # per rank, measured with vt: 8,222,794 events for 78,125 iterations on 4


def measured(build, result, cmd):
    """wall s, CPU s, peak RSS MiB of cmd (its standard output to /dev/null)."""
    benchlib.sh([os.path.join(build, 'bench', 'bench-run'), result, '/bin/sh', '-c',
                 '"$0" "$@" > /dev/null'] + cmd)
    with open(result) as f:
        vals = dict(kv.split('=') for kv in f.read().split())
    if vals['exit'] != '0':
        sys.exit('failed: %s' % ' '.join(cmd))
    return int(vals['wall_ns']) / 1e9, int(vals['cpu_ns']) / 1e9, int(vals['maxrss_kib']) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--events', type=int, default=10000000)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--np', type=int, default=4)
    ap.add_argument('--par', default='1,2,4', help='process counts of vt-profile-mpi')
    ap.add_argument('--window', type=int, default=0, help="vt-profile-mpi's --window")
    ap.add_argument('--only-par', action='store_true',
                    help='vt-profile --waits (--mode) and vt-profile-mpi alone')
    ap.add_argument('--mode', choices=('waits', 'critical-path', 'mpi'), default='waits',
                    help="vt-profile-mpi's mode")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    work = tempfile.mkdtemp(prefix='vt-bench-waits.', dir=os.environ.get('TMPDIR', '/tmp'))
    try:
        exe = os.path.join(work, 'waits-app')
        benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-vt:cc', 'mpicc', '-O2',
                     os.path.join(HERE, 'waits-app.c'), '-o', exe])
        gdir = os.path.join(work, 'trace')
        os.makedirs(gdir)
        iters = int(args.events / args.np / EVENTS_PER_ITER)
        out = benchlib.sh(['mpirun', '--allow-run-as-root', '--oversubscribe', '-np',
                           str(args.np), '-x', 'VT_PFORM_GDIR', exe, str(iters)],
                          env=dict(os.environ, VT_PFORM_GDIR=gdir))
        line = [x for x in out.splitlines() if 'trace written' in x]
        print(line[-1] if line else out.strip().splitlines()[-1], flush=True)
        n = int(line[-1].split('(')[1].split()[0]) if line else 0
        anchor = os.path.join(gdir, 'waits-app.vt.otf2')
        result = os.path.join(work, 'result')
        profile = os.path.join(build, 'tools', 'vt-profile', 'vt-profile')
        mode = '--' + args.mode
        serial_only = (('vt-profile ' + mode, [profile, mode, '--format', 'json', anchor]),)
        for what, cmd in serial_only if args.only_par else (('read merged', [os.path.join(build, 'bench', 'read-bench'), anchor,
                                           'merged']),
                          ('vt-profile (flat)', [profile, '--format', 'json', anchor]),
                          ('vt-profile --waits', [profile, '--waits', '--format', 'json',
                                                  anchor]),
                          ('--critical-path', [profile, '--critical-path', '--format', 'json',
                                               anchor])):
            runs = [measured(build, result, cmd) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print('%-20s %9d events  wall %6.2f s (%5.2f M events/s)  CPU %6.2f s (%5.2f M '
                  'events/s)  peak RSS %.1f MiB (median of %d)'
                  % (what, n, wall, n / wall / 1e6, cpu, n / cpu / 1e6,
                     statistics.median(r[2] for r in runs), args.runs), flush=True)
        par = os.path.join(build, 'tools', 'vt-profile', 'vt-profile-mpi')
        serial = benchlib.sh([profile, mode, '--format', 'json', anchor], False)
        window = ['--window', str(args.window)] if args.window else []
        for np in [int(x) for x in args.par.split(',') if x] if os.path.exists(par) else []:
            cmd = ['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', str(np), par,
                   mode, '--format', 'json'] + window + [anchor]
            same = benchlib.sh(cmd, False) == serial
            load = os.getloadavg()[0]
            runs = [measured(build, result, cmd) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print('%-20s %9d events  wall %6.2f s (%5.2f M events/s)  CPU %6.2f s (all '
                  'processes)  peak RSS %.1f MiB (the largest process)  load %.1f  output %s '
                  '(median of %d)'
                  % ('vt-profile-mpi -np %d' % np, n, wall, n / wall / 1e6, cpu,
                     statistics.median(r[2] for r in runs), load,
                     'same' if same else 'DIFFERS', args.runs), flush=True)
            if np < 2:
                continue
            stats = benchlib.sh(cmd[:-1] + ['--stats', anchor])
            for m in sorted(re.findall(r'process (\d+) of \d+: (\d+) records sent in (\d+) '
                                       r'exchanges, at most (\d+) held at once, peak RSS '
                                       r'(\d+) KiB', stats)):
                print('    process %s: peak RSS %.1f MiB, %s records sent in %s exchanges, '
                      'at most %s held at once' % (m[0], int(m[4]) / 1024, m[1], m[2], m[3]),
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
