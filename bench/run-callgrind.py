#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instruction-count benchmark: the instructions vt adds per instrumented function call, for
each instrumentation method, and per MPI_Allreduce, counted by callgrind; unlike ns/call these
counts do not depend on what else the machine runs, so they compare two trees exactly.

Usage: bench/run-callgrind.py BUILD_DIR [--json OUT] [--compare OLD.json] [--calls N]
                              [--only a,b] [--mpi LIST] [--mpirun] [--cflags FLAGS] [--keep]
                              [--list]

Function calls: bench/overhead.c (N calls of an empty, non-inlined function) is built plain,
against libvtfloor, and with BUILD_DIR/vtcc/vtcc per method (compinst = -finstrument-functions
with gcc and clang, the GCC plugin, the LLVM plugin with clang; each also with the run-time
filter dropping the function). Each binary runs twice under `valgrind --tool=callgrind
--collect-atstart=no --toggle-collect=main`, with N and 2N calls and VT_BUFFER_SIZE=1G (nothing
is flushed during the loop). Only what the program's thread runs inside main is counted: the
loop with the hooks it calls, not start-up, not vt's writer thread, not the trace written at
exit. (I(2N) - I(N)) / N is then the instructions of one loop iteration, independent of
anything done once; "added" subtracts the same figure of the uninstrumented build of the same
compiler. The per-function breakdown (callgrind_annotate --inclusive=no, by function, split
by the source file inlined code came from) is taken the same way, by difference.

MPI_Allreduce: bench/allreduce-loop.c calls MPI_Allreduce (one double, MPI_SUM) N times in
allreduce_loop(), built with mpicc and with vtcc -vt:cc mpicc (libvt-mpi), run as a
singleton (or with --mpirun through `mpirun --allow-run-as-root --oversubscribe -np 1`) on one
rank, where the collective is a local copy and nothing waits, and counted with
--toggle-collect=allreduce_loop: MPI_Init, the first call and MPI_Finalize (where vt writes
the trace) are outside. Added per call = vt's figure minus the plain one, again from N and 2N
calls. It is compared with what vt adds to one function call; docs/bench.md's "170 added
against 89" (1.91x) matches a division by the whole loop iteration of the GCC plugin build
(vtcc's default method for gcc: 2 x 38 in the hooks, 9 in the function, 4 in the loop) at
a377d2c, i.e. without subtracting the uninstrumented iteration's 5; against the added 84 it is
2.02x. Both ratios are printed, for each method.

Prints tables; --json writes every figure, the commands and the machine to OUT, and
--compare OLD.json prints an earlier run's figures (the tree before a change) beside these,
with the per-function differences where a figure moved. Exits non-zero when a variant could
not be built or run, or wrote no trace or too few events. Only the standard library is used.
See docs/bench.md.
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUFFER = '1G'  # VT_BUFFER_SIZE: nothing is flushed during the counted loop
NOTICE_RE = re.compile(r'trace written to (\S+) \((\d+) events?, (\d+) locations?\)')
ROW_RE = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(.*?)(?:\s+\[[^\]]*\])?\s*$')
# The hooks whose cost is reported per Enter/Leave ("per hook").
HOOKS = ('__cyg_profile_func_enter', '__cyg_profile_func_exit', 'vt_inst_enter',
         'vt_inst_exit')
MPIRUN = ['mpirun', '--allow-run-as-root', '--oversubscribe', '-np', '1']
MPI_IMPLS = {'openmpi': 'mpicc', 'mpich': 'mpicc.mpich'}


@dataclass
class Variant:
    """One build of bench/overhead.c and how it runs; one row of the function table."""
    name: str
    cmd: list              # compiler command without "-o OUT"; VTCC, SRC, FLOOR replaced
    base: str = ''         # the uninstrumented variant whose iteration is subtracted
    note: str = ''
    traces: bool = False   # built with vtcc: runs get a trace directory, the trace is checked
    records: bool = True   # with traces: every call is in the trace (not filtered)
    env: dict = field(default_factory=dict)


def _vt(cc, inst):
    return ['VTCC', '-vt:cc', cc, '-vt:inst', inst, 'CFLAGS', 'SRC']


