# SPDX-License-Identifier: BSD-3-Clause
"""e2e "threads_short": 640 threads, one after the other, under `ulimit -v` 1 GiB. The
buffer of an ended thread goes back to the system, so memory follows the threads alive:
the program runs as without vt (every thread created) and the trace holds all 641
locations with every call (before, each thread kept its 8 MiB buffer: 5 GiB of address
space, and thread creation failed)."""

import os
import sys

import vttest

N = 640
LIMIT_KB = 1024 * 1024


def body(t):
    if os.environ.get('VT_TEST_SANITIZE'):
        print('SKIP: under a sanitizer, whose shadow memory does not fit under ulimit -v')
        sys.exit(77)
    exe, plain = t.parallel(lambda a: t.compile(*a), [
        ('shortlived', ['shortlived.c'], 'c', 'gcc', '-O2', ['-pthread']),
        ('shortlived-plain', ['shortlived.c'], 'c', 'gcc', '-O2', ['-pthread'], False)])
    limited = ['-c', 'ulimit -v %d && exec "$0" "$@"' % LIMIT_KB]
    ref = t.run('/bin/sh', limited + [plain, str(N)], label='plain')
    t.eq((ref.status, ref.stdout), (0, '%d threads\n' % N), 'plain: every thread created')
    run = t.run('/bin/sh', limited + [exe, str(N)], env={'VT_FILE_PREFIX': 'short'},
                label='vt', timeout=300)
    t.same_as_plain(run, ref, 'ulimit -v %d' % LIMIT_KB)
    t.clean_run(run, 'ulimit -v')
    tr = t.trace(run, 'ulimit -v', prefix='short', profile=False)
    t.eq(len(tr.locations), N + 1, 'every thread has its location')
    short = [l for l in tr.locations if l.name != 'Master thread']
    bad = [l.name for l in short if dict(l.enters) != {'run': 1, 'work': 10}]
    t.eq(bad, [], 'every thread: run once, work 10 times')


vttest.main('threads_short', body)
