#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per recorded event with 0, 1, 2, 4 synchronous counters, every thread counted.

Usage: bench/run-sync-callgrind.py BUILD_DIR [--calls N] [--counters 0,1,2,4] [--json OUT]

bench/overhead.c is built with BUILD_DIR/vtcc/vtcc (its default method) and run under
`valgrind --tool=callgrind --separate-threads=yes` with N and 2N calls, each call an Enter and
a Leave, with K counters of BUILD_DIR/bench/libbenchsync.so (benchsync_const0 ... constK-1,
each returning 42). Unlike run-callgrind.py, which counts the program's thread inside main,
this counts every thread from start to exit: the program's reads and records, and the writer
thread's encoding through libotf2 and the writes. VT_BUFFER_SIZE=256M: nothing is flushed in
the loop, every record is encoded at exit, so no thread waits for another while counted (a
waiting thread's instructions depend on the machine's load; these do not). (I(2N) - I(N)) /
2N is then the instructions of one event, independent of anything done once; the table gives
it for the program's thread, the other threads, and both, and what K counters add to K = 0.
Only the standard library is used. See docs/bench.md.
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))


def totals(outdir):
    """{thread number: instructions} of the callgrind files in outdir."""
    res = {}
    for path in glob.glob(os.path.join(outdir, 'callgrind.out.*')):
        name = os.path.basename(path)
        if '-' not in name:
            continue  # the process's summary, without threads
        tid = int(name.rsplit('-', 1)[1])
        with open(path) as f:
            for line in f:
                if line.startswith('totals:') or line.startswith('summary:'):
                    res[tid] = int(line.split()[1])
                    break
    return res


def run(exe, calls, k, build, work):
    env = dict(os.environ, VT_FILE_PREFIX='sync%d_%d' % (k, calls), VT_BUFFER_SIZE='256M')
    env['VT_PLUGIN_CNTR_PATH'] = os.path.join(build, 'bench')
    if k:
        env['VT_PLUGIN_CNTR_METRICS'] = ':'.join('benchsync_const%d' % i for i in range(k))
    else:
        env.pop('VT_PLUGIN_CNTR_METRICS', None)
    outdir = tempfile.mkdtemp(dir=work)
    benchlib.sh(['valgrind', '--tool=callgrind', '--separate-threads=yes',
                 '--callgrind-out-file=' + os.path.join(outdir, 'callgrind.out.%p'),
                 exe, str(calls)], env=env, cwd=work)
    t = totals(outdir)
    if not t:
        sys.exit('k=%d: no callgrind file in %s' % (k, outdir))
    main = t[min(t)]
    return main, sum(t.values()) - main


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('build_dir')
    p.add_argument('--calls', type=int, default=50000)
    p.add_argument('--counters', default='0,1,2,4')
    p.add_argument('--json', metavar='OUT')
    a = p.parse_args()
    build = os.path.abspath(a.build_dir)
    if not shutil.which('valgrind'):
        sys.exit('valgrind is not installed')
    work = tempfile.mkdtemp(prefix='vt-sync-cg-')
    exe = os.path.join(work, 'overhead')
    benchlib.sh([os.path.join(build, 'vtcc', 'vtcc'), '-O2', '-o', exe,
                 os.path.join(HERE, 'overhead.c')])
    rows = {}
    for k in [int(x) for x in a.counters.split(',')]:
        m1, w1 = run(exe, a.calls, k, build, work)
        m2, w2 = run(exe, 2 * a.calls, k, build, work)
        ev = 2.0 * a.calls
        rows[k] = {'program': (m2 - m1) / ev, 'others': (w2 - w1) / ev}
        rows[k]['total'] = rows[k]['program'] + rows[k]['others']
    print('| counters | program thread | other threads | total | added to 0 counters |')
    print('|---|---|---|---|---|')
    for k, r in rows.items():
        add = '%+.0f' % (r['total'] - rows[0]['total']) if 0 in rows and k else ''
        print('| %d | %.0f | %.0f | %.0f | %s |' % (k, r['program'], r['others'], r['total'],
                                                    add))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'calls': a.calls, 'rows': rows}, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
