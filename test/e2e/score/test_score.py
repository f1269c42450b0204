# SPDX-License-Identifier: BSD-3-Clause
"""e2e "score": vt-score on a traced program with a known mix (hot.c): tiny functions called
200000 and 100000 times, real work called 20 times, a small frequent user-API region.
- the proposed filter holds exactly the two tiny functions (never the user region, never
  the real work), and vt-score's table says so;
- its estimate of the events with the filter is within 5% of what a run with the filter
  records, at run time (VT_FILTER_SPEC) and at compile time (vtcc -vt:filter), and those
  traces have no call of the filtered functions;
- bad input: a missing trace, a file that is no trace, an unwritable output: one line each
  and exit status 2."""

import os
import re
import subprocess

import vttest

TINY = {'tiny_add': 200000, 'tiny_mul': 100000}


def score(t, args, what):
    p = subprocess.run([vttest.VT_SCORE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    print('vt-score %s -> %d\n%s%s' % (' '.join(args), p.returncode, p.stdout, p.stderr))
    return p


def table(out):
    """{region: (type, calls, proposed)} from vt-score's table."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r'^(COMPILER|USER|MPI|OTHER)\s+(\d+)\s+\S+ \S+\s+\S+%\s+\S+\s+\S+\s+'
                     r'(yes|-)\s+(.+)$', line)
        if m:
            rows[m.group(4)] = (m.group(1), int(m.group(2)), m.group(3) == 'yes')
    return rows


def estimate(out):
    m = re.search(r'^  events\s+(\d+)\s+(\d+)$', out, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def check_filtered(t, run, want_events, what):
    t.clean_run(run, what)
    tr = t.trace(run, what)
    master = tr.loc('Master thread')
    t.enter_counts(master, {'main': 1, 'work': 20, 'user_step': 20000},
                   '%s: no call of a filtered function' % what)
    t.check(abs(tr.events - want_events) <= 0.05 * want_events,
            '%s: events within 5%% of vt-score\'s estimate %d' % (what, want_events),
            'recorded %d' % tr.events)


def body(t):
    inc = ['-I' + os.path.join(vttest.SOURCE_ROOT, 'runtime', 'include')]
    exe = t.compile('hot', ['hot.c'], opt='-O1')
    plain = t.run(t.compile('hot', ['hot.c'], opt='-O1', flags=inc, instrument=False),
                  label='plain')
    run = t.run(exe, label='whole')
    t.same_as_plain(run, plain, 'traced whole')
    tr = t.trace(run, 'traced whole')
    filt = os.path.join(t.newdir('filter'), 'hot.filter')
    p = score(t, [tr.path, '-o', filt, '--top', '0'], 'score')
    t.eq((p.returncode, p.stderr), (0, ''), 'vt-score runs cleanly')
    rows = table(p.stdout)
    t.eq({n: r[2] for n, r in rows.items()},
         {'tiny_add': True, 'tiny_mul': True, 'work': False, 'main': False,
          'user_step': False}, 'the table proposes exactly the tiny functions')
    t.eq({n: r[1] for n, r in rows.items() if n in TINY}, TINY, 'the table\'s call counts')
    t.eq(rows.get('user_step', ('',))[0], 'USER', 'the user region is of type USER')
    now, after = estimate(p.stdout)
    t.eq(now, tr.events, 'the estimate starts from the trace\'s events')
    cut = 2 * sum(TINY.values())
    flushes = sum(l.kinds.get('BufferFlush', 0) for l in tr.locations)
    cut += int(flushes * cut / (tr.events - flushes))
    t.eq(after, tr.events - cut if now else None,
         'the estimate: the filtered calls\' events removed, and as many fewer flushes')
    lines = [l for l in open(filt).read().splitlines() if l and not l.startswith('#')]
    t.eq(sorted(lines), ['tiny_add -- 0', 'tiny_mul -- 0'], 'the filter file, vt\'s syntax')

    run = t.run(exe, env={'VT_FILTER_SPEC': filt}, label='runtime-filter')
    t.same_as_plain(run, plain, 'VT_FILTER_SPEC')
    check_filtered(t, run, after or 1, 'VT_FILTER_SPEC')
    ct = t.compile('hot', ['hot.c'], opt='-O1', flags=['-vt:filter', filt])
    run = t.run(ct, label='compile-filter')
    t.same_as_plain(run, plain, '-vt:filter')
    check_filtered(t, run, after or 1, '-vt:filter')

    p = score(t, [os.path.join(t.newdir('none'), 'missing.otf2')], 'missing')
    t.eq((p.returncode, len(p.stderr.strip().splitlines())), (2, 1),
         'a missing trace: one line, status 2')
    junk = os.path.join(t.newdir('junk'), 'junk.otf2')
    with open(junk, 'w') as f:
        f.write('not a trace\n')
    p = score(t, [junk], 'junk')
    t.eq((p.returncode, len(p.stderr.strip().splitlines())), (2, 1),
         'a file that is no trace: one line, status 2')
    p = score(t, [tr.path, '-o', '/proc/vt-score-cannot-write'], 'unwritable')
    t.eq(p.returncode, 2, 'an unwritable filter file: status 2')
    t.check(p.stderr.startswith('vt-score: /proc/vt-score-cannot-write: cannot write: ')
            and len(p.stderr.splitlines()) == 1, 'an unwritable filter file: its line',
            p.stderr)
    p = score(t, ['--min-calls', 'many', tr.path], 'bad option')
    t.eq((p.returncode, p.stderr.strip()),
         (2, "vt-score: --min-calls: 'many' is not a whole number >= 0 (see vt-score --help)"),
         'a bad option value: one line, status 2')


vttest.main('score', body)