FILTER = {'VT_FILTER_SPEC': '{filter}'}
VARIANTS = [
    Variant('uninstrumented', ['gcc', 'CFLAGS', 'SRC'], note='gcc, no instrumentation'),
    Variant('floor', ['gcc', 'CFLAGS', '-finstrument-functions', 'SRC', '-LFLOOR',
                      '-Wl,-rpath,FLOOR', '-lvtfloor'], base='uninstrumented',
            note='gcc -finstrument-functions + libvtfloor (rdtsc + address into a ring)'),
    Variant('compinst', _vt('gcc', 'compinst'), base='uninstrumented', traces=True,
            note='gcc, vtcc -vt:inst compinst (-finstrument-functions)'),
    Variant('compinst-filtered', _vt('gcc', 'compinst'), base='uninstrumented', traces=True,
            records=False, env=FILTER, note='the same, run-time filter drops the function'),
    Variant('gcc-plugin', _vt('gcc', 'gcc'), base='uninstrumented', traces=True,
            note='gcc, vtcc -vt:inst gcc (GCC plugin)'),
    Variant('gcc-plugin-filtered', _vt('gcc', 'gcc'), base='uninstrumented', traces=True,
            records=False, env=FILTER, note='the same, run-time filter'),
    Variant('uninst-clang', ['clang', 'CFLAGS', 'SRC'], note='clang, no instrumentation'),
    Variant('compinst-clang', _vt('clang', 'compinst'), base='uninst-clang', traces=True,
            note='clang, vtcc -vt:inst compinst (-finstrument-functions)'),
    Variant('llvm-plugin', _vt('clang', 'llvm'), base='uninst-clang', traces=True,
            note='clang, vtcc -vt:inst llvm (LLVM plugin)'),
    Variant('llvm-plugin-filtered', _vt('clang', 'llvm'), base='uninst-clang', traces=True,
            records=False, env=FILTER, note='the same, run-time filter'),
]


