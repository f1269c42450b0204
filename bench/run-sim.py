#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""vt-sim's replay speed and memory: bench/sim-app.c, built with the build tree's vtcc over
mpicc, runs on 8 ranks (Open MPI) and writes traces of about --events events (and one of a
tenth of it, to show memory does not grow with the trace); vt-sim replays each with
identity and with ideal, --runs times; the median wall time, events per second (replay and
output writing together), the rates of the replay and of the writing alone (vt-sim -v) and
the peak resident size are reported, with the rate of reading the trace alone in merged
order (bench/read-bench) for comparison. Traces are deleted at the end.

--par 2,4: the larger trace again with vt-sim (identity, ideal, --explain-waits) and
vt-sim-mpi on each number of processes (Open MPI, oversubscribed, waiting ranks yielding):
the median wall time, each process's CPU time (user + system) and peak resident size
(/usr/bin/time around every process); --par-only skips the serial table above.

Usage: bench/run-sim.py BUILD_DIR [--events 10000000] [--runs 3] [--np 8] [--par 2,4]
                        [--par-only]
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
EVENTS_PER_ITER = 96.0  # measured with vt: 9,602,400 events for 100.4 planned per iteration


def measured(build, result, cmd, env=None):
    """wall s, peak RSS MiB, and vt-sim -v's replay and write rates (M events/s)."""
    text = benchlib.sh([os.path.join(build, 'bench', 'bench-run'), result] + cmd, env=env)
    with open(result) as f:
        vals = dict(kv.split('=') for kv in f.read().split())
    if vals['exit'] != '0':
        sys.exit('failed: %s' % ' '.join(cmd))
    m = re.search(r'replay: \d+ events in [\d.]+ s \(([\d.]+) M events/s\); write: [\d.]+ s '
                  r'\(([\d.]+) M events/s\)', text)
    return (int(vals['wall_ns']) / 1e9, int(vals['maxrss_kib']) / 1024,
            float(m.group(1)) if m else 0, float(m.group(2)) if m else 0)


def trace(build, work, exe, np_, events):
    gdir = os.path.join(work, 'trace-%d' % events)
    os.makedirs(gdir)
    iters = int(events / np_ / EVENTS_PER_ITER)
    out = benchlib.sh(['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', str(np_),
              '-x', 'VT_PFORM_GDIR', exe, str(iters)], env=dict(os.environ, VT_PFORM_GDIR=gdir))
    anchor = os.path.join(gdir, 'sim-app.vt.otf2')
    line = [x for x in out.splitlines() if 'trace written' in x]
    print(line[-1] if line else out.strip().splitlines()[-1], flush=True)
    n = int(line[-1].split('(')[1].split()[0]) if line else 0
    return anchor, n


RSS_WRAP = """#!/bin/sh
exec /usr/bin/time -f '%U %S %M' -o "$RSS_DIR/rss.$OMPI_COMM_WORLD_RANK" "$@"
"""


