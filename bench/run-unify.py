#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unification benchmark: the reduction tree (VT_UNIFY=tree) against the gather at rank 0
(VT_UNIFY=gather), with real ranks of Open MPI (oversubscribed) running the small program
of test/e2e/mpi_unify, and with the unification code alone on simulated ranks
(unify-bench: 1k to 100k).

Real ranks: rank 0's own line (VT_VERBOSE=3) gives the time of the unification at
MPI_Finalize (the gather or the tree, rank 0's merge, the maps back) and the bytes of
definitions rank 0 received; rank 0's peak RSS comes from /usr/bin/time around rank 0.
The archive's files and directory entries are counted too (docs/dev/files-at-scale.md).

Usage: bench/run-unify.py BUILD_DIR [--ranks 4,16,64,128,256] [--sim 1000,10000,100000]
                          [--runs N] [--dir DIR]
Prints tables, writes JSON to bench/results/unify-<date>.json.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, '..', 'test', 'e2e', 'mpi_unify', 'unify.c')
MPIRUN = ['mpirun', '--allow-run-as-root', '--oversubscribe', '--bind-to', 'none',
          '--mca', 'mpi_yield_when_idle', '1']
SAID = re.compile(r'unification \((\w+)\) of (\d+) ranks: ([\d.]+) s, (\d+) bytes')
RANK0 = '''#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then
  exec /usr/bin/time -f 'rank0-maxrss-kb %M' -o "$RSS_OUT" "$@"
fi
exec "$@"
'''


def real(build, work, np, mode):
    gdir = tempfile.mkdtemp(prefix='%s%d-' % (mode, np), dir=work)
    env = dict(os.environ, VT_PFORM_GDIR=gdir, VT_UNIFY=mode, VT_VERBOSE='3',
               RSS_OUT=os.path.join(gdir, 'rss'))
    cmd = MPIRUN + ['-np', str(np)]
    for k in ('VT_PFORM_GDIR', 'VT_UNIFY', 'VT_VERBOSE', 'RSS_OUT'):
        cmd += ['-x', k]
    cmd += [os.path.join(work, 'rank0.sh'), os.path.join(work, 'unify')]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=3600)
    m = SAID.search(p.stderr)
    if not m:
        raise SystemExit('np %d %s: status %d\n%s' % (np, mode, p.returncode, p.stderr[-2000:]))
    if p.returncode:
        # the trace was written; at 256 ranks Open MPI here sometimes ends a rank badly
        # after MPI_Finalize: said, not hidden
        print('np %d %s: mpirun status %d after the trace was written'
              % (np, mode, p.returncode), flush=True)
    rss = int(open(os.path.join(gdir, 'rss')).read().split()[-1])
    arch = os.path.join(gdir, 'unify.vt')
    files = sum(len(f) for _, _, f in os.walk(arch))
    return {'secs': float(m.group(3)), 'root_bytes': int(m.group(4)), 'rank0_rss_kb': rss,
            'files': files + 1, 'entries': len(os.listdir(arch)), 'status': p.returncode}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--ranks', default='4,16,64,128,256')
    ap.add_argument('--sim', default='1000,10000,100000')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--dir', help='where the runs write (default: a new temporary folder)')
    a = ap.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix='vt-unify-')
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, 'rank0.sh'), 'w') as f:
        f.write(RANK0)
    os.chmod(os.path.join(work, 'rank0.sh'), 0o755)
    subprocess.run([os.path.join(a.build, 'vtcc', 'vtcc'), '-vt:cc', 'mpicc', '-O2', SRC, '-o',
                    os.path.join(work, 'unify')], check=True)
    results = {'real': [], 'sim': []}
    print('%6s %-7s %12s %14s %14s %7s %8s' % ('ranks', 'mode', 'unify s', 'bytes at 0',
                                                'rank0 RSS KB', 'files', 'entries'))
    for np in [int(x) for x in a.ranks.split(',')]:
        for mode in ('gather', 'tree'):
            runs = [real(a.build, work, np, mode) for _ in range(a.runs)]
            r = dict(runs[0], secs=statistics.median(x['secs'] for x in runs),
                     rank0_rss_kb=statistics.median(x['rank0_rss_kb'] for x in runs),
                     ranks=np, mode=mode)
            results['real'].append(r)
            print('%6d %-7s %12.3f %14d %14d %7d %8d' % (np, mode, r['secs'], r['root_bytes'],
                                                      r['rank0_rss_kb'], r['files'],
                                                      r['entries']), flush=True)
    bench = os.path.join(a.build, 'bench', 'unify-bench')
    for p in [int(x) for x in a.sim.split(',') if x]:
        out = subprocess.run(['/usr/bin/time', '-f', 'maxrss_kb=%M', bench, str(p)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, check=True)
        vals = dict(kv.split('=') for kv in (out.stdout + ' ' + out.stderr).split() if '=' in kv)
        results['sim'].append(vals)
        print(out.stdout.strip(), flush=True)
    os.makedirs(os.path.join(HERE, 'results'), exist_ok=True)
    path = os.path.join(HERE, 'results', 'unify-%s.json' % datetime.date.today().isoformat())
    with open(path, 'w') as f:
        json.dump(results, f, indent=1)
    print('written', path)


if __name__ == '__main__':
    main()
