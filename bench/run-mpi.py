#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MPI benchmark: added time per MPI call (8-byte ping-pong, MPI_Allreduce,
MPI_Iallreduce + MPI_Wait, MPI_Put + MPI_Win_fence, MPI_File_write_at; traced vs not; traced
by a vtcc build or by vtrun in front of the plain build) on 2 ranks, MPI_Waitall over 64k
outstanding requests (posting and waiting), the request-heavy patterns (1000 Isend + 1000
Irecv + Waitall, osu_bw's at 1 byte, MPI_Get + MPI_Win_flush_local) traced/plain, and
MPI_Finalize time for 2 to 64 ranks. Open MPI, oversubscribed.

Usage: bench/run-mpi.py BUILD_DIR [--runs N] [--ranks 2,4,8,16,32,64] [--dir DIR]
                         [--only latency|finalize|callgrind]
--only callgrind: rank 0 runs under callgrind (plain and vtcc-traced, --iters 2000 is
plenty), and the instructions each timed pattern costs the program's thread (inclusive, the
writer thread not counted) are printed per operation: figures the shared machine's load does
not move.
--dir puts the programs and their traces in DIR (a tmpfs such as /dev/shm shows vt's own
cost; on this VM's ext4 creating a file costs 0.1-3 ms, see the short-lived threads).
Prints a table, writes JSON to bench/results/mpi-<date>.json.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = ['mpirun', '--allow-run-as-root', '--oversubscribe', '--bind-to', 'none',
          '--mca', 'mpi_yield_when_idle', '1']


def parse(out):
    vals = {}
    for line in out.split('\n'):
        parts = line.split()
        for k, v in zip(parts[::2], parts[1::2]):
            vals[k] = float(v)
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--ranks', default='2,4,8,16,32,64')
    ap.add_argument('--iters', type=int, default=20000)
    ap.add_argument('--traced-buffer', default='256M',
                    help='VT_BUFFER_SIZE of the "traced-nf" variant, large enough that '
                         'nothing is flushed during the timed loops (default 256M)')
    ap.add_argument('--dir', help='where the programs run and write their traces '
                    '(default: a new folder in the temporary directory)')
    ap.add_argument('--only', choices=('latency', 'finalize', 'callgrind'),
                    help='only the per-call figures, only MPI_Finalize, or only the '
                    'instructions per operation under callgrind')
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    work = tempfile.mkdtemp(prefix='vt-bench-mpi.', dir=args.dir)
    src = os.path.join(HERE, 'mpi-latency.c')
    plain, traced = os.path.join(work, 'plain'), os.path.join(work, 'traced')
    benchlib.sh(['mpicc', '-O2', src, '-o', plain])
    benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-vt:cc', 'mpicc', '-O2', src, '-o',
                 traced])
    env = dict(os.environ, VT_PFORM_GDIR=work, VT_VERBOSE='0')

    vtrun = os.path.join(build, 'vtcc', 'vtrun')

    def run(exe, np, iters, buffer=None, nreq=65536, pre=()):
        e = dict(env, VT_BUFFER_SIZE=buffer) if buffer else env
        fwd = ['-x', 'VT_BUFFER_SIZE'] if buffer else []
        return parse(benchlib.sh(MPIRUN + ['-x', 'VT_PFORM_GDIR', '-x', 'VT_VERBOSE'] + fwd
                                 + ['-np', str(np)] + list(pre) + [exe, str(iters), str(nreq)],
                                 with_stderr=False, env=e, cwd=work))

    if args.only == 'callgrind':
        res = {'callgrind': callgrind(args, work, env, plain, traced)}
        print_callgrind(args, res['callgrind'])
        save(res, work)
        return

    # traced: the default 8M buffer fills during the loops, and the background writer then
    # competes with the ranks for the 2 cores; traced-nf: nothing flushed in the loops (the
    # cost of recording alone).
    res = {'latency': {}, 'finalize': {}, 'dir': work}
    variants = (('plain', plain, None, ()), ('traced', traced, None, ()),
                ('traced-nf', traced, args.traced_buffer, ()),
                ('vtrun', plain, None, (vtrun,)),
                ('vtrun-nf', plain, args.traced_buffer, (vtrun,)))
    for name, exe, buf, pre in () if args.only == 'finalize' else variants:
        runs = [run(exe, 2, args.iters, buf, pre=pre) for _ in range(args.runs)]
        res['latency'][name] = {k: statistics.median(r[k] for r in runs)
                                for k in ('pingpong_us', 'allreduce_us', 'iallreduce_us',
                                          'putfence_us', 'writeat_us', 'post_s', 'waitall_s',
                                          'reqs_us', 'bw1_mbs', 'getflush_us')}
    for np in [] if args.only == 'latency' else [int(n) for n in args.ranks.split(',')]:
        res['finalize'][np] = {}
        for name, exe in (('plain', plain), ('traced', traced)):
            runs = [run(exe, np, 200, nreq=0) for _ in range(args.runs)]
            res['finalize'][np][name] = statistics.median(r['finalize_s'] for r in runs)

    lat = res['latency']
    if lat:
        print_latency(args, lat)
    if res['finalize']:
        print_finalize(args, res['finalize'])
    save(res, work)