def par_rows(build, work, anchor, n, procs, runs, env):
    """vt-sim against vt-sim-mpi on each of procs: wall and per-process peak RSS."""
    vtsim = os.path.join(build, 'tools', 'vt-sim', 'vt-sim')
    vtpar = os.path.join(build, 'tools', 'vt-sim', 'vt-sim-mpi')
    wrap = os.path.join(work, 'rss.sh')
    with open(wrap, 'w') as f:
        f.write(RSS_WRAP)
    os.chmod(wrap, 0o755)
    out = os.path.join(work, 'par-out.otf2')
    # identity given by path: not split (vt-sim-mpi splits the replay for vt's own
    # simulators by name only), so the readers' path of the same program
    by_path = os.path.join(env['VT_SIM_PATH'], 'libvt-sim-identity.so')
    modes = (('identity', ['-s', 'identity', '-o', out, '-q']),
             ('id-path', ['-s', by_path, '-o', out, '-q']),
             ('ideal', ['-s', 'ideal', '-o', out, '-q']),
             ('explain', ['--explain-waits']))
    print('%-9s %-13s %9s %8s  %s' % ('', 'processes', 'events', 'wall s', 'CPU s / peak RSS '
                                       'MiB: process 0; the others'))
    for name, args in modes:
        for np_ in [1] + procs:
            walls, rss, cpu = [], [], []
            for _ in range(runs):
                rdir = tempfile.mkdtemp(dir=work)
                if np_ == 1:
                    cmd = [wrap, vtsim]
                else:
                    cmd = [shutil.which('mpirun'), '--allow-run-as-root', '--oversubscribe',
                           '--bind-to', 'none', '--mca', 'mpi_yield_when_idle', '1', '-np',
                           str(np_),
                           '-x', 'RSS_DIR', '-x', 'VT_SIM_PATH', wrap, vtpar]
                cmd += [anchor] + args if name != 'explain' else args + [anchor]
                w, _, _, _ = measured(build, os.path.join(work, 'result'), cmd,
                                      env=dict(env, RSS_DIR=rdir, OMPI_COMM_WORLD_RANK='0')
                                      if np_ == 1 else dict(env, RSS_DIR=rdir))
                walls.append(w)
                per, pcpu = [], []
                for k in range(np_):
                    with open(os.path.join(rdir, 'rss.%d' % k)) as f:
                        u, sy, m = f.read().split()[-3:]
                    per.append(int(m) / 1024)
                    pcpu.append(float(u) + float(sy))
                rss.append(per)
                cpu.append(pcpu)
                shutil.rmtree(rdir, ignore_errors=True)
                shutil.rmtree(out[:-5], ignore_errors=True)
                for ext in ('.otf2', '.def'):
                    if os.path.exists(out[:-5] + ext):
                        os.remove(out[:-5] + ext)
            med = ['%.2f / %.1f' % (statistics.median(c[k] for c in cpu),
                                    statistics.median(r[k] for r in rss)) for k in range(np_)]
            print('%-9s %-13s %9d %8.2f  %s%s' % (
                name, 'vt-sim' if np_ == 1 else 'vt-sim-mpi %d' % np_, n,
                statistics.median(walls), med[0], '; ' + ', '.join(med[1:]) if np_ > 1 else ''),
                flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--events', type=int, default=10000000)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--np', type=int, default=8)
    ap.add_argument('--par', default='', help='vt-sim-mpi on these numbers of processes')
    ap.add_argument('--par-only', action='store_true')
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    vtsim = os.path.join(build, 'tools', 'vt-sim', 'vt-sim')
    env = dict(os.environ, VT_SIM_PATH=os.path.join(build, 'samples', 'sim'))
    work = tempfile.mkdtemp(prefix='vt-bench-sim.', dir=os.environ.get('TMPDIR', '/tmp'))
    try:
        exe = os.path.join(work, 'sim-app')
        benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-vt:cc', 'mpicc', '-O2',
            os.path.join(HERE, 'sim-app.c'), '-o', exe])
        for events in (args.events // 10, args.events):
            if args.par_only and events != args.events:
                continue
            anchor, n = trace(build, work, exe, args.np, events)
            if args.par_only:
                break
            walls = []
            for _ in range(args.runs):
                vals = benchlib.sh([os.path.join(build, 'bench', 'read-bench'), anchor,
                                    'merged']).split()
                walls.append(float(dict(zip(vals[::2], vals[1::2]))['seconds']))
            print('%-9s %9d events  %7.2f s  %6.2f M events/s  (read merged, no output)'
                  % ('read', n, statistics.median(walls), n / statistics.median(walls) / 1e6))
            for sim in ('identity', 'ideal'):
                walls, rss, rep, wr = [], [], [], []
                for k in range(args.runs):
                    out = os.path.join(work, 'out-%s-%d.otf2' % (sim, k))
                    w, r, a, b = measured(build, os.path.join(work, 'result'),
                                          [vtsim, anchor, '-s', sim, '-o', out, '-q', '-v'],
                                          env=env)
                    walls.append(w)
                    rss.append(r)
                    rep.append(a)
                    wr.append(b)
                    shutil.rmtree(out[:-5], ignore_errors=True)
                    for ext in ('.otf2', '.def'):
                        os.remove(out[:-5] + ext)
                w = statistics.median(walls)
                print('%-9s %9d events  %7.2f s  %6.2f M events/s  (replay %.2f, write %.2f M '
                      'events/s)  peak RSS %.1f MiB (median of %d)'
                      % (sim, n, w, n / w / 1e6, statistics.median(rep), statistics.median(wr),
                         statistics.median(rss), args.runs), flush=True)
        if args.par:
            par_rows(build, work, anchor, n, [int(x) for x in args.par.split(',')], args.runs,
                     env)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
