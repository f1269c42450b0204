#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Ring mode's costs (docs/bench.md): the instructions a call costs the program's thread in
ring mode against the default file mode, with buffers that fill during the loop, and the
program's pause for a snapshot.

Usage: bench/run-ring.py BUILD_DIR [--calls N] [--buffer SIZE] [--ring SIZE] [--snaps K]

Instructions: bench/overhead.c built with BUILD_DIR/vtcc/vtcc (its default method) runs under
`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=main` with N and 2N calls,
VT_BUFFER_SIZE=SIZE (default 1M: a half fills every 32768 records, so the loop hands over
or keeps dozens of halves) and VT_MODE=file or ring (VT_RING_SIZE=--ring, default 4M).
(I(2N) - I(N)) / N is one iteration on the program's thread: the hooks, and each half's
hand-over (file: to the writer thread, which callgrind does not count here; ring: the
rotation and the replay of the half that leaves). The uninstrumented build's iteration is
subtracted. Instructions do not depend on the machine's load.

Snapshots: bench/ring-snap.c fills the ring (CALLS calls) and calls VT_USER_SNAPSHOT, K
times, for VT_RING_SIZE 16M and 64M; it prints how long each call kept the program (wall
clock, the fork: on a loaded machine this varies), and the run's wall time includes the
writing processes (they hold stderr until they end).

A job's snapshots (--np N, default 2; 0 leaves it out): ring-snap.c built with mpicc and
-DRING_SNAP_MPI runs on N ranks of Open MPI (oversubscribed), every rank asking at once
after a barrier; besides each rank's pause, rank 0 prints how long after its request the
job's archive NAME.snap-K.otf2 exists (the ranks' writing processes met, agreed on the
window and the cut messages, and wrote and unified it). Only the standard library is used.
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def env_of(**more):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('VT_') and k not in ('LD_LIBRARY_PATH', 'LD_PRELOAD')}
    env['LC_ALL'] = 'C'
    env.update(more)
    return env


def run(cmd, env, cwd):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        sys.exit('failed (%d): %s\n%s' % (p.returncode, ' '.join(cmd), p.stderr[-2000:]))
    return p


def instructions(exe, calls, env, work):
    """Instructions counted inside main (every thread that runs it: the program's)."""
    out = os.path.join(work, 'cg')
    for old in glob.glob(out + '.*'):
        os.remove(old)
    run(['valgrind', '--tool=callgrind', '--collect-atstart=no', '--toggle-collect=main',
         '--callgrind-out-file=%s.%%p' % out, exe, str(calls)], env, work)
    best = 0
    for path in glob.glob(out + '.*'):
        with open(path) as f:
            m = re.search(r'^(?:summary|totals):\s*(\d+)', f.read(), re.M)
        best = max(best, int(m.group(1)) if m else 0)
    return best


