# SPDX-License-Identifier: BSD-3-Clause
"""e2e "threads_short": 1000 threads, one after the other, under `ulimit -v` 1 GiB. The
buffer of an ended thread goes back to the system, so memory follows the threads alive:
the program runs as without vt (every thread created) and the trace holds all 1001
locations with every call (before, each thread kept its 8 MiB buffer: 8 GiB of address
space, and thread creation failed). The locations' local definition files, identical, are
one file with a name per location (hard links, vt_otf2_close.c): otf2-print, python3-otf2
and vt-profile read every location's events from it. Where a link cannot be made (here: a
file is in the way, made by the program), libotf2 writes that location's file, and the
locations after it link to that one. Under `ulimit -v` 60 MB (issue 27: libvt's 90 MB
region table in bss kept the program from even loading, rc 127), a program that runs plain
runs traced: libvt's address space at start is under 50 MB, the regions mapped as used; with
the default 8 MiB buffers its threads' buffers do not fit, and lines say those threads are
not recorded."""

import os
import sys

import vttest

N = 1000
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
    tr = t.trace(run, 'ulimit -v', prefix='short')
    t.eq(len(tr.locations), N + 1, 'every thread has its location')
    short = [l for l in tr.locations if l.name != 'Master thread']
    bad = [l.name for l in short if dict(l.enters) != {'run': 1, 'work': 10}]
    t.eq(bad, [], 'every thread: run once, work 10 times')
    defs = [os.stat(os.path.join(run.anchor('short')[:-len('.otf2')], '%d.def' % l.ref))
            for l in tr.locations]
    t.eq(len({(d.st_dev, d.st_ino) for d in defs}), 1,
         'the %d local definition files are one file' % len(defs))
    t.eq(sorted({d.st_nlink for d in defs}), [N + 1], 'with a name per location')

    # A small address-space limit: the program still loads and its trace is written.
    small = ['-c', 'ulimit -v 60000 && exec "$0" "$@"']
    ref = t.run('/bin/sh', small + [plain, '3'], label='plain-60M')
    t.eq((ref.status, ref.stdout), (0, '3 threads\n'), 'plain, ulimit -v 60000: runs')
    run = t.run('/bin/sh', small + [exe, '3'], env={'VT_FILE_PREFIX': 'small',
                                                    'VT_BUFFER_SIZE': '1M'}, label='vt-60M')
    t.same_as_plain(run, ref, 'ulimit -v 60000')
    t.clean_run(run, 'ulimit -v 60000')
    tr = t.trace(run, 'ulimit -v 60000', prefix='small')
    t.eq(sorted(dict(l.enters).get('work', 0) for l in tr.locations), [0, 10, 10, 10],
         'ulimit -v 60000: every thread\'s calls')
    # With the default 8 MiB buffers the threads' buffers do not fit: the program runs as
    # ever, the threads are not recorded, and lines say so.
    run = t.run('/bin/sh', small + [exe, '3'], env={'VT_FILE_PREFIX': 'small8'},
                label='vt-60M-8M')
    t.same_as_plain(run, ref, 'ulimit -v 60000, 8 MiB buffers')
    t.check(run.errors and all('that thread is not recorded' in m for m in run.errors),
            'ulimit -v 60000, 8 MiB buffers: lines say which threads are not recorded',
            repr(run.errors))
    tr = t.trace(run, 'ulimit -v 60000, 8 MiB buffers', prefix='small8')
    t.eq(tr.loc('Master thread').enters.get('main'), 1,
         'ulimit -v 60000, 8 MiB buffers: the master thread recorded')

    # A link refused: location 2's name is taken when vt comes to link it.
    run = t.run(exe, ['3', 'refused/2.def'], env={'VT_FILE_PREFIX': 'refused'},
                label='refused')
    t.eq((run.status, run.stdout), (0, '3 threads\n'), 'refused: the program ran')
    t.clean_run(run, 'refused')
    tr = t.trace(run, 'refused', prefix='refused')
    t.eq(sorted((l.name, dict(l.enters)) for l in tr.locations if l.name != 'Master thread'),
         [('Thread %d' % i, {'run': 1, 'work': 10}) for i in (1, 2, 3)],
         'refused: every thread, run once, work 10 times')
    evdir = run.anchor('refused')[:-len('.otf2')]
    ino = {}
    content = {}
    for ref in range(4):
        path = os.path.join(evdir, '%d.def' % ref)
        ino[ref] = os.stat(path).st_ino
        with open(path, 'rb') as f:
            content[ref] = f.read()
    t.eq([ino[0] == ino[1], ino[1] == ino[2], ino[2] == ino[3]], [True, False, True],
         'refused: locations 0-1 share a file, 2 has its own, 3 links to it')
    t.eq(len(set(content.values())), 1, 'refused: the written file has the same records')


vttest.main('threads_short', body)
