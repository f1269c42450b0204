#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sampling benchmark: what one sample costs at stack depths 10, 20 and 50 (each unwinder),
against the floor of the technique, and the run-time overhead of 1 kHz sampling on a
CPU-bound program.

A plain program (bench/sample-depth.c) recurses to the depth and burns CPU in a leaf, under
vtrun with VT_SAMPLING=yes (wall-clock timer, 10 kHz; libunwind at 1 kHz, slower than
that period). Per sample:
  - vt's handler: the time vt measures inside its handler (VT_VERBOSE=2's line), from the
    first instruction to the last: unwinding, reserving, writing;
  - the floor: what the kernel takes to deliver a signal and return from it, measured by
    the same program taking SIGPROF from the same timer with a handler that only counts:
    its CPU time (user + system) less the plain program's, per signal;
  - whole: CPU time with vt's sampling less vtrun without sampling, per sample (includes
    encoding the samples and resolving their addresses at the end).
The overhead at 1 kHz is the work's own wall time (the program times it) with sampling
over the plain program's, beside the floor's the same way; vt's fixed start and end (mostly
resolving the sampled addresses with elfutils, libc's debug information included) apart;
and, where perf is installed, perf record's overhead on the same program at 1 kHz (no
signal at all: the timer interrupt and the kernel's unwinding alone).
Medians of --runs runs.

