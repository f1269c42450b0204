#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Start and end: the CPU time and instructions vt adds to a program that does nothing.

Usage: bench/run-startup.py BUILD_DIR [--runs N] [--callgrind] [--top N] [--json OUT]
                            [--cc gcc] [--keep]

`int main(void){return 0;}` is built with the plain compiler and with BUILD_DIR/vtcc/vtcc
(its default method), and each binary runs N times in turn (plain, vt, plain, vt, ...) in a
fresh trace directory. Each run's CPU time (user + system) is taken from os.wait4 on the
program: it counts the program and every child it waited for, vt's writer thread and the
child that writes the trace (archive/vt_apart.c) included, and so are its minor page
faults (the median; they do not depend on the load). Wall time is not reported (the
machine may be loaded); the median and minimum CPU time of each binary, and the difference
of the medians and of the minima (what vt adds), are.

--callgrind also counts instructions: each binary once under `valgrind --tool=callgrind
--trace-children=yes` (children included; under valgrind vt writes the trace in the
program's process, archive/vt_apart.c), the totals summed over the processes, and the
vt build's instructions by function and by object (libotf2, libvt, ld.so, libc, ...),
exclusive, summed over the processes: where vt's start and end go. Every vt run must leave
a trace with its anchor; the script exits non-zero otherwise. Only the standard library is
used. See docs/bench.md.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import benchlib

SRC = 'int main(void) { return 0; }\n'
TOTAL_RE = re.compile(r'^(?:summary|totals):\s+(\d+)', re.M)
ROW_RE = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(\S+?):(\S+)(?:\s+\[([^\]]*)\])?\s*$')


def cpu_run(exe, env, cwd):
    """(CPU seconds (user + system), minor page faults) of one run of exe and its
    waited-for children."""
    p = subprocess.Popen([exe], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit('run-startup: %s exited with %d\n%s' % (exe, p.returncode, err.decode()))
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt


def check_trace(cwd, name):
    if not os.path.exists(os.path.join(cwd, name + '.otf2')):
        sys.exit('run-startup: no trace %s.otf2 in %s' % (name, cwd))


def callgrind(exe, env, cwd):
    """(total instructions, {(object, function): exclusive instructions}) over the processes."""
    out = os.path.join(cwd, 'cg')
    os.makedirs(out, exist_ok=True)
    benchlib.sh(['valgrind', '--tool=callgrind', '--trace-children=yes',
                 '--callgrind-out-file=' + os.path.join(out, 'cg.%p'), exe], env=env, cwd=cwd)
    total, funcs = 0, {}
    for f in sorted(glob.glob(os.path.join(out, 'cg.*'))):
        with open(f) as fh:
            m = TOTAL_RE.search(fh.read())
        total += int(m.group(1)) if m else 0
        ann = benchlib.sh(['callgrind_annotate', '--inclusive=no', '--auto=no',
                           '--threshold=100', f], with_stderr=False)
        for line in ann.splitlines():
            m = ROW_RE.match(line)
            if not m:
                continue
            # callgrind names no object for some code inlined from a header (ld.so's
            # dl-*.h): that file, in parentheses.
            obj = (re.sub(r'\.so[.\d]*$', '', os.path.basename(m.group(4))) if m.group(4)
                   else '(%s)' % os.path.basename(m.group(2)))
            key = (obj, m.group(3))
            funcs[key] = funcs.get(key, 0) + int(m.group(1).replace(',', ''))
        os.unlink(f)
    return total, funcs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('build')
    ap.add_argument('--runs', type=int, default=40)
    ap.add_argument('--callgrind', action='store_true')
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--json')
    ap.add_argument('--cc', default='gcc')
    ap.add_argument('--keep', action='store_true')
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    vtcc = os.path.join(build, 'vtcc', 'vtcc')
    if not os.access(vtcc, os.X_OK):
        sys.exit('run-startup: no vtcc in %s (a built meson build directory of vt?)' % build)
    if a.runs < 1:
        sys.exit('run-startup: --runs takes a positive count, not %d' % a.runs)
    tmp = tempfile.mkdtemp(prefix='vt-startup.')
    env = dict(os.environ, LC_ALL='C')
    try:
        src = os.path.join(tmp, 'empty.c')
        with open(src, 'w') as f:
            f.write(SRC)
        exes = {'plain': os.path.join(tmp, 'plain'), 'vt': os.path.join(tmp, 'vt')}
        benchlib.sh([a.cc, '-O2', '-o', exes['plain'], src])
        benchlib.sh([vtcc, '-vt:cc', a.cc, '-O2', '-o', exes['vt'], src], env=env)
        cpu, faults = {'plain': [], 'vt': []}, {'plain': [], 'vt': []}
        for i in range(a.runs):
            for k in ('plain', 'vt'):
                d = os.path.join(tmp, 'run-%s-%d' % (k, i))
                os.mkdir(d)
                t, flt = cpu_run(exes[k], env, d)
                cpu[k].append(t)
                faults[k].append(flt)
                if k == 'vt':
                    check_trace(d, 'vt.vt')
                shutil.rmtree(d)
        res = {'runs': a.runs, 'cc': a.cc}
        print('CPU time (user+system, ms) of %d runs each, the program and its children:'
              % a.runs)
        print('%-6s %9s %9s %12s' % ('', 'median', 'min', 'page faults'))
        for k in ('plain', 'vt'):
            med, lo = statistics.median(cpu[k]) * 1e3, min(cpu[k]) * 1e3
            flt = statistics.median(faults[k])
            res[k] = {'median_ms': med, 'min_ms': lo, 'minflt': flt}
            print('%-6s %9.3f %9.3f %12d' % (k, med, lo, flt))
        res['added_median_ms'] = res['vt']['median_ms'] - res['plain']['median_ms']
        res['added_min_ms'] = res['vt']['min_ms'] - res['plain']['min_ms']
        res['added_minflt'] = res['vt']['minflt'] - res['plain']['minflt']
        print('%-6s %9.3f %9.3f %12d' % ('added', res['added_median_ms'], res['added_min_ms'],
                                         res['added_minflt']))
        if a.callgrind:
            ins = {}
            for k in ('plain', 'vt'):
                d = os.path.join(tmp, 'cg-' + k)
                os.mkdir(d)
                ins[k], funcs = callgrind(exes[k], env, d)
                if k == 'vt':
                    check_trace(d, 'vt.vt')
                    vt_funcs = funcs
            res['instructions'] = ins
            res['instructions_added'] = ins['vt'] - ins['plain']
            print('\ninstructions (callgrind, children included): plain %d, vt %d, added %d'
                  % (ins['plain'], ins['vt'], ins['vt'] - ins['plain']))
            objs = {}
            for (obj, _), n in vt_funcs.items():
                objs[obj] = objs.get(obj, 0) + n
            print('\nthe vt build by object (exclusive):')
            for obj, n in sorted(objs.items(), key=lambda x: -x[1]):
                print('%12d %5.1f%%  %s' % (n, 100.0 * n / ins['vt'], obj))
            print('\nthe vt build by function (exclusive), the first %d:' % a.top)
            top = sorted(vt_funcs.items(), key=lambda x: -x[1])[:a.top]
            for (obj, fn), n in top:
                print('%12d %5.1f%%  %s %s' % (n, 100.0 * n / ins['vt'], obj, fn))
            res['objects'] = objs
            res['functions'] = [[o, f, n] for (o, f), n in top]
        if a.json:
            with open(a.json, 'w') as f:
                json.dump(res, f, indent=1)
    finally:
        if a.keep:
            print('kept', tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