# The timed patterns of mpi-latency.c: its function, and how many operations one run of the
# program makes it do at --iters N (ping-pong: round trips, twice; requests: 2000 a round).
PATTERNS = (('pingpong', 'round trip', lambda n: 2 * n),
            ('reqs_round', 'request (Isend/Irecv + Waitall)', lambda n: max(n // 100, 1) * 2000),
            ('bw1', '1-byte message (osu_bw)', lambda n: max(n // 10, 1) * 64),
            ('getflush', 'Get + flush_local', lambda n: max(n // 10, 1)))


def callgrind(args, work, env, plain, traced):
    """{variant: {pattern: instructions per operation}}: rank 0 under callgrind, the minimum
    of --runs runs (a rank that waits for the other polls: the fewest instructions are
    those that waited least)."""
    res = {}
    for name, exe, opt in (('plain', plain, ''), ('traced', traced, '')) * args.runs:
        out = os.path.join(work, 'cg.%s' % name)
        script = ('if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec valgrind -q --tool=callgrind '
                  '%s--callgrind-out-file=%s "$@"; else exec "$@"; fi' % (opt, out))
        e = dict(env, VT_BUFFER_SIZE=args.traced_buffer)
        benchlib.sh(MPIRUN + ['-x', 'VT_PFORM_GDIR', '-x', 'VT_VERBOSE', '-x', 'VT_BUFFER_SIZE',
                              '-np', '2', 'sh', '-c', script, 'sh', exe, str(args.iters), '0'],
                    with_stderr=False, env=e, cwd=work)
        ann = benchlib.sh(['callgrind_annotate', '--inclusive=yes', '--threshold=100', out],
                          with_stderr=False)
        res.setdefault(name, {})
        for line in ann.splitlines():
            # "1,234,567 (12.3%)  FILE:FUNCTION [OBJECT]"
            m = re.match(r'\s*([\d,]+)\s+(?:\([^)]*\)\s+)?\S*:(\w+)\s', line)
            for fn, _, ops in PATTERNS:
                if m and m.group(2) == fn:
                    v = float(m.group(1).replace(',', '')) / ops(args.iters)
                    res[name][fn] = min(v, res[name].get(fn, v))
    return res


def print_callgrind(args, cg):
    print('instructions of rank 0\'s program thread per operation (callgrind, --iters %d, '
          'VT_BUFFER_SIZE=%s, minimum of %d runs):' % (args.iters, args.traced_buffer, args.runs))
    print('%-34s %10s %10s %10s %8s' % ('', 'plain', 'traced', 'added', 'ratio'))
    for fn, label, _ in PATTERNS:
        p, t = cg['plain'].get(fn), cg['traced'].get(fn)
        if p is None or t is None:
            print('%-34s (not found in the profile)' % label)
            continue
        print('%-34s %10.0f %10.0f %10.0f %8.2f' % (label, p, t, t - p, t / p))


def save(res, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(HERE, 'results'), exist_ok=True)
    out = os.path.join(HERE, 'results',
                       'mpi-%s.json' % datetime.datetime.now().strftime('%Y%m%d-%H%M%S'))
    json.dump(res, open(out, 'w'), indent=1)
    print('\nresults written to %s' % out)


def print_latency(args, lat):
    print('8-byte operations on 2 ranks (median of %d runs, %d iterations):' % (args.runs,
                                                                          args.iters))
    print('%-12s %10s %10s %10s' % ('', 'plain us', 'traced us', 'added us'))
    for k, label in (('pingpong_us', 'ping-pong'), ('allreduce_us', 'allreduce'),
                     ('iallreduce_us', 'iallreduce'), ('putfence_us', 'put+fence'),
                     ('writeat_us', 'write_at')):
        p, t, nf = lat['plain'][k], lat['traced'][k], lat['traced-nf'][k]
        print('%-12s %10.3f %10.3f %10.3f   no flush in loop: %.3f (added %.3f)'
              % (label, p, t, t - p, nf, nf - p))
        v, vnf = lat['vtrun'][k], lat['vtrun-nf'][k]
        print('%-12s %10.3f %10.3f %10.3f   no flush in loop: %.3f (added %.3f)'
              % ('  vtrun', p, v, v - p, vnf, vnf - p))
    print('\n65536 outstanding requests on 2 ranks (rank 0: Irecvs; median of %d runs):'
          % args.runs)
    print('%-12s %10s %10s %10s' % ('', 'plain s', 'traced s', 'traced/plain'))
    for k, label in (('post_s', 'posting'), ('waitall_s', 'MPI_Waitall')):
        p, t = lat['plain'][k], lat['traced'][k]
        print('%-12s %10.4f %10.4f %10.2f' % (label, p, t, t / p if p else 0))
    print('\nrequest-heavy patterns on 2 ranks (median of %d runs; ratio traced/plain, '
          'nf: no flush in the loops):' % args.runs)
    print('%-34s %10s %10s %8s %8s' % ('', 'plain', 'traced', 'ratio', 'nf'))
    for k, label in (('reqs_us', '1000 Isend+Irecv + Waitall, us'),
                     ('bw1_mbs', 'osu_bw 1 byte, MB/s'),
                     ('getflush_us', 'Get + flush_local, us')):
        p, t, nf = lat['plain'][k], lat['traced'][k], lat['traced-nf'][k]
        # a bandwidth: plain/traced, so that every ratio is how much slower traced runs
        r, rnf = (p / t, p / nf) if k == 'bw1_mbs' else (t / p, nf / p)
        print('%-34s %10.3f %10.3f %8.2f %8.2f' % (label, p, t, r, rnf))


def print_finalize(args, fin):
    print('\nMPI_Finalize on rank 0 (median of %d runs; traced includes unification and '
          'writing):' % args.runs)
    print('%-6s %10s %10s %10s %14s' % ('ranks', 'plain s', 'traced s', 'added s',
                                         'added ms/rank'))
    for np, v in fin.items():
        print('%-6d %10.4f %10.4f %10.4f %14.2f' % (np, v['plain'], v['traced'],
                                                    v['traced'] - v['plain'],
                                                    (v['traced'] - v['plain']) / np * 1e3))


if __name__ == '__main__':
    main()
