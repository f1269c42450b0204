#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""I/O and memory benchmark: what vt adds per 1-byte write to /dev/null, per 1-byte read from
/dev/zero and per malloc/free pair (bench/io-costs.c), against the plain calls.

The program times each loop itself (ns per call) and is run
  - plain: cc -O2, no vt;
  - under vtrun with VT_IOTRACE=no and VT_MEMTRACE=no (the defaults): libvt's wrappers are
    there but report to nobody: the cost of the switches off;
  - under vtrun with VT_IOTRACE=yes: each call a region with its IoOperationBegin and
    IoOperationComplete (two events of two records, 64 bytes of buffer), flushes of the
    full buffers included;
  - the same with VT_BUFFER_SIZE=1G: nothing is flushed during the loops, so the figure is
    what the program's thread pays itself (the records written), without the encoding and
    writing of the trace that a flush waits for;
  - under vtrun with VT_MEMTRACE=yes: every allocation and free counted (two or three
    atomic operations and malloc_usable_size; no event).
Per operation, three columns: the program's own timing of each loop by the wall clock
(write, read, malloc-free), by its thread's CPU time (-cpu: what the calling thread spent,
which moves little with what else the machine runs) and by the process's CPU time (-proc:
vt's writer thread encoding meanwhile included); ns each, the added ns over plain, and the
ratio to plain. Medians of --runs runs.

A second table, the steady state: what vt adds per call once the thread's buffer has been
filled once and its flushing runs (IO_COSTS_WARM: each loop once untimed first), against the
plain program with an idle second thread (IO_COSTS_THREAD): Linux looks a descriptor up
without a reference count only in a single-threaded process, and vt's writer thread is a
second thread; in the first table that kernel cost counts as vt's, here it is split off.
'+thread' rows: the program has a thread of its own already (as MPI and OpenMP programs do).
'plain+unshared' is the plain program whose idle thread left the descriptor table
(IO_COSTS_THREAD=unshare): what the kernel charges once the table is one thread's again.

A third table, ISO C stdio (bench/stdio-costs.c): a 1-byte fwrite to /dev/null into the
stream's buffer, the same on an unbuffered stream (a write(2) each), a 1-byte fprintf; plain,
under vtrun with VT_IOTRACE=no and =yes, and =yes with a 1G buffer.

--callgrind adds instruction counts, which do not move with what else the machine runs:
each loop alone (io-costs COUNT OP) under valgrind's callgrind with libvt preloaded (what
vtrun does), with COUNT and 2*COUNT calls, the difference divided by COUNT:
  - thread: only the loop's function on the program's thread (--toggle-collect), with
    VT_BUFFER_SIZE=1G, so no flush;
  - all: the whole process, every thread: vt's writer thread encoding the events through
    libotf2 and the trace written at the end included (default buffer size);
  - rest: all - thread, what the recording costs off the loop (the encoding and writing,
    on the writer thread or at the end).

The programs, their traces and callgrind's files go to a work directory /tmp/vt-io-* (up to
1.5 GB), deleted at the end, also when a run fails or is interrupted; --keep keeps it (its
path is printed).

Usage: bench/run-io.py BUILD_DIR [--runs N] [--count N] [--json FILE] [--callgrind] [--keep]"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'io-costs.c')
STDIO_SRC = os.path.join(HERE, 'stdio-costs.c')


def table(title, variants, runs, count, work):
    """Runs each variant runs times (in turns): prints and returns its medians."""
    got = {name: [] for name, _, _ in variants}
    for r in range(runs):
        for name, cmd, env in variants:
            cwd = tempfile.mkdtemp(prefix='run-%d-%s-' % (r, name.replace(' ', '-')), dir=work)
            got[name].append(benchlib.costs(cmd + [str(count)], dict(env, VT_PFORM_GDIR=cwd),
                                            cwd))
        print('%s: run %d of %d done' % (title, r + 1, runs), file=sys.stderr)
    med = {name: {c: statistics.median(x[c] for x in rs) for c in rs[0]}
           for name, rs in got.items()}
    print_table('%s, %d calls per loop, ns per call (median of %d runs); added = over plain, '
                'ratio = to plain' % (title, count, runs), [v[0] for v in variants], med)
    return med