def log(msg):
    sys.stdout.flush()
    print('run-callgrind: ' + msg, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(
        description="vt's instruction-count benchmark (callgrind): instructions per call.")
    p.add_argument('build_dir', nargs='?',
                   help='a meson build directory of vt (already built)')
    p.add_argument('--json', metavar='OUT', help='write the figures as JSON to OUT')
    p.add_argument('--calls', type=int, default=100000,
                   help='N: runs with N and 2N calls (default 100000)')
    p.add_argument('--cflags', default='-O2', help='flags for every build (default: -O2)')
    p.add_argument('--only', help='comma-separated function variants (default: all; '
                   '"none" for only MPI)')
    p.add_argument('--mpi', default='openmpi',
                   help='MPI implementations for MPI_Allreduce, comma-separated: openmpi '
                   '(mpicc), mpich (mpicc.mpich), or none (default: openmpi)')
    p.add_argument('--mpirun', action='store_true',
                   help='run the MPI programs through "%s" instead of as singletons'
                   % ' '.join(MPIRUN))
    p.add_argument('--keep', action='store_true',
                   help='keep the work directory (binaries, callgrind.out files)')
    p.add_argument('--compare', metavar='OLD.json',
                   help='also print the figures of an earlier --json file next to these '
                   '(e.g. the tree before a change)')
    p.add_argument('--list', action='store_true', help='list the variants and exit')
    a = p.parse_args()
    if a.calls < 1:
        p.error('--calls must be positive')
    if a.build_dir is None and not a.list:
        p.error('BUILD_DIR is required')
    a.mpi = [] if a.mpi == 'none' else a.mpi.split(',')
    for m in a.mpi:
        if m not in MPI_IMPLS:
            p.error('--mpi: unknown %s (openmpi, mpich, none)' % m)
    return a


def clean_env(**more):
    """The caller's environment without VT_* settings and loader overrides (binaries use their
    rpath), plus `more`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('VT_', 'VTFLOOR_')) and k not in ('LD_LIBRARY_PATH', 'LD_PRELOAD')}
    env['LC_ALL'] = 'C'
    env.update(more)
    return env


def try_sh(cmd, **kw):
    """benchlib.sh, but a failure is returned as (None, message) instead of ending the run."""
    try:
        return benchlib.sh(cmd, **kw), None
    except SystemExit as e:
        return None, str(e.code)[-1500:]
    except OSError as e:
        return None, '%s: %s' % (' '.join(cmd), e)



def machine_info(build):
    info = {'kernel': platform.release(), 'arch': platform.machine(),
            'valgrind': benchlib.first_line(['valgrind', '--version']),
            'gcc': benchlib.first_line(['gcc', '--version']),
            'clang': benchlib.first_line(['clang', '--version']),
            'git': benchlib.first_line(['git', '-C', ROOT, 'describe', '--always', '--dirty'])}
    try:
        with open('/proc/cpuinfo') as f:
            info['cpu_model'] = next((ln.split(':', 1)[1].strip() for ln in f
                                      if ln.startswith('model name')), None)
    except OSError:
        pass
    try:
        with open(os.path.join(build, 'meson-info', 'intro-buildoptions.json')) as f:
            opts = {o['name']: o['value'] for o in json.load(f)}
        info['buildtype'] = opts.get('buildtype')
    except (OSError, ValueError, KeyError):
        info['buildtype'] = None
    try:
        with open(os.path.join(build, 'runtime', 'libvt.so'), 'rb') as f:
            info['libvt_sha256'] = hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        info['libvt_sha256'] = None
    return info


def callgrind(cmd, toggle, out_prefix, env, cwd, pre=()):
    """Runs cmd under callgrind, counting only inside `toggle` (on every thread that enters it).
    Returns (total Ir, {function: {source file: Ir}}, the run's output, the command) or raises
    RuntimeError."""
    for old in glob.glob(out_prefix + '.*'):
        os.remove(old)
    full = list(pre) + ['valgrind', '--tool=callgrind', '--collect-atstart=no',
                        '--toggle-collect=' + toggle, '--callgrind-out-file=%s.%%p' % out_prefix
                        ] + cmd
    out, err = try_sh(full, env=env, cwd=cwd)
    if err:
        raise RuntimeError(err)
    # One file per process valgrind ran (a fork would write its own): the program's is the
    # one that counted something.
    best = None
    for path in glob.glob(out_prefix + '.*'):
        with open(path) as f:
            m = re.search(r'^(?:summary|totals):\s*(\d+)', f.read(), re.M)
        total = int(m.group(1)) if m else 0
        if best is None or total > best[0]:
            best = (total, path)
    if best is None:
        raise RuntimeError('callgrind wrote no profile: %s\n%s' % (' '.join(full), out))
    ann, err = try_sh(['callgrind_annotate', '--inclusive=no', '--auto=no', '--threshold=100',
                       best[1]], with_stderr=False)
    if err:
        raise RuntimeError(err)
    funcs = {}
    rows = False
    for line in ann.split('\n'):
        if 'file:function' in line:
            rows = True
            continue
        m = ROW_RE.match(line) if rows else None
        if m:
            src, _, fn = m.group(2).partition(':')
            src = os.path.basename(src)
            funcs.setdefault(fn, {})
            funcs[fn][src] = funcs[fn].get(src, 0) + int(m.group(1).replace(',', ''))
    return best[0], funcs, out, full


def per_call(r1, r2, calls):
    """Per call figures from the runs with N and 2N calls: the total and each function (with
    its parts by source file), dropping those that do not grow with the calls."""
    total = (r2[0] - r1[0]) / calls
    funcs = {}
    for fn in set(r1[1]) | set(r2[1]):
        a, b = r1[1].get(fn, {}), r2[1].get(fn, {})
        parts = {s: (b.get(s, 0) - a.get(s, 0)) / calls for s in set(a) | set(b)}
        parts = {s: v for s, v in parts.items() if abs(v) >= 0.005}
        if parts:
            funcs[fn] = {'per_call': sum(parts.values()), 'parts': parts}
    return total, funcs, r1[0] - total * calls


def measure(name, exe_cmd, toggle, calls, env, work, pre=()):
    """Both runs of one binary. Returns its result dict (with 'error' when it failed)."""
    res = {'name': name}
    runs = []
    for n in (calls, 2 * calls):
        tdir = os.path.join(work, 'traces', '%s-%d' % (name, n))
        os.makedirs(tdir)
        e = dict(env, VT_PFORM_GDIR=tdir)
        try:
            r = callgrind(exe_cmd + [str(n)], toggle,
                          os.path.join(work, 'callgrind.out.%s.%d' % (name, n)), e, work, pre)
        except RuntimeError as ex:
            res['error'] = str(ex)
            return res
        m = NOTICE_RE.search(r[2])
        runs.append(r)
        res.setdefault('events', []).append(int(m.group(2)) if m else None)
        res['command'] = ' '.join(r[3][:-1] + ['N'])
    res['ir_total'] = [runs[0][0], runs[1][0]]
    res['per_call'], res['functions'], res['once'] = per_call(runs[0], runs[1], calls)
    return res


def check_events(res, want, traces):
    """The trace of each run (N, 2N calls) holds at least want(n) events."""
    if 'error' in res or not traces:
        return
    for n, ev in zip((res['calls'], 2 * res['calls']), res['events']):
        if ev is None:
            res['error'] = 'no trace written (no "trace written to" notice) with %d calls' % n
        elif ev < want(n):
            res['error'] = 'trace has %d events with %d calls, expected at least %d' % (
                ev, n, want(n))


def fmt_funcs(funcs, base_funcs=None, limit=0.5):
    """'fn N (file a + file b)', per call, largest first; with base_funcs, the difference."""
    items = []
    for fn in set(funcs) | set(base_funcs or {}):
        f = funcs.get(fn, {'per_call': 0, 'parts': {}})
        v = f['per_call'] - (base_funcs.get(fn, {}).get('per_call', 0) if base_funcs else 0)
        if abs(v) >= limit:
            parts = sorted(f['parts'].items(), key=lambda kv: -kv[1])
            split = ' (%s)' % ' + '.join('%s %.0f' % (s, x) for s, x in parts) \
                if len(parts) > 1 and not base_funcs else ''
            items.append((v, '%s %+.0f' % (fn, v) if base_funcs else '%s %.0f%s' % (fn, v, split)))
    return ', '.join(s for _, s in sorted(items, key=lambda t: (-t[0], t[1])))


def run_functions(args, build, work, variants):
    vtcc = os.path.join(build, 'vtcc', 'vtcc')
    floor = os.path.join(build, 'bench')
    src = os.path.join(HERE, 'overhead.c')
    filt = os.path.join(work, 'filter.txt')
    with open(filt, 'w') as f:
        f.write('# never record the measured function\nempty_function -- 0\n')
    env = clean_env(VT_BUFFER_SIZE=BUFFER)
    built, results = {}, {}
    for v in variants:
        cmd = []
        for a in v.cmd:
            if a == 'CFLAGS':
                cmd += args.cflags.split()
            else:
                cmd.append(a.replace('VTCC', vtcc).replace('SRC', src).replace('FLOOR', floor))
        exe = built.get(tuple(cmd))
        res = {'name': v.name, 'note': v.note, 'build': ' '.join(cmd), 'calls': args.calls,
               'env': dict(v.env, VT_BUFFER_SIZE=BUFFER) if v.traces else dict(v.env)}
        if exe is None:
            exe = os.path.join(work, 'overhead-' + v.name)
            _, err = try_sh(cmd + ['-o', exe], env=env)
            if err:
                res['error'] = 'build failed: ' + err
                results[v.name] = res
                log('%s: %s' % (v.name, res['error']))
                continue
            built[tuple(cmd)] = exe
        log('%s: callgrind with %d and %d calls' % (v.name, args.calls, 2 * args.calls))
        venv = dict(env, **{k: x.replace('{filter}', filt) for k, x in v.env.items()})
        res.update(measure(v.name, [exe], 'main', args.calls, venv, work))
        res['note'] = v.note
        check_events(res, (lambda n: 2 * (n + 1) + 2) if v.records else (lambda n: 0), v.traces)
        if 'error' in res:
            log('%s: %s' % (v.name, res['error']))
        results[v.name] = res
    for v in variants:
        r, b = results[v.name], results.get(v.base)
        if v.base and 'error' not in r and b and 'error' not in b:
            r['base'] = v.base
            r['added'] = r['per_call'] - b['per_call']
            r['hooks'] = {h: r['functions'][h]['per_call'] for h in HOOKS if h in r['functions']}
    return results


def run_mpi(args, build, work):
    vtcc = os.path.join(build, 'vtcc', 'vtcc')
    src = os.path.join(HERE, 'allreduce-loop.c')
    env = clean_env(VT_BUFFER_SIZE=BUFFER)
    out = {}
    for impl in args.mpi:
        mpicc = MPI_IMPLS[impl]
        pre = []
        if args.mpirun and impl == 'openmpi':
            pre = MPIRUN + ['-x', 'VT_BUFFER_SIZE', '-x', 'VT_PFORM_GDIR']
        elif args.mpirun:
            pre = ['mpirun.mpich', '-np', '1']  # hydra passes the whole environment on
        res = {'mpi': impl, 'calls': args.calls, 'launch': 'mpirun' if args.mpirun else
               'singleton', 'mpi_version': benchlib.first_line(['mpirun' if impl == 'openmpi' else
                                                       'mpirun.mpich', '--version'])}
        for kind, cmd in (('plain', [mpicc] + args.cflags.split() + [src]),
                          ('vt', [vtcc, '-vt:cc', mpicc, '-vt:inst', 'compinst'] +
                           args.cflags.split() + [src])):
            exe = os.path.join(work, 'allreduce-%s-%s' % (impl, kind))
            _, err = try_sh(cmd + ['-o', exe], env=env)
            name = 'allreduce-%s-%s' % (impl, kind)
            if err:
                res[kind] = {'name': name, 'error': 'build failed: ' + err}
                continue
            log('%s: callgrind with %d and %d calls' % (name, args.calls, 2 * args.calls))
            r = measure(name, [exe], 'allreduce_loop', args.calls, env, work, pre)
            r.update(build=' '.join(cmd), calls=args.calls)
            # Each MPI_Allreduce is an Enter, CollectiveBegin, CollectiveEnd and Leave.
            check_events(r, lambda n: 4 * n, kind == 'vt')
            res[kind] = r
        if all('error' not in res[k] for k in ('plain', 'vt')):
            res['added'] = res['vt']['per_call'] - res['plain']['per_call']
        else:
            res['error'] = '; '.join(res[k].get('error', '') for k in ('plain', 'vt')).strip('; ')
            log('%s: %s' % (impl, res['error']))
        out[impl] = res
    return out


def report(args, funcs, mpi):
    n = args.calls
    if funcs:
        print('Instructions per call of an empty function (callgrind, %d vs %d calls, '
              'VT_BUFFER_SIZE=%s, program thread inside main):' % (n, 2 * n, BUFFER))
        print('%-22s %10s %8s %7s %7s  %s' % ('variant', 'per call', 'added', 'enter', 'exit',
                                              'note'))
        for r in funcs.values():
            if 'error' in r:
                print('%-22s %s' % (r['name'], 'FAILED: ' + r['error'].split('\n')[0]))
                continue
            h = r.get('hooks', {})
            ent = h.get('__cyg_profile_func_enter', h.get('vt_inst_enter'))
            ext = h.get('__cyg_profile_func_exit', h.get('vt_inst_exit'))
            print('%-22s %10.2f %8s %7s %7s  %s' % (
                r['name'], r['per_call'], '%.2f' % r['added'] if 'added' in r else '-',
                '%.0f' % ent if ent is not None else '-', '%.0f' % ext if ext is not None else '-',
                r['note']))
        print('\nPer call, by function (callgrind_annotate --inclusive=no; inlined code split '
              'by source file):')
        for r in funcs.values():
            if 'error' not in r:
                print('  %-20s %s' % (r['name'], fmt_funcs(r['functions'])))
    for impl, r in mpi.items():
        print('\nMPI_Allreduce of 1 double on 1 rank (%s, %s; callgrind, %d vs %d calls in '
              'allreduce_loop, VT_BUFFER_SIZE=%s):' % (impl, r['launch'], n, 2 * n, BUFFER))
        if 'error' in r:
            print('  FAILED: ' + r['error'].split('\n')[0])
            continue
        print('  plain %.2f, vt %.2f instructions per call: vt adds %.2f'
              % (r['plain']['per_call'], r['vt']['per_call'], r['added']))
        print('  added by function: %s' % fmt_funcs(r['vt']['functions'],
                                                     r['plain']['functions']))
        for m in ('gcc-plugin', 'compinst', 'llvm-plugin'):
            f = funcs.get(m)
            if f and 'added' in f:
                print('  vs a function call with %-11s: %.2f added -> %.2fx; %.2f per loop '
                      'iteration -> %.2fx' % (m, f['added'], r['added'] / f['added'],
                                              f['per_call'], r['added'] / f['per_call']))


def compare(old_path, funcs, mpi):
    """Per call figures of an earlier run (OLD.json) against this one's."""
    with open(old_path) as f:
        old = json.load(f)
    print('\nAgainst %s (%s, %s):' % (old_path, old.get('machine', {}).get('git'),
                                       old.get('date')))
    print('%-30s %10s %10s %8s' % ('instructions per call', 'before', 'now', 'change'))
    rows = [(n, old.get('functions', {}).get(n, {}).get('per_call'), r.get('per_call'))
            for n, r in funcs.items()]
    for impl, r in mpi.items():
        o = old.get('mpi_allreduce', {}).get(impl, {})
        rows.append(('MPI_Allreduce added (%s)' % impl, o.get('added'), r.get('added')))
    for name, a, b in rows:
        change = '-' if None in (a, b) else '%+.2f' % (round(b - a, 2) + 0.0)  # no "-0.00"
        print('%-30s %10s %10s %8s' % (name, '-' if a is None else '%.2f' % a,
                                       '-' if b is None else '%.2f' % b, change))
    for n, r in funcs.items():
        o = old.get('functions', {}).get(n, {})
        if 'functions' in r and 'functions' in o and abs(r['per_call'] - o['per_call']) >= 0.5:
            print('  %-20s by function, now minus before: %s'
                  % (n, fmt_funcs(r['functions'], o['functions'])))
    for impl, r in mpi.items():
        o = old.get('mpi_allreduce', {}).get(impl, {}).get('vt', {})
        if 'functions' in r.get('vt', {}) and 'functions' in o and \
                abs(r['vt']['per_call'] - o['per_call']) >= 0.5:
            print('  %-20s by function, now minus before: %s'
                  % ('MPI_Allreduce ' + impl, fmt_funcs(r['vt']['functions'], o['functions'])))


def main():
    args = parse_args()
    if args.list:
        for v in VARIANTS:
            print('%-22s %s' % (v.name, v.note))
        return 0
    build = os.path.abspath(args.build_dir)
    if not os.access(os.path.join(build, 'vtcc', 'vtcc'), os.X_OK):
        sys.exit('run-callgrind: no vtcc in %s (a built meson build directory of vt?)' % build)
    for tool in ('valgrind', 'callgrind_annotate'):
        if not shutil.which(tool):
            sys.exit('run-callgrind: %s not found' % tool)
    names = None if args.only is None else [] if args.only == 'none' else args.only.split(',')
    if names:
        unknown = set(names) - {v.name for v in VARIANTS}
        if unknown:
            sys.exit('run-callgrind: unknown variant(s): %s (--list shows them)'
                     % ', '.join(sorted(unknown)))
        # An instrumented variant needs its base.
        names += [v.base for v in VARIANTS if v.name in names and v.base]
    variants = [v for v in VARIANTS if names is None or v.name in names]
    work = tempfile.mkdtemp(prefix='vt-bench-callgrind.')
    started = datetime.datetime.now()
    funcs = run_functions(args, build, work, variants) if variants else {}
    mpi = run_mpi(args, build, work) if args.mpi else {}
    report(args, funcs, mpi)
    if args.compare:
        compare(args.compare, funcs, mpi)
    failed = [r['name'] for r in funcs.values() if 'error' in r] + \
        ['MPI_Allreduce (%s)' % k for k, r in mpi.items() if 'error' in r]
    if args.json:
        res = {'date': started.isoformat(timespec='seconds'), 'build_dir': build,
               'calls': args.calls, 'cflags': args.cflags, 'buffer': BUFFER,
               'machine': machine_info(build), 'functions': funcs, 'mpi_allreduce': mpi}
        with open(args.json, 'w') as f:
            json.dump(res, f, indent=1)
        print('\nresults written to %s' % args.json)
    if args.keep:
        print('work directory kept: %s' % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        log('failed: %s' % ', '.join(failed))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