def per_call(exe, calls, env, work):
    return (instructions(exe, 2 * calls, env, work) - instructions(exe, calls, env, work)) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build')
    ap.add_argument('--calls', type=int, default=500000)
    ap.add_argument('--buffer', default='1M')
    ap.add_argument('--ring', default='4M')
    ap.add_argument('--snaps', type=int, default=5)
    ap.add_argument('--snap-calls', type=int, default=4000000)
    ap.add_argument('--np', type=int, default=2)
    args = ap.parse_args()
    vtcc = os.path.join(os.path.abspath(args.build), 'vtcc', 'vtcc')
    work = tempfile.mkdtemp(prefix='vt-ring-bench.')
    plain = os.path.join(work, 'overhead-plain')
    inst = os.path.join(work, 'overhead-vt')
    snap = os.path.join(work, 'ring-snap')
    run(['gcc', '-O2', '-o', plain, os.path.join(HERE, 'overhead.c')], env_of(), work)
    run([vtcc, '-O2', '-o', inst, os.path.join(HERE, 'overhead.c')], env_of(), work)
    run([vtcc, '-O2', '-o', snap, os.path.join(HERE, 'ring-snap.c')], env_of(), work)

    base = per_call(plain, args.calls, env_of(), work)
    print('instructions per call on the program\'s thread, %d and %d calls, '
          'VT_BUFFER_SIZE=%s (uninstrumented iteration %.2f subtracted)'
          % (args.calls, 2 * args.calls, args.buffer, base))
    for mode in ('file', 'ring'):
        env = env_of(VT_MODE=mode, VT_BUFFER_SIZE=args.buffer, VT_RING_SIZE=args.ring,
                     VT_PFORM_GDIR=work)
        added = per_call(inst, args.calls, env, work) - base
        print('  VT_MODE=%-4s %s: %.2f added per call'
              % (mode, 'VT_RING_SIZE=%s' % args.ring if mode == 'ring' else '', added))

    print('snapshot pause (VT_USER_SNAPSHOT, wall clock ms; %d calls before each)'
          % args.snap_calls)
    for ring in ('16M', '64M'):
        env = env_of(VT_MODE='ring', VT_RING_SIZE=ring, VT_PFORM_GDIR=work, VT_VERBOSE='0')
        t0 = time.monotonic()
        p = run([snap, str(args.snap_calls), str(args.snaps)], env, work)
        wall = time.monotonic() - t0
        pauses = [float(m) for m in re.findall(r'pause_ms=([0-9.]+)', p.stdout)]
        rcs = re.findall(r'rc=(-?\d+)', p.stdout)
        if len(pauses) != args.snaps or any(r != '0' for r in rcs):
            sys.exit('ring-snap: %s' % p.stdout)
        print('  VT_RING_SIZE=%s: pause median %.2f ms (min %.2f, max %.2f) over %d; '
              'run with its %d snapshots written: %.2f s'
              % (ring, statistics.median(pauses), min(pauses), max(pauses), len(pauses),
                 len(pauses), wall))
    if args.np > 0:
        job(vtcc, args, work)
    print('work directory: %s' % work)


def job(vtcc, args, work):
    exe = os.path.join(work, 'ring-snap-mpi')
    run([vtcc, '-vt:cc', 'mpicc', '-O2', '-DRING_SNAP_MPI', '-o', exe,
         os.path.join(HERE, 'ring-snap.c')], env_of(), work)
    print('a job\'s snapshot, %d ranks (Open MPI, oversubscribed; %d calls before each)'
          % (args.np, args.snap_calls))
    for ring in ('16M', '64M'):
        gdir = tempfile.mkdtemp(prefix='job-', dir=work)
        env = env_of(VT_MODE='ring', VT_RING_SIZE=ring, VT_PFORM_GDIR=gdir, VT_VERBOSE='0')
        fmt = os.path.join(gdir, 'ring-snap-mpi.vt.snap-%d.otf2')
        cmd = ['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', str(args.np)]
        for k in ('VT_MODE', 'VT_RING_SIZE', 'VT_PFORM_GDIR', 'VT_VERBOSE'):
            cmd += ['-x', k]
        p = run(cmd + [exe, str(args.snap_calls), str(args.snaps), fmt], env, work)
        pauses = [float(m) for m in re.findall(r'pause_ms=([0-9.]+)', p.stdout)]
        written = [float(m) for m in re.findall(r'written_ms=([0-9.]+)', p.stdout)]
        if len(written) != args.snaps or not all(
                os.path.exists(fmt % (k + 1)) for k in range(args.snaps)):
            sys.exit('ring-snap-mpi: %s' % p.stdout)
        print('  VT_RING_SIZE=%s: pause median %.2f ms (max %.2f) over %d; the job\'s '
              'archive written %.1f ms after the request (median; min %.1f, max %.1f)'
              % (ring, statistics.median(pauses), max(pauses), len(pauses),
                 statistics.median(written), min(written), max(written)))


if __name__ == '__main__':
    main()