def print_table(title, names, med):
    """The medians of each variant (names[0] the plain one), then each other's addition
    over plain and ratio to it."""
    plain = med[names[0]]
    print(title)
    print('%-20s' % 'variant' + ''.join('%18s' % c for c in plain))
    for name in names:
        print('%-20s' % name + ''.join('%18.1f' % med[name][c] for c in plain))
    for name in names[1:]:
        print('%-20s' % ('+' + name) +
              ''.join('%10.1f (%4.2fx)' % (med[name][c] - plain[c], med[name][c] / plain[c])
                      for c in plain))


def stdio(a, vtrun, work, base):
    """The stdio table: fwrite and fprintf of 1 byte to /dev/null."""
    exe = os.path.join(work, 'stdio-costs')
    benchlib.sh(['cc', '-O2', STDIO_SRC, '-o', exe])
    variants = [
        ('plain', [exe], base),
        ('vtrun off', [vtrun, exe], dict(base, VT_IOTRACE='no')),
        ('vtrun iotrace=yes', [vtrun, exe], dict(base, VT_IOTRACE='yes')),
        ('iotrace=yes 1G buf', [vtrun, exe], dict(base, VT_IOTRACE='yes',
                                                  VT_BUFFER_SIZE='1G')),
    ]
    return table('ISO C stdio, 1 byte per call', variants, a.runs, a.count, work)


def steady(a, vtrun, exe, work, base):
    """The steady-state table: loops warmed, baseline a plain run with an idle thread."""
    warm = dict(base, IO_COSTS_WARM='1')
    thread = dict(warm, IO_COSTS_THREAD='1')
    variants = [
        ('plain+thread', [exe], thread),
        ('plain', [exe], warm),
        ('plain+unshared', [exe], dict(warm, IO_COSTS_THREAD='unshare')),
        ('iotrace=yes', [vtrun, exe], dict(warm, VT_IOTRACE='yes')),
        ('iotrace=yes+thread', [vtrun, exe], dict(thread, VT_IOTRACE='yes')),
    ]
    return table('POSIX I/O, steady state (loops warmed; added = over plain with an idle '
                 'thread)', variants, a.runs, a.count, work)


LOOPS = {'write': 'write_loop', 'read': 'read_loop', 'malloc-free': 'malloc_loop'}


def instructions(exe, n, op, env, cwd, whole):
    """Instructions callgrind counts for `exe n op`: the loop's function alone, or (whole)
    the process with all its threads."""
    out = os.path.join(cwd, 'cg.%d.out' % n)
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out]
    if not whole:
        cmd += ['--collect-atstart=no', '--toggle-collect=' + LOOPS[op]]
    benchlib.sh(cmd + [exe, str(n), op], env=env, cwd=cwd)
    with open(out) as f:
        for line in f:
            if line.startswith('summary:') or line.startswith('totals:'):
                return int(line.split()[1])
    raise SystemExit('no instruction count in %s' % out)


