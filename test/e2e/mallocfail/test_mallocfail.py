# SPDX-License-Identifier: BSD-3-Clause
"""e2e "mallocfail": under an allocator that fails from its N-th call on (failmalloc.c,
LD_PRELOAD'd), a vtcc-built program exits as the plain program does under the same N: same
status, same stdout, no death by a signal, at most a few vt lines, each with the program's
PID; every trace vt says it wrote reads with otf2-print, with the events vt counted. N goes
over every allocation a traced run makes (counted first, the closing child's included), or
a spread of them that keeps the early calls and the close's when there are too many.
Under a sanitizer the sanitizer's allocator is the program's: the case skips itself."""

import os
import subprocess
import sys
import time

import vttest

# The sweep's budget: beyond this many values of N, a spread (see spread()).
MAX_POINTS = 600
# At most this many vt lines in any run (the default verbosity).
MAX_LINES = 4


def skip(why):
    print('SKIP: %s' % why)
    sys.exit(77)


def spread(count):
    """The values of N: all of 0..count+1, or the first 260 and every k-th after."""
    every = list(range(count + 2))
    if len(every) <= MAX_POINTS:
        return every
    step = (len(every) - 260) // (MAX_POINTS - 260) + 1
    return every[:260] + every[260::step] + [count, count + 1]


def run(t, exe, n, lib, gdir):
    """One run under failmalloc: (status, stdout, vt lines as (pid, text), pid, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('VT_')}
    env.update({'LD_PRELOAD': lib, 'FAILMALLOC_AT': str(n), 'VT_PFORM_GDIR': gdir})
    p = subprocess.Popen([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=gdir,
                         env=env, universal_newlines=True, errors='replace')
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, [(0, 'timed out')], p.pid, err
    lines = []
    for line in err.splitlines():
        m = vttest.VT_LINE.match(line)
        if m:
            lines.append((int(m.group(1)), m.group(2)))
    return p.returncode, out, lines, p.pid, err


def events_read(anchor):
    """(events otf2-print shows, problems)."""
    locs, problems = vttest.read_with_otf2_print(anchor)
    return sum(l['events'] for l in locs.values()), problems


def body(t):
    if os.environ.get('VT_TEST_SANITIZE'):
        skip('under a sanitizer, whose allocator the program uses: a failing malloc '
             'preloaded before it is not the one that runs (scripts/test-sanitize.sh)')
    vttest.require_otf2()
    lib = os.path.join(t.newdir('lib'), 'libfailmalloc.so')
    cmd = ['gcc', '-shared', '-fPIC', '-O1', t.source('failmalloc.c'), '-o', lib]
    subprocess.run(cmd, check=True)
    exe = t.compile('prog', ['prog.c'], 'c', 'gcc', '-O0')
    plain = t.compile('prog-plain', ['prog.c'], instrument=False)

    # How many allocations a traced run makes, the child that writes the trace included.
    count_file = os.path.join(t.newdir('count'), 'count')
    counted = t.run(exe, env={'LD_PRELOAD': lib, 'FAILMALLOC_COUNT': count_file})
    t.eq(counted.status, 7, 'counting run: exit status 7')
    t.eq(len(counted.written), 1, 'counting run: the trace written')
    with open(count_file, 'rb') as f:
        count = int.from_bytes(f.read(8), sys.byteorder)
    t.check(count > 50, 'counting run: %d allocations counted' % count)
    t.trace(counted, 'counting run')
    points = spread(count)
    t.note('%d allocations in a traced run: N over %d values' % (count, len(points)))

    def one(n):
        d = t.newdir('n%d' % n)
        pd = os.path.join(d, 'plain')
        td = os.path.join(d, 'traced')
        os.makedirs(pd)
        os.makedirs(td)
        ref = run(t, plain, n, lib, pd)
        got = run(t, exe, n, lib, td)
        return n, ref, got, td

    started = time.time()
    results = t.parallel(one, points)
    t.note('sweep took %.1f s' % (time.time() - started))

    signalled, differ, chatty, foreign, unreadable, noise = [], [], [], [], [], []
    written = 0
    failed_lines = set()
    for n, ref, got, td in results:
        status, out, lines, pid, err = got
        if status is None or status < 0:
            signalled.append((n, status, err[-300:]))
            continue
        if (status, out) != ref[:2]:
            differ.append((n, (status, out), ref[:2], err[-300:]))
        own = [l for l in err.splitlines() if not vttest.VT_LINE.match(l)]
        if own != ref[4].splitlines():
            noise.append((n, own[:3]))
        if len(lines) > MAX_LINES:
            chatty.append((n, [m for _, m in lines]))
        if any(p != pid for p, _ in lines):
            foreign.append((n, lines))
        for _, m in lines:
            if m.startswith('error:') or m.startswith('warning:'):
                failed_lines.add(m.split(':', 2)[1].strip()[:40])
            w = vttest.WRITTEN.match(m)
            if not w:
                continue
            written += 1
            events, problems = events_read(w.group(1))
            if problems or events != int(w.group(2)):
                unreadable.append((n, w.group(1), events, int(w.group(2)), problems[:2]))
    t.check(not signalled, 'no run died by a signal', repr(signalled[:5]))
    t.check(not differ, 'status and stdout as the plain program\'s under the same N',
            repr(differ[:5]))
    t.check(not noise, 'the program\'s stderr without vt\'s lines as the plain program\'s',
            repr(noise[:5]))
    t.check(not chatty, 'at most %d vt lines in every run' % MAX_LINES, repr(chatty[:5]))
    t.check(not foreign, 'vt lines carry the program\'s PID', repr(foreign[:5]))
    t.check(not unreadable, 'the %d traces vt said it wrote read with otf2-print, with the '
            'events vt counted' % written, repr(unreadable[:5]))
    # The sweep went through both: runs whose trace was written, runs whose was not.
    t.check(0 < written < len(points), 'some runs wrote their trace, some could not (%d of %d '
            'written)' % (written, len(points)))
    t.note('kinds of vt error and warning lines seen: %s' % sorted(failed_lines))


vttest.main('mallocfail', body)