Usage: bench/run-sampling.py BUILD_DIR [--runs N] [--iters N]"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env):
    """(wall seconds, CPU seconds of the child and its threads, stdout)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    out = p.stdout.read()
    err = p.stderr.read()
    if status != 0:
        sys.exit('run-sampling: %s failed: %s' % (' '.join(cmd), err.strip()[-500:]))
    return wall, ru.ru_utime + ru.ru_stime, out, err


def handler_ns(err):
    """vt's figure: (samples, ns per sample in the handler) from its VT_VERBOSE=2 line."""
    m = re.search(r'sampling: (\d+) samples, \d+ while vt itself ran; (\d+) ns per sample', err)
    return (int(m.group(1)), int(m.group(2))) if m else (0, float('nan'))


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('build_dir')
    a.add_argument('--runs', type=int, default=5)
    a.add_argument('--iters', type=int, default=1000000000,
                   help='leaf iterations (default: about 2 s of CPU, so that vt\'s start '
                   'and end do not dominate the 1 kHz overhead)')
    args = a.parse_args()
    b = os.path.abspath(args.build_dir)
    vtrun = os.path.join(b, 'vtcc', 'vtrun')
    work = tempfile.mkdtemp(prefix='vt-sampling-bench.')
    exe = os.path.join(work, 'sample-depth')
    fp = os.path.join(work, 'fp', 'sample-depth')
    os.makedirs(os.path.dirname(fp))
    subprocess.run(['gcc', '-O1', '-g', os.path.join(HERE, 'sample-depth.c'), '-o', exe],
                   check=True)
    subprocess.run(['gcc', '-O1', '-g', '-fno-omit-frame-pointer',
                    os.path.join(HERE, 'sample-depth.c'), '-o', fp], check=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    base['VT_VERBOSE'] = '0'
    iters = str(args.iters)
    res = {'handler_ns': {}, 'whole_ns': {}, 'floor_ns': {}, 'overhead_1khz': {}}

    def vt_env(**kv):
        gdir = tempfile.mkdtemp(dir=work)
        e = dict(base, VT_PFORM_GDIR=gdir, VT_VERBOSE='2')
        e.update(kv)
        return e, gdir

    # The floor: signal delivery and return, per signal, at the same 10 kHz.
    floors = []
    for _ in range(args.runs):
        _, cpu0, _, _ = run([exe, '20', iters], base)
        _, cpu1, out, _ = run([exe, '20', iters, '100'], base)
        n = int(out.split()[1])
        floors.append((cpu1 - cpu0) / n * 1e9 if n else float('nan'))
    res['floor_ns'] = statistics.median(floors)
    print('floor: a signal delivered and returned from (empty handler, 10 kHz): %.0f ns '
          '(median of %d)\n' % (res['floor_ns'], args.runs))

    print('per sample (median of %d runs): vt\'s handler, and vt\'s whole cost (CPU time '
          'with sampling - without, / samples)' % args.runs)
    print('%-10s %6s %9s %12s %10s %10s' % ('unwinder', 'depth', 'period', 'handler ns',
                                           'whole ns', 'samples'))
    for unwind, prog, period in (('cfi', exe, '100us'), ('fp', fp, '100us'),
                                 ('libunwind', exe, '1ms')):
        for depth in (10, 20, 50):
            hs, ws, counts = [], [], []
            for _ in range(args.runs):
                e, _ = vt_env(VT_SAMPLING='no')
                _, cpu0, _, _ = run([vtrun, prog, str(depth), iters], e)
                e, _ = vt_env(VT_SAMPLING='yes', VT_SAMPLING_PERIOD=period,
                              VT_SAMPLING_SOURCE='wall', VT_SAMPLING_UNWIND=unwind)
                _, cpu1, _, err = run([vtrun, prog, str(depth), iters], e)
                n, ns = handler_ns(err)
                counts.append(n)
                hs.append(ns)
                ws.append((cpu1 - cpu0) / n * 1e9 if n else float('nan'))
            key = '%s/%d' % (unwind, depth)
            res['handler_ns'][key] = statistics.median(hs)
            res['whole_ns'][key] = statistics.median(ws)
            print('%-10s %6d %9s %12.0f %10.0f %10d' % (unwind, depth, period,
                                                       res['handler_ns'][key],
                                                       res['whole_ns'][key],
                                                       statistics.median(counts)))

    print('\noverhead of 1 kHz sampling (cpu time source), depth 20, median of %d: the '
          'work\'s own wall time over the plain program\'s; the floor (an empty handler at '
          '1 kHz) the same way; vt\'s start and end (wall time of the run less the work\'s)'
          % args.runs)
    print('%-10s %10s %10s %12s' % ('', 'overhead', 'floor', 'start+end s'))
    for unwind in ('cfi', 'fp'):
        prog = fp if unwind == 'fp' else exe
        ratios, floors, ends = [], [], []
        for _ in range(args.runs):
            _, _, out, _ = run([prog, '20', iters], base)
            plain = float(out.split()[2])
            _, _, out, _ = run([prog, '20', iters, '1000'], base)
            floors.append(float(out.split()[2]) / plain)
            e, _ = vt_env(VT_SAMPLING='yes', VT_SAMPLING_PERIOD='1ms',
                          VT_SAMPLING_UNWIND=unwind)
            wall, _, out, _ = run([vtrun, prog, '20', iters], e)
            work_s = float(out.split()[2])
            ratios.append(work_s / plain)
            ends.append(wall - work_s)
        med = statistics.median(ratios)
        res['overhead_1khz'][unwind] = {'ratio': med, 'floor': statistics.median(floors),
                                        'start_end_s': statistics.median(ends)}
        print('%-10s %+9.2f%% %+9.2f%% %12.3f' % (unwind, (med - 1) * 100,
                                                 (statistics.median(floors) - 1) * 100,
                                                 statistics.median(ends)))
    # A second witness of the floor, without any signal: the kernel's own sampler (perf
    # record, cpu-clock at 1 kHz with call chains, written to a ring buffer and drained by
    # another process) costs the program the timer interrupts and the kernel's unwinding.
    perf = shutil.which('perf')
    if perf:
        ratios = []
        for _ in range(args.runs):
            _, _, out, _ = run([fp, '20', iters], base)
            plain = float(out.split()[2])
            _, _, out, _ = run([perf, 'record', '-q', '-e', 'cpu-clock', '-F', '1000', '-g',
                                '-o', os.path.join(work, 'perf.data'), fp, '20', iters], base)
            ratios.append(float(out.split()[2]) / plain)
        res['overhead_1khz']['perf-record'] = {'ratio': statistics.median(ratios)}
        print('%-10s %+9.2f%%   (perf record -e cpu-clock -F 1000 -g, no vt)'
              % ('perf', (statistics.median(ratios) - 1) * 100))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(HERE, 'results'), exist_ok=True)
    out = os.path.join(HERE, 'results', 'sampling-%s.json' % time.strftime('%Y%m%d-%H%M%S'))
    json.dump(res, open(out, 'w'), indent=1)
    print('\nresults written to %s' % out)


if __name__ == '__main__':
    main()