def callgrind(build, exe, base, work, count):
    """{variant: {op: (thread, all)}}: instructions per call."""
    libvt = os.path.join(build, 'runtime', 'libvt.so')
    variants = [('plain', {}), ('off', {'LD_PRELOAD': libvt}),
                ('iotrace=yes', {'LD_PRELOAD': libvt, 'VT_IOTRACE': 'yes'}),
                ('memtrace=yes', {'LD_PRELOAD': libvt, 'VT_MEMTRACE': 'yes'})]
    res = {}
    for name, env in variants:
        for op in LOOPS:
            calls = count * (10 if op == 'malloc-free' else 1)
            per = []
            for whole in (False, True):
                n = []
                for k in (1, 2):
                    cwd = os.path.join(work, 'cg-%s-%s-%d-%d' % (name, op, whole, k))
                    os.makedirs(cwd)
                    e = dict(base, VT_PFORM_GDIR=cwd, **env)
                    if not whole:
                        e['VT_BUFFER_SIZE'] = '1G'
                    n.append(instructions(exe, k * count, op, e, cwd, whole))
                per.append((n[1] - n[0]) / calls)
            res.setdefault(name, {})[op] = tuple(per)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--count', type=int, default=200000)
    ap.add_argument('--json')
    ap.add_argument('--callgrind', action='store_true')
    ap.add_argument('--keep', action='store_true',
                    help='keep the work directory /tmp/vt-io-* (deleted otherwise)')
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.access(os.path.join(build, 'vtcc', 'vtrun'), os.X_OK):
        raise SystemExit('run-io.py: build directory %s: no vtcc/vtrun in it (expected a '
                         'built vt build directory)' % a.build)
    work = tempfile.mkdtemp(prefix='vt-io-')
    try:
        measure(a, build, work)
    finally:
        if a.keep:
            print('work directory kept: %s' % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def measure(a, build, work):
    """Every table, printed (and written to --json); the files go under work."""
    vtrun = os.path.join(build, 'vtcc', 'vtrun')
    exe = os.path.join(work, 'io-costs')
    benchlib.sh(['cc', '-O2', '-pthread', SRC, '-o', exe])
    base = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    count = [str(a.count)]
    variants = [
        ('plain', [exe] + count, {}),
        ('vtrun off', [vtrun, exe] + count, {'VT_IOTRACE': 'no', 'VT_MEMTRACE': 'no'}),
        ('vtrun iotrace=yes', [vtrun, exe] + count, {'VT_IOTRACE': 'yes'}),
        ('iotrace=yes 1G buf', [vtrun, exe] + count,
         {'VT_IOTRACE': 'yes', 'VT_BUFFER_SIZE': '1G'}),
        ('vtrun memtrace=yes', [vtrun, exe] + count, {'VT_MEMTRACE': 'yes'}),
    ]
    runs = {name: [] for name, _, _ in variants}
    for r in range(a.runs):
        for name, cmd, env in variants:
            cwd = os.path.join(work, 'run-%d-%s' % (r, name.replace(' ', '-')))
            os.makedirs(cwd)
            runs[name].append(benchlib.costs(cmd, dict(base, VT_PFORM_GDIR=cwd, **env), cwd))
        print('run %d of %d done' % (r + 1, a.runs), file=sys.stderr)
    med = {name: {c: statistics.median(x[c] for x in rs) for c in rs[0]}
           for name, rs in runs.items()}
    print_table('POSIX I/O, 1 byte per call, %d calls per loop (malloc/free: %d pairs), ns per '
                'call (median of %d runs); added = over plain, ratio = to plain'
                % (a.count, 10 * a.count, a.runs), [v[0] for v in variants], med)
    steady_med = steady(a, vtrun, exe, work, base)
    stdio_med = stdio(a, vtrun, work, base)
    print('compiler: %s' % benchlib.first_line(['cc', '--version']))
    cg = None
    if a.callgrind:
        cgcount = min(a.count, 20000)
        cg = callgrind(build, exe, base, work, cgcount)
        print('\ncallgrind: instructions per call (%d and %d calls; thread: the loop on the '
              'program\'s thread, 1G buffer; all: every thread, the trace\'s writing '
              'included; rest: the added all - the added thread), added over plain in brackets'
              % (cgcount, 2 * cgcount))
        print('%-20s' % 'variant' + ''.join('%34s' % (c + ' thread/all/rest') for c in LOOPS))
        for name, ops in cg.items():
            row = ''
            for op, (thread, whole) in ops.items():
                pt, pw = cg['plain'][op]
                row += '%34s' % ('%.0f (%+.0f) / %.0f (%+.0f) / %+.0f' %
                                 (thread, thread - pt, whole, whole - pw,
                                  (whole - pw) - (thread - pt)))
            print('%-20s' % name + row)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'runs': a.runs, 'count': a.count, 'median_ns': med,
                       'steady_median_ns': steady_med,
                       'stdio_median_ns': stdio_med, 'callgrind': cg}, f, indent=1)


if __name__ == '__main__':
    main()
